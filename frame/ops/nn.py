"""Neural-network composite ops (softplus, gelu, softmax, log_softmax, layer_norm).

Placeholder: the pipeline issue registers these with decompositions and direct gradient rules.
"""
