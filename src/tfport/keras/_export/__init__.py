"""Canned estimators as Keras 3 models with the same predictions (`estimator_to_keras`).

Example:
    >>> from tfport.keras._export import estimator_to_keras
    >>> model = estimator_to_keras(est)  # doctest: +SKIP
"""

from __future__ import annotations

from tfport.keras._export._export import estimator_to_keras, save_keras
from tfport.keras._export._train_step import LossHook, one_step

__all__ = ["estimator_to_keras", "one_step", "save_keras", "LossHook"]
