"""workbench: the core pinn and pino share (problems, models, training runs, results, plots, CLI).

Layering: frame -> workbench -> pinn, pino. Nothing here imports pinn or pino.
"""
