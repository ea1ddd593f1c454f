"""Every docstring example in `src/tfport` runs and shows what it says.

Examples that need files, a trained model or a cluster are marked `# doctest: +SKIP`
where they stand; all others are executed, in a fresh process (some install tfport
or import TensorFlow), each module's failures reported under its name.
"""

from __future__ import annotations

import doctest
import json
import pathlib
import subprocess
import sys

RUNNER = """
import doctest, importlib, json, pathlib, sys
src = pathlib.Path(sys.argv[1])
failed = {}
for path in sorted((src / "tfport").rglob("*.py")):
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__main__":
        continue
    if parts[-1] == "__init__":
        parts.pop()
    name = ".".join(parts)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    report = []
    for test in doctest.DocTestFinder(exclude_empty=True).find(importlib.import_module(name), name):
        runner.run(test, out=report.append)
    if runner.failures:
        failed[name] = "".join(report)
print("DOCTEST-RESULT " + json.dumps(failed))
"""


def test_docstring_examples_run(tmp_path):
    import tfport

    src = str(pathlib.Path(tfport.__file__).resolve().parents[1])
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, src],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,  # examples may write relative files
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("DOCTEST-RESULT ")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-4000:]
    failed = json.loads(lines[-1].removeprefix("DOCTEST-RESULT "))
    assert failed == {}


def test_a_wrong_example_fails():
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "planted", None, 0)
    runner = doctest.DocTestRunner(verbose=False)
    runner.run(test, out=lambda _: None)
    assert runner.failures == 1
