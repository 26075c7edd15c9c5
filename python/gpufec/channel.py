"""Channels, with the command line's frames: frame f of seed s carries the noise (the events)
that `gpufec channel awgn|bsid --seed s` gives the f-th frame of its input."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _arrays, _core

__all__ = ["awgn", "bsid", "sigma_from_ebn0"]


def sigma_from_ebn0(ebn0: float, rate: float = 1.0) -> float:
    """The noise's standard deviation for Eb/N0 (dB) at code rate `rate` (BPSK)."""
    return _core.channel.sigma_from_ebn0(float(ebn0), float(rate))


def awgn(bits, *, ebn0: Optional[float] = None, esn0: Optional[float] = None, rate: float = 1.0,
         seed: int = 0, first_frame: int = 0, values: str = "llr") -> np.ndarray:
    """BPSK over AWGN: bits [..., n] (0/1) -> float32 [..., n], LLRs 2y/sigma^2 (positive means
    bit 0) or, values="samples", y = 1 - 2b + noise. Give ebn0 (dB, with the code's rate) or esn0
    (dB). Frames are the leading axes flattened, numbered from first_frame."""
    if (ebn0 is None) == (esn0 is None):
        raise ValueError("give ebn0 (with rate) or esn0, not both")
    if values not in ("llr", "samples"):
        raise ValueError(f"values must be 'llr' or 'samples' (values = {values!r})")
    a = _arrays.host_array(bits, "awgn")
    if a.ndim == 0:
        raise ValueError("awgn: bits need at least one axis")
    n = a.shape[-1]
    flat, lead = _arrays.bits(a, n, "awgn")
    sigma = (_core.channel.sigma_from_ebn0(float(ebn0), float(rate)) if ebn0 is not None
             else _core.channel.sigma_from_esn0(float(esn0)))
    out = np.empty(flat.shape, dtype=np.float32)
    _core.channel.awgn(flat, out, sigma, int(seed), int(first_frame), n, values == "llr")
    return out.reshape(*lead, n)


def bsid(bits, *, pi: float, pd: Optional[float] = None, ps: float = 0.0, seed: int = 0,
         first_frame: int = 0) -> list:
    """The binary substitution-insertion-deletion channel (docs/sync.md): bits [..., n] (0/1) ->
    a list of uint8 arrays, one a frame (the leading axes flattened, numbered from first_frame),
    of the lengths the insertions and deletions give. pd defaults to pi."""
    a = _arrays.host_array(bits, "bsid")
    if a.ndim == 0:
        raise ValueError("bsid: bits need at least one axis")
    n = a.shape[-1]
    flat, _ = _arrays.bits(a, n, "bsid")
    return _core.sync.bsid(flat, n, float(pi), float(pi if pd is None else pd), float(ps),
                           int(seed), int(first_frame))
