"""`tf.estimator.inputs` / `tf.compat.v1.estimator.inputs`: numpy and pandas input functions.

Example:
    >>> import numpy as np
    >>> from tfport.estimator import inputs
    >>> fn = inputs.numpy_input_fn({"x": np.zeros(4)}, shuffle=False)
"""

from tfport.estimator._inputs.numpy_io import numpy_input_fn
from tfport.estimator._inputs.pandas_io import pandas_input_fn

__all__ = ["numpy_input_fn", "pandas_input_fn"]
