"""gpufec.simulate: the command line's `simulate` in this process."""

from __future__ import annotations

import json
import math
import numbers
import os
import sys
import tempfile
import threading
from typing import Any, Callable, Optional, Union

from . import _core

ProgressCallback = Callable[[dict], None]

# How often the waiting thread looks at the sweep (Ctrl-C and progress), seconds.
_POLL_SECONDS = 0.1


def _option_text(name: str, value: Any) -> str:
    """A keyword argument's value as the command line writes it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise TypeError(f"{name}: True or False is for flags only")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        if not math.isfinite(float(value)):
            raise ValueError(f"{name}: {value!r} is not a finite number")
        return repr(float(value))
    if isinstance(value, (list, tuple, range)):
        if not value:
            raise ValueError(f"{name}: an empty list")
        return ",".join(_option_text(name, v) for v in value)
    raise TypeError(f"{name}: {type(value).__name__} is not a value the command line takes "
                    "(give a string, a number or a list of them)")


def command_line(family: str, options: dict) -> list:
    """The `gpufec simulate` words for `options` (without "gpufec"): K=7 -> --K 7, max_fe=300 ->
    --max-fe 300, ebn0=[3, 4] -> --ebn0 3.0,4.0, early_stop=True -> --early-stop (False: left
    out), None: left out."""
    if not isinstance(family, str):
        raise TypeError("family must be a string: 'uncoded', 'conv', 'polar' or 'sync'")
    words = ["simulate", family]
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            words.append(flag)
        else:
            words += [flag, _option_text(name, value)]
    return words


def _raise_failure(kind: str, message: str, status: int, result: Optional[dict]) -> None:
    if kind in ("usage", "value") or status == 2:
        error: Exception = ValueError(message)
    elif kind == "memory":
        error = MemoryError(message)
    elif kind == "internal":
        error = RuntimeError("internal error: " + message)
    else:
        error = RuntimeError(message or f"gpufec simulate failed (status {status})")
    error.result = result  # type: ignore[attr-defined]
    raise error


def _progress_printer() -> ProgressCallback:
    """progress=True: a tqdm bar per point when tqdm is installed, else a line on stderr."""
    try:
        from tqdm import tqdm  # type: ignore[import-not-found]
    except ImportError:
        tqdm = None
    state: dict = {}

    def show(p: dict) -> None:
        if tqdm is not None:
            key = p["point_index"]
            if state.get("key") != key:
                if "bar" in state:
                    state["bar"].close()
                state["bar"] = tqdm(desc=f"point {p['point']:g}", unit=" frames")
                state["key"] = key
            bar = state["bar"]
            bar.update(p["frames"] - bar.n)
            bar.set_postfix(frame_errors=p["frame_errors"])
            return
        left = f", ~{p['seconds_left']:.0f} s left" if p["seconds_left"] is not None else ""
        print(f"\r{p['point']:g} (point {p['point_index'] + 1} of {p['points']}): "
              f"{p['frames']} frames, {p['frame_errors']} frame errors{left}",
              end="", file=sys.stderr, flush=True)

    return show


def simulate(family: str, *, progress: Union[bool, ProgressCallback, None] = None,
             **options: Any) -> dict:
    """Runs `gpufec simulate FAMILY --OPTION VALUE ...` in this process and returns its JSON
    document as a dict (what `--json` writes: parameters, points with counts, rates and intervals,
    status, provenance): a script and a command line with the same seed give the same counts.

    Keyword arguments are the command line's options, dashes as underscores: `K=7`,
    `polys="171,133"`, `ebn0=[3, 4]` or `ebn0="0:8:0.5"`, `max_fe=300`, `seed=3`,
    `backend="cuda"`, `threads=4`, flags as `early_stop=True`; `json=` and `csv=` also write the
    files. `progress`: a callable given a dict per batch (point, frames, frame_errors, bit_errors,
    seconds, frames_per_second, seconds_left), or True for a bar (tqdm when installed).

    Raises ValueError for a bad option or value (the command line's message), MemoryError for a
    request that cannot fit, RuntimeError otherwise. Ctrl-C ends the current point cleanly and
    raises KeyboardInterrupt with the partial result as its `result` attribute.
    """
    callback = _progress_printer() if progress is True else progress or None
    user_json = options.pop("json", None)
    if user_json == "-" or options.get("csv") == "-":
        raise ValueError("json='-' and csv='-' write standard output, which simulate does not "
                         "show: the result is returned (give a file to keep one)")
    with tempfile.TemporaryDirectory(prefix="gpufec-") as scratch:
        json_path = user_json if user_json is not None else os.path.join(scratch, "result.json")
        words = command_line(family, options) + ["--json", os.fspath(json_path)]
        run = _core.Command(words)
        outcome: dict = {}
        # The worker says it is done through an event: a Thread.join that a KeyboardInterrupt
        # breaks into may report the thread ended while it still runs (CPython before 3.12).
        done = threading.Event()

        def work() -> None:
            try:
                outcome["value"] = run.run()
            except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
                outcome["error"] = e
            finally:
                done.set()

        worker = threading.Thread(target=work, name="gpufec-simulate", daemon=True)
        interrupted: Optional[KeyboardInterrupt] = None
        worker.start()
        try:
            while not done.wait(_POLL_SECONDS):
                if callback is not None and (p := run.progress()) is not None:
                    callback(p)
        except KeyboardInterrupt as e:
            # The point ends within about a second; further Ctrl-Cs meanwhile change nothing (a
            # sweep left running on its own thread could outlive the interpreter).
            interrupted = e
            run.interrupt()
            while not done.is_set():
                try:
                    done.wait()
                except KeyboardInterrupt:
                    continue
        worker.join()
        if "error" in outcome:
            raise outcome["error"]
        status, _out, err, kind, message = outcome["value"]
        result = None
        if os.path.exists(json_path):
            with open(json_path, encoding="utf-8") as f:
                text = f.read()
            result = json.loads(text) if text else None
    if interrupted is not None or status == 130:
        error = interrupted if interrupted is not None else KeyboardInterrupt()
        error.result = result  # type: ignore[attr-defined]
        raise error
    if status != 0:
        _raise_failure(kind, message or err.strip(), status, result)
    if result is None:
        raise RuntimeError("gpufec simulate wrote no result")
    return result
