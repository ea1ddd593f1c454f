"""Canned estimators (DNN, Linear, DNNLinearCombined, Baseline) with legacy graphs and names."""
