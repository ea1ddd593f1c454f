"""Legacy `canned.metric_keys.MetricKeys` and `canned.prediction_keys.PredictionKeys`.

Example:
    >>> MetricKeys.AUC_AT_CLASS % 2
    'auc/class2'
"""

from __future__ import annotations


class MetricKeys:
    """Metric names of the canned heads (the legacy `metric_keys.MetricKeys`)."""

    LOSS, LOSS_MEAN, LOSS_REGULARIZATION = "loss", "average_loss", "regularization_loss"
    ACCURACY, PRECISION, RECALL = "accuracy", "precision", "recall"
    ACCURACY_BASELINE, AUC, AUC_PR = "accuracy_baseline", "auc", "auc_precision_recall"
    LABEL_MEAN, PREDICTION_MEAN = "label/mean", "prediction/mean"
    ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g"
    PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g"
    RECALL_AT_THRESHOLD = "recall/positive_threshold_%g"
    PRECISION_AT_RECALL = "precision_at_recall_%g"
    RECALL_AT_PRECISION = "recall_at_precision_%g"
    SENSITIVITY_AT_SPECIFICITY = "sensitivity_at_specificity_%g"
    SPECIFICITY_AT_SENSITIVITY = "specificity_at_sensitivity_%g"
    PROBABILITY_MEAN_AT_CLASS = "probability_mean/class%d"
    AUC_AT_CLASS = "auc/class%d"
    AUC_PR_AT_CLASS = "auc_precision_recall/class%d"
    PROBABILITY_MEAN_AT_NAME = "probability_mean/%s"
    AUC_AT_NAME = "auc/%s"
    AUC_PR_AT_NAME = "auc_precision_recall/%s"


class PredictionKeys:
    """Prediction keys of the canned heads (the legacy `prediction_keys.PredictionKeys`)."""

    CLASSES, CLASS_IDS = "classes", "class_ids"
    ALL_CLASSES, ALL_CLASS_IDS = "all_classes", "all_class_ids"
    LOGISTIC, LOGITS = "logistic", "logits"
    PREDICTIONS, PROBABILITIES = "predictions", "probabilities"
    TOP_K = "top_k"
