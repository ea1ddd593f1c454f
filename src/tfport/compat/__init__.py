"""Stand-ins for TensorFlow 1.x APIs that TensorFlow 2.21 no longer ships.

:mod:`tfport.compat.contrib` provides the `tf.contrib` symbols that public TF1
code uses most and that have no equivalent in TF 2.21, with TF1's behaviour and
checkpoint variable names. `tfport upgrade` rewrites code to use them.

Example:
    >>> import tfport.compat.contrib
    >>> tfport.compat.contrib.training.HParams(lr=0.1).lr
    0.1
"""
