"""The exception hierarchy (SPEC §10).

Every error frame raises for bad input is a `FrameError`; messages name the op or input
involved and the shapes/dtypes seen, so a user never has to read a numpy traceback.
"""
from __future__ import annotations

import numpy as _np


class FrameError(Exception):
    """Base class of every error frame raises on purpose."""


class VerifyError(FrameError):
    """A graph breaks one of the IR rules V1..V7; the message starts with the rule id."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        super().__init__(f"{rule}: {message}")


class ShapeError(FrameError, ValueError):
    """An op was given operands whose shapes, dtypes or attributes it cannot accept."""


class GradientError(FrameError):
    """Reverse-mode differentiation cannot proceed (non-scalar loss, op without gradient, bad indices)."""


class TraceError(FrameError, TypeError):
    """The tracer met something it cannot turn into graph IR (e.g. Python control flow on a traced value)."""


class InputError(FrameError, ValueError):
    """An executable was called with the wrong number, shapes or dtypes of inputs."""

    def __init__(self, message: str, position: int | None = None, expected=None, actual=None):
        self.position, self.expected, self.actual = position, expected, actual
        super().__init__(message)


class OracleMismatch(FrameError):
    """frame's derivatives disagree with the JAX oracle beyond tolerance."""


class TrainingError(FrameError):
    """Training hit a non-finite loss or gradient, or diverged; parameters keep their last good values."""


class CheckpointError(FrameError):
    """A checkpoint file is missing, damaged, not frame's, or names a type the caller did not allow.

    The message names the file and what is wrong with it. Loading a checkpoint never imports or
    runs anything named in the file.
    """


class LinAlgError(FrameError, _np.linalg.LinAlgError):
    """numpy.linalg's LinAlgError (a singular matrix, one not positive definite, no convergence) as a
    FrameError naming the op: `except numpy.linalg.LinAlgError` and `except FrameError` both catch it."""
