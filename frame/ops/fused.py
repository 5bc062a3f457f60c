"""`fused_elementwise_internal`, the product of the `fuse` pipeline stage.

Placeholder: the pipeline issue registers it (kernel, shape rule; deliberately no gradient).
"""
