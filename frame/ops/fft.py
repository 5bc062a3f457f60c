"""FFT ops `rfft`/`irfft` with packed (re, im) spectra.

Placeholder: the PINO issue registers them with their adjoint gradient rules.
"""
