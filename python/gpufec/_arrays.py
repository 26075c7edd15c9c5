"""numpy arrays in and out, batch-first: any leading shape, the last axis a frame."""

from __future__ import annotations

from typing import Tuple

import numpy as np


def frames(x, n: int, what: str) -> Tuple[np.ndarray, tuple]:
    """x as an array whose last axis holds `n` values, and its leading shape."""
    a = np.asarray(x)
    if a.ndim == 0 or a.shape[-1] != n:
        raise ValueError(f"{what}: the last axis must hold {n} values a frame (shape {a.shape})")
    return a, a.shape[:-1]


def bits(x, n: int, what: str) -> Tuple[np.ndarray, tuple]:
    """0/1 values (any integer or bool dtype) as C-contiguous uint8 [frames, n]: other values
    raise ValueError before any cast could wrap them."""
    a, lead = frames(x, n, what)
    if a.dtype != np.uint8:
        if not (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
            raise TypeError(f"{what}: bits must be integers or bools (dtype {a.dtype})")
        if a.size and (a.min() < 0 or a.max() > 1):
            raise ValueError(f"{what}: bits must be 0 or 1 (values {a.min()} .. {a.max()})")
    return np.ascontiguousarray(a, dtype=np.uint8).reshape(-1, n), lead


def soft(x, n: int, what: str) -> Tuple[np.ndarray, tuple]:
    """LLRs as C-contiguous [frames, n] of float32 (float64 and float16 are converted: one copy)
    or int8 (as they are)."""
    a, lead = frames(x, n, what)
    if a.dtype == np.int8:
        return np.ascontiguousarray(a).reshape(-1, n), lead
    if not np.issubdtype(a.dtype, np.floating):
        raise TypeError(f"{what}: LLRs must be float32, float64 or int8 (dtype {a.dtype}); hard "
                        "decisions go to .hard()")
    return np.ascontiguousarray(a, dtype=np.float32).reshape(-1, n), lead
