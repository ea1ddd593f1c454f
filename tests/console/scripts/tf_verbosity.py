"""A script that logs through `tf.compat.v1.logging` and sets its verbosity (no logging setup)."""

import logging

import tensorflow as tf

logger = logging.getLogger("tensorflow")
print("tensorflow logger:", logger.level, logger.propagate, len(logger.handlers))
tf.compat.v1.logging.info("not shown: the default level is WARNING")
tf.compat.v1.logging.warning("a warning before set_verbosity")
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
tf.compat.v1.logging.info("an info line after set_verbosity(INFO)")
