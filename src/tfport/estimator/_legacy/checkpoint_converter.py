"""Legacy `tools/checkpoint_converter.py`: its tables of optimizer names and hyperparameters.

`convert_checkpoint` (v1 canned-estimator checkpoints to Keras-optimizer ones) is not
provided: tfport's v1 and v2 canned estimators each read their own legacy checkpoints.

Example:
    >>> OPT_NAME_V1_TO_V2["RMSProp"]
    'RMSprop'
"""

from __future__ import annotations

from tfport.estimator._legacy.names import unavailable

HP_IN_CKPT = {
    "Adam": {"beta1_power": "training/Adam/beta_1", "beta2_power": "training/Adam/beta_2"}
}
HP_IN_GRAPH = {
    "Adam": ["decay", "learning_rate"],
    "Ftrl": [
        "decay",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "beta",
        "learning_rate",
        "learning_rate_power",
    ],
    "RMSProp": ["decay", "learning_rate", "momentum", "rho"],
    "Adagrad": ["decay", "learning_rate"],
    "SGD": ["decay", "learning_rate", "momentum"],
}
OPT_NAME_V1_TO_V2 = {
    "Adagrad": "Adagrad",
    "RMSProp": "RMSprop",
    "Ftrl": "Ftrl",
    "Adam": "Adam",
    "SGD": "SGD",
}
OPT_VAR_NAME_V1_TO_V2 = {
    "Adam": {"Adam": "m", "Adam_1": "v"},
    "Ftrl": {"Ftrl": "accumulator", "Ftrl_1": "linear"},
    "RMSProp": {"RMSProp": "rms", "RMSProp_1": None},
    "Adagrad": {"Adagrad": "accumulator"},
}
OPT_V2_INSTANCE = None  # legacy held Keras optimizer instances made at import
_WHY = (
    "converting v1 canned-estimator checkpoints to Keras-optimizer ones is not provided; "
    "keep training with the v1 estimator (tf.compat.v1.estimator), which reads them"
)
convert_checkpoint = unavailable(
    "convert_checkpoint", _WHY, "estimator_type, source_checkpoint, source_graph, target_checkpoint"
)
main = unavailable("main", _WHY, "_")
