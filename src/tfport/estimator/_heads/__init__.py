"""Private implementation of tfport.estimator."""
