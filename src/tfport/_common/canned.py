"""The one registry of the canned estimators: their names, families and homes.

`tfport.estimator` and `tfport.estimator.v1` serve these names from it (v2 and v1 classes),
the legacy module tree places them under `canned.<family>` (with their `...V2` renames) and
`tfport upgrade` rewrites `tf.estimator.<name>` / `tf.compat.v1.estimator.<name>` from it.
Importing it imports nothing else.

Example:
    >>> FAMILY["DNNClassifier"], home("DNNClassifier", v1=True)
    ('dnn', 'tfport.estimator._canned.dnn_v1')
    >>> LEGACY_MODULE["dnn_linear_combined"]
    'combined'
"""

from __future__ import annotations

#: family -> its estimators (the modules `tfport.estimator._canned.<family>_v1/_v2` define them)
FAMILIES: dict[str, tuple[str, ...]] = {
    family: tuple(f"{stem}{kind}" for kind in ("Classifier", "Estimator", "Regressor"))
    for family, stem in (
        ("baseline", "Baseline"),
        ("combined", "DNNLinearCombined"),
        ("dnn", "DNN"),
        ("linear", "Linear"),
    )
}
#: every canned estimator's name -> its family
FAMILY: dict[str, str] = {name: fam for fam, names in FAMILIES.items() for name in names}
#: legacy's `canned.<module>` -> the family it defined
LEGACY_MODULE: dict[str, str] = {
    "baseline": "baseline",
    "dnn": "dnn",
    "dnn_linear_combined": "combined",
    "linear": "linear",
}


def home(name: str, v1: bool = False) -> str:
    """The module that defines canned estimator `name` (its v1 class with `v1=True`).

    Example:
        >>> home("LinearRegressor")
        'tfport.estimator._canned.linear_v2'
    """
    return f"tfport.estimator._canned.{FAMILY[name]}_{'v1' if v1 else 'v2'}"
