"""numpy arrays in and out (other host arrays through DLPack), batch-first: any leading shape,
the last axis a frame."""

from __future__ import annotations

from typing import Tuple

import numpy as np


# DLPack's device type of host memory (kDLCPU).
_DLPACK_CPU = 1


def host_array(x, what: str) -> np.ndarray:
    """x as a numpy array: numpy arrays as they are, other host arrays (PyTorch CPU tensors, JAX
    and CuPy host arrays) through DLPack without a copy, anything else through np.asarray. A
    device array (CUDA memory) raises TypeError: the decoders take host memory for now."""
    if isinstance(x, np.ndarray):
        return x
    on_device = hasattr(x, "__cuda_array_interface__") or (
        hasattr(x, "__dlpack_device__") and int(x.__dlpack_device__()[0]) != _DLPACK_CPU)
    if on_device:
        raise TypeError(f"{what}: device arrays are not taken yet; copy to the host first (for a "
                        "PyTorch tensor, .cpu())")
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return np.asarray(x)


def frames(x, n: int, what: str) -> Tuple[np.ndarray, tuple]:
    """x as an array whose last axis holds `n` values, and its leading shape."""
    a = host_array(x, what)
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
