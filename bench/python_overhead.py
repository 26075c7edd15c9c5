#!/usr/bin/env python3
"""What the Python package adds to a decoder call: gpufec.conv.Decoder(...)(llr) against the
compiled plan's own call on the same, already shaped array (the C++ decode behind a nanobind
call of well under a microsecond), medians after a warm-up, for a small CPU batch and for batches
that fill the device. Prints a table; --json FILE writes the rows.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--backend cpu|cuda|all] [--json F]
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

import gpufec
from gpufec import conv


def median_seconds(call, repeats):
    call()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def row(backend, frames, frame_bits, repeats, llr_kind):
    code = conv.Code(K=7, polys=(0o171, 0o133))
    dec = conv.Decoder(code, frame_bits, backend=backend, max_batch=frames)
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2, (frames, frame_bits), dtype=np.uint8)
    llr = gpufec.channel.awgn(conv.Encoder(code, frame_bits)(bits), ebn0=4,
                              rate=code.rate(frame_bits), seed=1)
    if llr_kind == "int8":
        llr = np.clip(np.rint(llr * 4), -127, 127).astype(np.int8)
    out = np.empty((frames, frame_bits), dtype=np.uint8)
    raw = dec._plan.decode_i8 if llr_kind == "int8" else dec._plan.decode_f32
    wrapped = median_seconds(lambda: dec(llr), repeats)
    direct = median_seconds(lambda: raw(llr, out), repeats)
    return {"backend": dec.backend, "frames": frames, "frame_bits": frame_bits, "llr": llr_kind,
            "python_call_us": wrapped * 1e6, "plan_call_us": direct * 1e6,
            "overhead_us": (wrapped - direct) * 1e6,
            "overhead_share": (wrapped - direct) / direct if direct > 0 else 0.0}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="all", choices=["cpu", "cuda", "all"])
    parser.add_argument("--json")
    args = parser.parse_args()
    has_gpu = gpufec.build_info()["cuda"] and gpufec.cuda_devices()
    backends = ["cpu", "cuda"] if args.backend == "all" else [args.backend]
    rows = []
    for backend in backends:
        if backend == "cuda" and not has_gpu:
            print("cuda: no CUDA device, skipped", file=sys.stderr)
            continue
        cases = ([(1, 64, 2000), (16, 1000, 300), (1024, 8192, 5)] if backend == "cpu"
                 else [(1, 64, 500), (16384, 8192, 10)])
        for frames, frame_bits, repeats in cases:
            for llr_kind in ("float", "int8"):
                rows.append(row(backend, frames, frame_bits, repeats, llr_kind))
    print(f"{'backend':8}{'frames':>8}{'bits':>7}{'llr':>6}{'python us':>13}{'plan us':>13}"
          f"{'overhead us':>13}{'share':>8}")
    for r in rows:
        print(f"{r['backend']:8}{r['frames']:>8}{r['frame_bits']:>7}{r['llr']:>6}"
              f"{r['python_call_us']:>13.1f}{r['plan_call_us']:>13.1f}{r['overhead_us']:>13.1f}"
              f"{100 * r['overhead_share']:>7.1f}%")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"benchmark": "python_overhead", "build": gpufec.build_info(), "rows": rows},
                      f, indent=2)


if __name__ == "__main__":
    main()
