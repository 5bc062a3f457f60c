"""Convolution, pooling and resampling ops (issue 18, seed 000's tier-2 list). Filled by their blocks."""
