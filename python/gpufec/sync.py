"""TVB codes over insertion/deletion/substitution channels: the MAP decoder on the CPU and CUDA.

    code = gpufec.sync.Code(q=32, n=10, N=210, codebook="random", seed=1)
    frames = gpufec.sync.Encoder(code)(messages)           # [..., 210] symbols -> [..., 2100] bits
    received = gpufec.channel.bsid(frames, pi=1e-3, pd=1e-3, seed=1)   # a list: lengths differ
    out = gpufec.sync.Decoder(code, pi=1e-3, backend="cuda")(received)
    out.decisions, out.app, out.decoded, out.messages
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np

from . import _arrays, _core

__all__ = ["Code", "Encoder", "Decoder", "Decoded"]


class Code:
    """A TVB code as `gpufec ... sync` takes it: q message symbols, codewords of n bits, N
    positions; codebook "random" (a fresh injective codebook per position from `seed`, the CLI's
    --codebook-seed) or a codebook file's path (which gives q and n, and N where it fixes it: a
    value given that contradicts it is refused); marker="random" adds a random marker. Raises
    ValueError naming the value."""

    def __init__(self, q: Optional[int] = None, n: Optional[int] = None, N: Optional[int] = None,
                 codebook: str = "random", seed: int = 1, marker: str = "none"):
        if marker not in ("none", "random"):
            raise ValueError(f"marker must be 'none' or 'random' (marker = {marker!r})")
        self._code = _core.sync.Code(int(q if q is not None else 32),
                                     int(n if n is not None else 10),
                                     int(N if N is not None else 210), codebook, int(seed),
                                     marker == "random", q is not None, n is not None,
                                     N is not None)

    q = property(lambda self: self._code.q)
    n = property(lambda self: self._code.n)
    N = property(lambda self: self._code.N)
    tau = property(lambda self: self._code.tau, doc="bits a frame sends: n N")

    def __repr__(self) -> str:
        return f"gpufec.sync.Code(q={self.q}, n={self.n}, N={self.N})"


class Encoder:
    """messages [..., N] (symbols in [0, q), any integer dtype) -> uint8 bits [..., n N]."""

    def __init__(self, code: Code):
        self.code = code

    def __call__(self, messages) -> np.ndarray:
        a, lead = _arrays.frames(messages, self.code.N, "encode")
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"encode: message symbols must be integers (dtype {a.dtype})")
        if a.size and (a.min() < 0 or a.max() >= self.code.q):
            raise ValueError(f"encode: symbols must lie in [0, {self.code.q}) "
                             f"(values {a.min()} .. {a.max()})")
        flat = np.ascontiguousarray(a, dtype=np.uint32).reshape(-1, self.code.N)
        out = np.empty((flat.shape[0], self.code.tau), dtype=np.uint8)
        _core.sync.encode(self.code._code, flat, out)
        return out.reshape(*lead, self.code.tau)


@dataclass
class Decoded:
    """A batch's decoding: decisions [frames, N] (uint32, the most probable symbol), app
    [frames, N, q] (float64 posteriors), decoded [frames] (bool: False where the decoder could not
    decode the frame, `messages` saying why), drift [frames, N + 1, M] (the drift posterior, with
    drift_posterior=True; else None)."""

    decisions: np.ndarray
    app: np.ndarray
    decoded: np.ndarray
    messages: List[str]
    drift: Optional[np.ndarray] = None


class Decoder:
    """The MAP decoder planned once for BSID(pi, pd, ps) (pd defaults to pi): received sequences
    (a list of 1-D bit arrays of any lengths, or a 2-D array of equal ones) -> Decoded. Options are
    `gpufec decode sync`'s: Pr, storage ("auto", "global", "compact", "local"), lattice
    ("corridor", "full"), lattice_real ("float", "double"), end_known, memory_budget (MiB),
    drift_posterior; backend "cpu", "cuda" or "auto"; max_batch frames a plan call takes (larger
    inputs are decoded in pieces; default 1024)."""

    def __init__(self, code: Code, pi: float, pd: Optional[float] = None, ps: float = 0.0,
                 Pr: float = 1e-10, storage: str = "auto", lattice: str = "corridor",
                 lattice_real: str = "float", end_known: bool = True, memory_budget: float = 0.0,
                 drift_posterior: bool = False, backend: str = "auto",
                 max_batch: Optional[int] = None):
        self.code = code
        options = _core.sync.options(float(Pr), storage, lattice, lattice_real, bool(end_known),
                                     float(memory_budget), bool(drift_posterior))
        self._plan = _core.sync.Decoder(code._code, float(pi), float(pi if pd is None else pd),
                                        float(ps), options, backend, int(max_batch or 1024))
        self._drift = bool(drift_posterior)
        self.backend = self._plan.backend

    def describe(self) -> str:
        return self._plan.describe()

    def __call__(self, received, priors=None) -> Decoded:
        """Decodes `received`; `priors` [frames, N, q] (float64; each position's q probabilities,
        e.g. an outer decoder's) replaces the uniform 1/q prior of every symbol."""
        frames = _ragged(received)
        count, N, q = len(frames), self.code.N, self.code.q
        if priors is None:
            prior = np.empty(0, dtype=np.float64)
        else:
            prior = np.ascontiguousarray(_arrays.host_array(priors, "decode: priors"),
                                         dtype=np.float64)
            if prior.shape != (count, N, q):
                raise ValueError(f"decode: priors must have shape ({count}, {N}, {q}) "
                                 f"(shape {prior.shape})")
        decisions = np.empty((count, N), dtype=np.uint32)
        app = np.empty((count, N, q), dtype=np.float64)
        decoded = np.empty(count, dtype=np.uint8)
        M = self._plan.drift_states
        drift = np.empty((count, N + 1, M) if self._drift else (0,), dtype=np.float64)
        messages: List[str] = []
        step = self._plan.max_batch
        for begin in range(0, count, step):
            piece = frames[begin:begin + step]
            data = np.concatenate(piece) if piece else np.empty(0, np.uint8)
            offsets = np.zeros(len(piece) + 1, dtype=np.uint64)
            np.cumsum([len(p) for p in piece], out=offsets[1:])
            end = begin + len(piece)
            messages += self._plan.decode(data, offsets, prior[begin:end] if prior.size else prior,
                                          decisions[begin:end], app[begin:end],
                                          decoded[begin:end],
                                          drift[begin:end] if self._drift else drift)
        return Decoded(decisions, app, decoded.astype(bool), messages,
                       drift if self._drift else None)


def _ragged(received) -> List[np.ndarray]:
    if isinstance(received, np.ndarray) and received.ndim == 2:
        rows: Sequence = list(received)
    elif isinstance(received, np.ndarray) and received.ndim == 1 and received.dtype != object:
        rows = [received]
    else:
        rows = list(received)
    out = []
    for f, r in enumerate(rows):
        a = _arrays.host_array(r, f"decode: frame {f}")
        if a.ndim != 1:
            raise ValueError(f"decode: frame {f} is not a sequence of bits (shape {a.shape})")
        bits, _ = _arrays.bits(a, a.shape[0], f"decode: frame {f}")
        out.append(bits.reshape(-1))
    return out
