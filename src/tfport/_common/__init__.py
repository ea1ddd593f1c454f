"""Helpers every tfport package shares: errors, atomic output, the TensorFlow environment."""
