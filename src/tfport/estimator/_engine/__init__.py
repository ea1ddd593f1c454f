"""The graph engine behind `tfport.estimator`: sessions, hooks, loops, export."""
