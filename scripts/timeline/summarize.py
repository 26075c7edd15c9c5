#!/usr/bin/env python3
"""Summarizes a cupti_trace file: operations are grouped into runs separated by idle gaps (one
decode call each, in a benchmark), each run's span and the busy time per kind, then the last runs
op by op (start and end in us from the run's start), so that overlap between streams shows.
  summarize.py TRACE [--gap US] [--show N]"""
import argparse

KINDS = (("gamma", "gamma"), ("fb_", "alpha/beta"), ("app_", "L"), ("channel", "channel"))


def kind_of(name):
    for key, kind in KINDS:
        if key in name:
            return kind
    return name[:24]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--gap", type=float, default=50.0, help="idle us that ends a run")
    ap.add_argument("--show", type=int, default=1, help="last runs printed op by op")
    a = ap.parse_args()
    ops = []
    for line in open(a.trace):
        f = line.split()
        if f[0] == "K":
            ops.append((int(f[1]), int(f[2]), int(f[3]), kind_of(f[7]), "x".join(f[4:7])))
        elif f[0] == "M":
            ops.append((int(f[1]), int(f[2]), int(f[3]), "copy", f[4] + " B"))
    if not ops:
        print("no operations recorded")
        return
    ops.sort()
    runs, end = [[ops[0]]], ops[0][1]
    for op in ops[1:]:
        if op[0] - end > a.gap * 1000:
            runs.append([])
        runs[-1].append(op)
        end = max(end, op[1])
    print(f"{len(runs)} runs (separated by more than {a.gap:g} us idle)")
    for n, run in enumerate(runs):
        t0, t1 = run[0][0], max(op[1] for op in run)
        busy = {}
        for op in run:
            busy[op[3]] = busy.get(op[3], 0) + op[1] - op[0]
        sums = ", ".join(f"{k} {v / 1000:.0f}" for k, v in busy.items())
        print(f"run {n}: {len(run)} ops, span {(t1 - t0) / 1000:.1f} us; busy us: {sums}")
    for run in runs[-a.show:]:
        t0 = run[0][0]
        print(f"--- {'kind':10s} {'stream':>6s} {'start':>10s} {'end':>10s} {'us':>9s}  grid or bytes")
        for op in run:
            print(f"    {op[3]:10s} {op[2]:6d} {(op[0] - t0) / 1000:10.1f} {(op[1] - t0) / 1000:10.1f}"
                  f" {(op[1] - op[0]) / 1000:9.1f}  {op[4]}")


if __name__ == "__main__":
    main()
