"""The one place tfport touches TensorFlow's internals (a package, split by TF concern)."""

from tfport._common.tf_internals.distribute import *  # noqa: F403
from tfport._common.tf_internals.distribute import ATTRIBUTES, SYMBOLS  # noqa: F401
