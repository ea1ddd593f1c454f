"""A library that logs through its own logger and the `tensorflow` logger, both propagating
to a root logger the script configures at INFO before it imports TensorFlow."""

import logging
import sys

logging.basicConfig(
    level=logging.INFO, stream=sys.stdout, format="%(name)s %(levelname)s %(message)s"
)
import tensorflow as tf  # noqa: E402

logging.getLogger("ranklib").info("global step 1: lr=0.1, loss=0.5")
tf.compat.v1.logging.info("global step 2: lr=0.1, loss=0.4")
tf.compat.v1.logging.debug("not shown: DEBUG is below the root's INFO")
tf.compat.v1.logging.warning("a warning")
logger = logging.getLogger("tensorflow")
print("tensorflow logger:", logger.level, logger.propagate, len(logger.handlers))
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.WARN)
tf.compat.v1.logging.info("not shown: the script set WARN")
logging.getLogger("ranklib").info("global step 3: lr=0.1, loss=0.3")
