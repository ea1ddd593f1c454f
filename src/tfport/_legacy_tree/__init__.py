"""The legacy module tree: which tfport objects each legacy private module path offers.

`PATHS[suffix]` lists the sources a module under `tensorflow_estimator.python.estimator.`
(and `tensorflow.python.estimator.`) searches, first match wins: `"module"` or
`"module:attr.path"`. `NAMES[suffix]` maps single names to `"module:attr"` (renames such as
`DNNClassifierV2`, the small names of `tfport.estimator._legacy.names`, and the private names
served from their implementations, `_private.PRIVATE`). `VALUES[suffix]` holds private literal
constants with legacy's values. One table per module: `_paths`, `_names`, `_private`,
`_values`.
"""

from __future__ import annotations

from tfport._legacy_tree._names import NAMES
from tfport._legacy_tree._paths import GLUE_ALIASES, GLUE_PATHS, PATHS, WHY
from tfport._legacy_tree._private import PRIVATE
from tfport._legacy_tree._values import VALUES

for _suffix, _faces in PRIVATE.items():
    NAMES[_suffix].update(_faces)

__all__ = ["GLUE_ALIASES", "GLUE_PATHS", "NAMES", "PATHS", "VALUES", "WHY"]
