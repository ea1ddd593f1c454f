"""The legacy time-series estimators (`tensorflow_estimator...canned.timeseries`).

Never public `tf.estimator` API, but real code imported them from the private path:
`TimeSeriesRegressor` over an `ARModel`, `LSTMAutoRegressor`, their state managers,
feature keys, heads and the `saved_model_utils` helpers that continue a series from an
exported model. The submodules keep the legacy names (`ar_model`, `estimators`,
`feature_keys`, `head`, `math_utils`, `model`, `model_utils`, `saved_model_utils`,
`state_management`); `install()` maps the legacy paths to them.
"""
