"""Private legacy modules (`tensorflow_estimator.python.estimator.canned.head`, `gc`, `util`,
...): the names libraries import from below the public API, served by `tfport._legacy_paths`.
"""
