"""Convolutional codes: encoders and Viterbi decoders on the CPU and CUDA.

    code = gpufec.conv.Code(K=7, polys=(0o171, 0o133), rate="3/4")
    enc = gpufec.conv.Encoder(code, frame_bits=1000)
    dec = gpufec.conv.Decoder(code, frame_bits=1000, backend="cuda")
    coded = enc(bits)                     # [..., 1000] -> [..., enc.coded_bits]
    llr = gpufec.channel.awgn(coded, ebn0=4, rate=code.rate(1000), seed=1)
    decided = dec(llr)                    # [..., enc.coded_bits] -> [..., 1000]
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as np

from . import _arrays, _core

__all__ = ["Code", "Encoder", "Decoder"]


class Code:
    """A convolutional code as `gpufec ... conv` takes it: constraint length K (3..9), generator
    polynomials (ints, e.g. 0o171, or octal text "171,133"; MSB = current input, as MATLAB
    poly2trellis), the recursive systematic form (rsc), puncturing (rate: "2/3", "3/4", "5/6",
    "7/8" or pattern rows "101,110"; None: none) and the termination ("zero", "trunc",
    "tailbiting"). Raises ValueError naming the bad value."""

    def __init__(self, K: int = 7, polys: Union[str, Sequence[int]] = (0o171, 0o133),
                 rate: Optional[str] = None, term: str = "zero", rsc: bool = False):
        text = polys if isinstance(polys, str) else ",".join(format(int(p), "o") for p in polys)
        self._setup = _core.conv.Setup(int(K), text, bool(rsc), rate or "", term)

    @property
    def K(self) -> int:
        return self._setup.K

    @property
    def polys(self) -> Tuple[int, ...]:
        return tuple(self._setup.polys)

    @property
    def rsc(self) -> bool:
        return self._setup.rsc

    @property
    def term(self) -> str:
        return self._setup.term

    @property
    def puncturing(self) -> str:
        return self._setup.puncturing

    def shape(self, frame_bits: int) -> Tuple[int, int]:
        """(information bits, coded bits) of a frame of `frame_bits` information bits."""
        return tuple(self._setup.shape(int(frame_bits)))

    def rate(self, frame_bits: int) -> float:
        """The rate of a frame: information bits over coded bits (the tail included)."""
        k, n = self.shape(frame_bits)
        return k / n

    def __repr__(self) -> str:
        return (f"gpufec.conv.Code({self._setup}, puncturing {self.puncturing}, "
                f"term={self.term!r})")


class Encoder:
    """The code's encoder for frames of `frame_bits` information bits: bits [..., frame_bits]
    (0/1, any integer or bool dtype) -> uint8 [..., coded_bits]."""

    def __init__(self, code: Code, frame_bits: int):
        self.code = code
        self._encoder = _core.conv.Encoder(code._setup, int(frame_bits))
        self.info_bits = self._encoder.info_bits
        self.coded_bits = self._encoder.coded_bits

    def __call__(self, bits) -> np.ndarray:
        flat, lead = _arrays.bits(bits, self.info_bits, "encode")
        out = np.empty((flat.shape[0], self.coded_bits), dtype=np.uint8)
        self._encoder.encode(flat, out)
        return out.reshape(*lead, self.coded_bits)


class Decoder:
    """A Viterbi decoder planned once for frames of `frame_bits` information bits: LLRs
    [..., coded_bits] (float32, float64 converted, or int8; positive means bit 0) -> uint8 bits
    [..., frame_bits]; `.hard(received)` takes 0/1 decisions instead.

    backend: "cpu", "cuda" or "auto" (CUDA when a GPU exists). decoder: "auto", "reference"
    (exact ML), "fast" (SIMD) or "tiled" (the CUDA kernel's algorithm; tile="f,v1,v2[,f0]" or
    "default"). llr_scale: the fast decoder's quantization of float LLRs (0: per frame).
    max_batch: frames a call of the plan takes (None: about 2^20 values on the CPU, 2^28 on
    CUDA); larger inputs are decoded in pieces of it. The decisions equal `gpufec decode conv`'s
    with the same options."""

    def __init__(self, code: Code, frame_bits: int, backend: str = "auto",
                 decoder: str = "auto", llr_scale: float = 0.0, tile: Optional[str] = None,
                 threads: int = 0, max_batch: Optional[int] = None):
        self.code = code
        self._plan = _core.conv.Decoder(code._setup, int(frame_bits), backend, decoder,
                                        float(llr_scale), tile or "", int(threads),
                                        int(max_batch or 0))
        self.info_bits = self._plan.info_bits
        self.coded_bits = self._plan.coded_bits
        self.backend = self._plan.backend

    def describe(self) -> str:
        """The plan: where it runs, the decoder and kernel, batch sizes."""
        return self._plan.describe()

    def _run(self, flat: np.ndarray, lead: tuple, decode) -> np.ndarray:
        out = np.empty((flat.shape[0], self.info_bits), dtype=np.uint8)
        step = self._plan.max_batch
        for begin in range(0, flat.shape[0], step):
            decode(flat[begin:begin + step], out[begin:begin + step])
        return out.reshape(*lead, self.info_bits)

    def __call__(self, llr) -> np.ndarray:
        flat, lead = _arrays.soft(llr, self.coded_bits, "decode")
        decode = self._plan.decode_i8 if flat.dtype == np.int8 else self._plan.decode_f32
        return self._run(flat, lead, decode)

    def hard(self, received) -> np.ndarray:
        """Hard decisions (0/1 a coded bit) -> information bits."""
        flat, lead = _arrays.bits(received, self.coded_bits, "decode")
        return self._run(flat, lead, self._plan.decode_hard)
