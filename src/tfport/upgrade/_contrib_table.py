"""Where each `tf.contrib` symbol (and `tf.flags`) goes on TF 2.21, or the manual fix.

Built from the usage counts in ``tests/upgrade/data/contrib_usage.json`` (public
TF1 code): every symbol there either has a target here that keeps TF1's
behaviour and checkpoint variable names (`tf.compat.v1`, `tf.data`, `tf.nest`,
`tfport.estimator`, or :mod:`tfport.compat.contrib`), or a :data:`MANUAL` entry
that says exactly what to do by hand.

Example:
    >>> lookup("tf.contrib.layers.layer_norm")
    'tfport.compat.contrib.layers.layer_norm'
    >>> lookup("tf.flags.DEFINE_string")
    'tf.compat.v1.flags.DEFINE_string'
"""

from __future__ import annotations

C = "tfport.compat.contrib"
_LAYERS = (
    "apply_regularization avg_pool2d batch_norm conv2d convolution2d dropout embed_sequence "
    "flatten fully_connected l1_l2_regularizer l1_regularizer l2_regularizer layer_norm linear "
    "max_pool2d one_hot_encoding sum_regularizer variance_scaling_initializer "
    "xavier_initializer xavier_initializer_conv2d"
).split()
_FRAMEWORK = (
    "add_arg_scope arg_scope assign_from_checkpoint_fn filter_variables get_local_variables "
    "get_model_variables get_name_scope get_trainable_variables get_unique_variable "
    "get_variables get_variables_by_name get_variables_to_restore model_variable variable"
).split()
_METRICS = (
    "accuracy streaming_accuracy streaming_auc streaming_mean streaming_mean_absolute_error "
    "streaming_mean_iou streaming_mean_squared_error streaming_pearson_correlation "
    "streaming_precision streaming_recall streaming_root_mean_squared_error"
).split()
_LOOKUP = (
    "index_table_from_file index_table_from_tensor index_to_string "
    "index_to_string_table_from_file index_to_string_table_from_tensor"
).split()
_RNN_CELLS = (
    "BasicLSTMCell BasicRNNCell DeviceWrapper DropoutWrapper GRUCell LSTMCell LSTMStateTuple "
    "MultiRNNCell RNNCell ResidualWrapper"
).split()
_RNN_FUNCTIONS = "static_bidirectional_rnn static_rnn static_state_saving_rnn".split()
_DATA_EXPERIMENTAL = (
    "AUTOTUNE Counter CsvDataset Reducer bucket_by_sequence_length choose_from_datasets "
    "dense_to_sparse_batch enumerate_dataset get_single_element group_by_reducer "
    "group_by_window ignore_errors make_batched_features_dataset make_csv_dataset "
    "map_and_batch parallel_interleave parse_example_dataset prefetch_to_device "
    "rejection_resample sample_from_datasets scan shuffle_and_repeat unbatch unique"
).split()
_SIGNAL = (
    "frame hann_window hamming_window inverse_stft linear_to_mel_weight_matrix "
    "mfccs_from_log_mel_spectrograms overlap_and_add stft"
).split()

# Exact symbols; a longer name (`...ModeKeys.TRAIN`) keeps its trailing attributes.
SYMBOLS: dict[str, str] = {
    **{f"tf.contrib.layers.{n}": f"{C}.layers.{n}" for n in _LAYERS},
    **{f"tf.contrib.slim.{n}": f"{C}.layers.{n}" for n in _LAYERS},
    **{f"tf.contrib.framework.{n}": f"{C}.framework.{n}" for n in _FRAMEWORK},
    **{f"tf.contrib.slim.{n}": f"{C}.framework.{n}" for n in _FRAMEWORK},
    **{f"tf.contrib.metrics.{n}": f"{C}.metrics.{n}" for n in _METRICS},
    **{f"tf.contrib.lookup.{n}": f"{C}.lookup.{n}" for n in _LOOKUP},
    **{f"tf.contrib.rnn.{n}": f"tf.compat.v1.nn.rnn_cell.{n}" for n in _RNN_CELLS},
    **{f"tf.contrib.rnn.{n}": f"tf.compat.v1.nn.{n}" for n in _RNN_FUNCTIONS},
    **{f"tf.contrib.data.{n}": f"tf.data.experimental.{n}" for n in _DATA_EXPERIMENTAL},
    **{f"tf.contrib.signal.{n}": f"tf.signal.{n}" for n in _SIGNAL},
    "tf.contrib.framework.get_or_create_global_step": (
        "tf.compat.v1.train.get_or_create_global_step"
    ),
    "tf.contrib.framework.get_global_step": "tf.compat.v1.train.get_global_step",
    "tf.contrib.framework.init_from_checkpoint": "tf.compat.v1.train.init_from_checkpoint",
    "tf.contrib.framework.list_variables": "tf.train.list_variables",
    "tf.contrib.framework.load_variable": "tf.train.load_variable",
    "tf.contrib.framework.load_checkpoint": "tf.train.load_checkpoint",
    "tf.contrib.framework.is_tensor": "tf.is_tensor",
    "tf.contrib.framework.sort": "tf.sort",
    "tf.contrib.framework.argsort": "tf.argsort",
    "tf.contrib.training.HParams": f"{C}.training.HParams",
    "tf.contrib.training.checkpoints_iterator": "tf.train.checkpoints_iterator",
    "tf.contrib.metrics.confusion_matrix": "tf.math.confusion_matrix",
    "tf.contrib.data.batch_and_drop_remainder": f"{C}.data.batch_and_drop_remainder",
    "tf.contrib.data.padded_batch_and_drop_remainder": (
        f"{C}.data.padded_batch_and_drop_remainder"
    ),
    "tf.contrib.data.Dataset": "tf.data.Dataset",
    "tf.contrib.data.TFRecordDataset": "tf.data.TFRecordDataset",
    "tf.contrib.data.TextLineDataset": "tf.data.TextLineDataset",
    "tf.contrib.data.FixedLengthRecordDataset": "tf.data.FixedLengthRecordDataset",
    "tf.contrib.data.Iterator": "tf.compat.v1.data.Iterator",
    "tf.contrib.lookup.HashTable": "tf.compat.v1.lookup.StaticHashTable",
    "tf.contrib.lookup.KeyValueTensorInitializer": "tf.lookup.KeyValueTensorInitializer",
    "tf.contrib.lookup.TextFileInitializer": "tf.lookup.TextFileInitializer",
    "tf.contrib.lookup.TextFileIndex": "tf.lookup.TextFileIndex",
    "tf.contrib.seq2seq.sequence_loss": f"{C}.seq2seq.sequence_loss",
    "tf.contrib.distribute.MirroredStrategy": f"{C}.distribute.MirroredStrategy",
    "tf.contrib.distribute.OneDeviceStrategy": "tf.compat.v1.distribute.OneDeviceStrategy",
    "tf.contrib.learn.ModeKeys.INFER": "tfport.estimator.ModeKeys.PREDICT",
    "tf.contrib.learn.ModeKeys": "tfport.estimator.ModeKeys",
    "tf.contrib.learn.RunConfig": "tfport.estimator.RunConfig",
    "tf.contrib.util.constant_value": "tf.get_static_value",
    "tf.contrib.util.make_tensor_proto": "tf.compat.v1.make_tensor_proto",
    "tf.contrib.util.make_ndarray": "tf.make_ndarray",
    "tf.contrib.cluster_resolver.TPUClusterResolver": (
        "tf.distribute.cluster_resolver.TPUClusterResolver"
    ),
}
# Modules referenced as a whole (``layers = tf.contrib.layers``); matched exactly only.
MODULES: dict[str, str] = {
    "tf.contrib.layers": f"{C}.layers",
    "tf.contrib.framework": f"{C}.framework",
    "tf.contrib.metrics": f"{C}.metrics",
    "tf.contrib.lookup": f"{C}.lookup",
    "tf.contrib.framework.nest": "tf.nest",
    "tf.flags": "tf.compat.v1.flags",
    "tf.app.flags": "tf.compat.v1.flags",
}
# Whole trees: everything below keeps its name.
PREFIXES: dict[str, str] = {
    "tf.flags": "tf.compat.v1.flags",
    "tf.app.flags": "tf.compat.v1.flags",
    "tf.contrib.framework.nest": "tf.nest",
}

_ADDONS = "TensorFlow Addons, the suggested home, is end of life (2024)"
_KEEP_SLOTS = "keeping its slot names so that checkpoints load"
# tf.contrib.opt's optimizers: none has a TF 2.21 or tfport equivalent that keeps TF 1.x's
# numbers and slots, so each is manual work, with what to write instead.
_OPT: dict[str, str] = {
    "tf.contrib.opt.LARSOptimizer": "LARSOptimizer is gone with tf.contrib.opt; write it "
    "as a tf.compat.v1.train.MomentumOptimizer subclass whose gradients are scaled by the "
    f"trust ratio eeta * ||w|| / (||g|| + weight_decay * ||w||), {_KEEP_SLOTS} ('Momentum')",
    "tf.contrib.opt.AdamWOptimizer": "AdamWOptimizer is gone with tf.contrib.opt; use "
    "tf.compat.v1.train.AdamOptimizer and subtract weight_decay * var from each variable "
    f"in the same step (decoupled weight decay), {_KEEP_SLOTS} ('Adam', 'Adam_1')",
    "tf.contrib.opt.MomentumWOptimizer": "MomentumWOptimizer is gone with tf.contrib.opt; "
    "use tf.compat.v1.train.MomentumOptimizer and subtract weight_decay * var from each "
    f"variable in the same step, {_KEEP_SLOTS} ('Momentum')",
    "tf.contrib.opt.extend_with_decoupled_weight_decay": "extend_with_decoupled_weight_decay "
    "is gone with tf.contrib.opt; subtract weight_decay * var from each variable after the "
    "wrapped optimizer's update",
    "tf.contrib.opt.LazyAdamOptimizer": "LazyAdamOptimizer is gone with tf.contrib.opt; "
    "tf.compat.v1.train.AdamOptimizer keeps its slots ('Adam', 'Adam_1') but updates every "
    "row of a sparse gradient's variable, so numbers differ for rows missing from a batch",
    "tf.contrib.opt.MovingAverageOptimizer": "MovingAverageOptimizer is gone with "
    "tf.contrib.opt; apply tf.compat.v1.train.ExponentialMovingAverage to the trainable "
    "variables after the train op and restore the averages for evaluation",
    "tf.contrib.opt.NadamOptimizer": "NadamOptimizer is gone with tf.contrib.opt; port "
    "its update as a tf.compat.v1.train.AdamOptimizer subclass with the Nesterov term, "
    f"{_KEEP_SLOTS} ('Adam', 'Adam_1')",
}
# Longest matching prefix wins. Each message is the manual fix.
MANUAL: dict[str, str] = {
    "tf.contrib": "tf.contrib was removed in TF 2.0 and tfport has no mapping for this name; "
    "rewrite it with tf.compat.v1 / tf APIs",
    "tf.contrib.slim": "tf.contrib.slim is gone: `pip install tf-slim` and replace "
    "`tf.contrib.slim` with `import tf_slim as slim` (same variable names)",
    "tf.contrib.layers.optimize_loss": "replace with `optimizer.minimize(loss, global_step)` "
    "(clip with tf.clip_by_global_norm first if clip_gradients was set); its summaries "
    "and the OptimizeLoss name scope go away, variables keep their names",
    "tf.contrib.layers.real_valued_column": "use tf.feature_column.numeric_column(key, shape)",
    "tf.contrib.layers.sparse_column_with_hash_bucket": "use "
    "tf.feature_column.categorical_column_with_hash_bucket(key, hash_bucket_size)",
    "tf.contrib.layers.embedding_column": "use tf.feature_column.embedding_column",
    "tf.contrib.layers.instance_norm": "normalize with tf.nn.moments over the spatial "
    "axes and create beta/gamma variables named "
    "'InstanceNorm/beta' and 'InstanceNorm/gamma' to keep checkpoints",
    "tf.contrib.layers.group_norm": "write group normalization with tf.nn.moments over "
    "reshaped groups; create 'GroupNorm/beta' and 'GroupNorm/gamma' to keep checkpoints",
    "tf.contrib.learn": "tf.contrib.learn (Experiment, learn.Estimator, monitors) is gone: "
    "use tf.estimator.Estimator with EstimatorSpec and tf.estimator.train_and_evaluate "
    "(provided by tfport)",
    "tf.contrib.seq2seq": f"tf.contrib.seq2seq decoders and attention have no TF 2.21 "
    f"equivalent ({_ADDONS}); port the decoder loop to tf.compat.v1.nn.dynamic_rnn or "
    f"tf.while_loop",
    "tf.contrib.crf": f"tf.contrib.crf is gone ({_ADDONS}); implement the CRF forward "
    "algorithm with tf.scan, keeping the 'transitions' variable name",
    "tf.contrib.opt.ScipyOptimizerInterface": "call scipy.optimize.minimize yourself with "
    "a function that runs the loss and tf.gradients in the session",
    "tf.contrib.opt": f"tf.contrib.opt optimizers are gone ({_ADDONS}); subclass "
    "tf.compat.v1.train.Optimizer or use a tf.compat.v1.train optimizer",
    **_OPT,
    "tf.contrib.cudnn_rnn": "tf.contrib.cudnn_rnn layers are gone; use "
    "tf.compat.v1.nn.rnn_cell.LSTMCell / GRUCell (checkpoints need converting from the "
    "opaque cuDNN parameters)",
    "tf.contrib.rnn": "this tf.contrib.rnn cell has no TF 2.21 equivalent; write it as a "
    "tf.compat.v1.nn.rnn_cell.RNNCell subclass keeping the variable names",
    "tf.contrib.summary": "use tf.compat.v1.summary (graph mode) or tf.summary (eager)",
    "tf.contrib.distributions": "use TensorFlow Probability (tfp.distributions)",
    "tf.contrib.image": "use tf.image or tf.raw_ops.ImageProjectiveTransformV3",
    "tf.contrib.training": "this tf.contrib.training name is gone; use tf.data "
    "(bucket_by_sequence_length -> tf.data.experimental.bucket_by_sequence_length)",
    "tf.contrib.tpu": "this tf.contrib.tpu name has no tfport equivalent; use "
    "tfport.estimator.tpu (TPUEstimator, TPUEstimatorSpec, CrossShardOptimizer)",
    "tf.contrib.memory_stats": "use tf.config.experimental.get_memory_info('GPU:0')",
    "tf.contrib.distribute": "use tf.compat.v1.distribute strategies, or "
    "`tfport run --strategy` / tfport.to_accelerator",
    "tf.contrib.keras": "use tf.keras",
}


def _match(table: dict[str, str], canonical: str) -> tuple[str, str] | None:
    parts = canonical.split(".")
    for size in range(len(parts), 0, -1):
        key = ".".join(parts[:size])
        if key in table:
            return key, table[key]
    return None


def lookup(canonical: str) -> str | None:
    """The TF 2.21 spelling of a canonical name (``tf.contrib.x.y``), or None.

    Example:
        >>> lookup("tf.contrib.learn.ModeKeys.TRAIN")
        'tfport.estimator.ModeKeys.TRAIN'
        >>> lookup("tf.contrib.layers.optimize_loss") is None
        True
    """
    if canonical in MODULES:
        return MODULES[canonical]
    for table in (SYMBOLS, PREFIXES):
        found = _match(table, canonical)
        if found is not None:
            key, target = found
            return target + canonical[len(key) :]
    return None


def manual_fix(canonical: str) -> str:
    """The manual fix for a name with no mapping.

    Example:
        >>> manual_fix("tf.contrib.slim.nets").startswith("tf.contrib.slim is gone")
        True
    """
    if canonical.startswith("tf.contrib.opt."):  # also through `...opt.python.training.x`
        own = _OPT.get("tf.contrib.opt." + canonical.rsplit(".", 1)[1])
        if own is not None:
            return own
    found = _match(MANUAL, canonical)
    return found[1] if found else MANUAL["tf.contrib"]
