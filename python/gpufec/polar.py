"""Polar codes: encoders, SC and BP decoders on the CPU, BP on CUDA.

    code = gpufec.polar.Code(N=1024, K=512, construct="5g")
    enc = gpufec.polar.Encoder(code)
    dec = gpufec.polar.Decoder(code, decoder="bp", update="minsum", early_stop=True,
                               backend="cuda")
    coded = enc(bits)                            # [..., 512] -> [..., 1024]
    llr = gpufec.channel.awgn(coded, ebn0=3, rate=code.rate, seed=1)
    decided = dec(llr)                           # [..., 1024] -> [..., 512]
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import _arrays, _core

__all__ = ["Code", "Encoder", "Decoder"]


class Code:
    """A polar code as `gpufec ... polar` takes it: length N (a power of two), K information bits
    (default N/2), the construction ("5g", "ga:SNR", "bhatt:SNR" or a frozen-set file's path) or an
    explicit `frozen` set of positions, systematic or not. Raises ValueError naming the value."""

    def __init__(self, N: int, K: Optional[int] = None, construct: str = "5g",
                 systematic: bool = False, frozen: Optional[Sequence[int]] = None):
        positions = [] if frozen is None else [int(j) for j in frozen]
        if frozen is not None and K is not None and int(K) != int(N) - len(positions):
            raise ValueError(f"K={K} with {len(positions)} frozen positions of N={N}: K must be "
                             f"N minus the frozen positions ({int(N) - len(positions)})")
        self._code = _core.polar.Code(int(N), int(K if K is not None else int(N) // 2),
                                      construct if frozen is None else "", bool(systematic),
                                      positions)

    N = property(lambda self: self._code.N)
    K = property(lambda self: self._code.K)
    systematic = property(lambda self: self._code.systematic)

    @property
    def rate(self) -> float:
        return self.K / self.N

    @property
    def info_positions(self) -> np.ndarray:
        return np.array(self._code.info_positions, dtype=np.uint32)

    @property
    def frozen_positions(self) -> np.ndarray:
        return np.array(self._code.frozen_positions, dtype=np.uint32)

    def describe(self) -> str:
        return self._code.describe()

    def __repr__(self) -> str:
        return f"gpufec.polar.Code(N={self.N}, K={self.K}{', systematic' * self.systematic})"


class Encoder:
    """bits [..., K] (0/1, any integer or bool dtype) -> uint8 codewords [..., N]."""

    def __init__(self, code: Code):
        self.code = code

    def __call__(self, bits) -> np.ndarray:
        flat, lead = _arrays.bits(bits, self.code.K, "encode")
        out = np.empty((flat.shape[0], self.code.N), dtype=np.uint8)
        _core.polar.encode(self.code._code, flat, out)
        return out.reshape(*lead, self.code.N)


class Decoder:
    """An SC or BP decoder planned once: LLRs [..., N] (float32; float64 converted; positive means
    bit 0) -> uint8 bits [..., K], or with output="info-llr" / "codeword-llr" float32 soft
    outputs [..., K] / [..., N]. The options are `gpufec decode polar`'s: decoder "sc" or "bp";
    update "sp", "lr", "minsum", "scaled" or "scaled:X" (default: sp for SC, lr for BP);
    iterations, early_stop, schedule ("lr-rl", "rl-lr") for BP; implementation ("auto",
    "reference", "fast"); precision ("fp32", "fp16": CUDA BP), kernel and refill (CUDA BP);
    backend "cpu", "cuda" or "auto". After a BP call, `last_iterations` holds each frame's
    iterations."""

    def __init__(self, code: Code, decoder: str = "sc", update: Optional[str] = None,
                 iterations: int = 10, early_stop: bool = False, schedule: str = "lr-rl",
                 output: str = "hard", implementation: str = "auto", precision: str = "fp32",
                 kernel: str = "auto", refill: str = "replace", backend: str = "auto",
                 threads: int = 0, max_batch: Optional[int] = None):
        self.code = code
        if update is None:
            update = "sp" if decoder == "sc" else "lr"
        options = _core.polar.options(decoder, update, int(iterations), bool(early_stop),
                                      schedule, output, implementation, precision, kernel,
                                      refill, int(threads))
        self._plan = _core.polar.Decoder(code._code, options, backend, int(max_batch or 0))
        self._bp = decoder == "bp"
        self.backend = self._plan.backend
        self.output = output
        self.last_iterations: Optional[np.ndarray] = None

    def describe(self) -> str:
        return self._plan.describe()

    def __call__(self, llr) -> np.ndarray:
        flat, lead = _arrays.soft(llr, self.code.N, "decode")
        if flat.dtype != np.float32:
            raise TypeError("decode: polar decoders take float LLRs (float32, float64)")
        frames, length = flat.shape[0], self._plan.out_length
        soft = self._plan.soft
        out = np.empty((frames, length), dtype=np.float32 if soft else np.uint8)
        iterations = np.zeros(frames if self._bp else 0, dtype=np.uint32)
        step = self._plan.max_batch
        for begin in range(0, frames, step):
            end = min(frames, begin + step)
            its = iterations[begin:end] if self._bp else iterations
            if soft:
                self._plan.decode_soft(flat[begin:end], out[begin:end], its)
            else:
                self._plan.decode(flat[begin:end], out[begin:end], its)
        self.last_iterations = iterations.reshape(lead) if self._bp else None
        return out.reshape(*lead, length)
