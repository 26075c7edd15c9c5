"""gpufec.simulate against `gpufec simulate`: the same counts, messages and statuses."""

import os
import signal
import threading
import time

import pytest

import gpufec
from gpufec._simulate import command_line

COUNTS = ("frames", "frame_errors", "bit_errors", "symbol_errors", "undecodable", "stop_reason")

# One small sweep of each family: keyword arguments as a script writes them.
SWEEPS = {
    "uncoded": dict(K=256, ebn0=[0, 3], max_fe=40, seed=3),
    "conv": dict(K=7, polys="171,133", rate="3/4", frame_bits=300, ebn0=[3, 4], max_fe=20,
                 seed=3),
    "polar": dict(N=128, K=64, decoder="bp", early_stop=True, ebn0=[2.5], max_fe=20, seed=5),
    "sync": dict(q=8, n=5, N=20, p=[0.01, 0.03], max_fe=15, seed=2),
}


def counts(result):
    return [{k: p.get(k) for k in COUNTS} for p in result["points"]]


@pytest.mark.parametrize("family", sorted(SWEEPS))
def test_counts_equal_the_command_lines(family, cli, tmp_path):
    options = dict(SWEEPS[family], backend="cpu", threads=2)
    mine = gpufec.simulate(family, **options)
    status, theirs, output = cli(command_line(family, options)[0:], tmp_path)
    assert status == 0, output
    assert mine["status"] == "complete"
    assert counts(mine) == counts(theirs)
    assert mine["parameters"] == theirs["parameters"]
    assert [p["point"] for p in mine["points"]] == [p["point"] for p in theirs["points"]]
    assert all(p["frames"] > 0 for p in mine["points"])


def test_counts_do_not_depend_on_threads_or_batch():
    base = dict(SWEEPS["uncoded"], backend="cpu")
    one = gpufec.simulate("uncoded", threads=1, **base)
    two = gpufec.simulate("uncoded", threads=2, batch=7, **base)
    assert counts(one) == counts(two)


# Where both backends run the same arithmetic (docs/simulator.md, the determinism contract): conv's
# tiled decoder with one tile on both (the CPU's default decoder is a full traceback), polar BP's
# min-sum rules in fp32.
SAME_ON_CUDA = {
    "uncoded": SWEEPS["uncoded"],
    "conv": dict(SWEEPS["conv"], decoder="tiled", tile="64,20,40,16"),
    "polar": dict(SWEEPS["polar"], bp_update="minsum"),
    "sync": SWEEPS["sync"],
}


@pytest.mark.parametrize("family", sorted(SAME_ON_CUDA))
def test_cuda_gives_the_cpus_counts(family, has_gpu):
    if not has_gpu:
        pytest.skip("no CUDA device")
    cpu = gpufec.simulate(family, backend="cpu", **SAME_ON_CUDA[family])
    gpu = gpufec.simulate(family, backend="cuda", **SAME_ON_CUDA[family])
    assert gpu["backend"] == "cuda"
    assert counts(cpu) == counts(gpu)


def test_the_command_line_words():
    words = command_line("conv", dict(K=7, polys="171,133", ebn0=[3, 4.5], max_fe=300,
                                      early_stop=True, quiet=False, csv=None))
    assert words == ["simulate", "conv", "--K", "7", "--polys", "171,133", "--ebn0", "3,4.5",
                     "--max-fe", "300", "--early-stop"]
    with pytest.raises(TypeError):
        command_line("conv", dict(K=object()))
    with pytest.raises(ValueError):
        command_line("conv", dict(ebn0=float("nan")))
    with pytest.raises(TypeError):
        command_line(3, {})


@pytest.mark.parametrize("family, options, named", [
    ("conv", dict(K=1, ebn0=3), "--K"),
    ("uncoded", dict(ebn0="3:1:x"), "--ebn0"),
    ("uncoded", dict(ebn0=3, max_fe=0), "--max-fe"),
    ("uncoded", dict(ebn0=3, no_such_option=1), "--no-such-option"),
    ("nosuch", dict(ebn0=3), "nosuch"),
    ("polar", dict(N=100, ebn0=3), "--N"),
    ("sync", dict(q=64, n=5, p=0.01), "q"),
])
def test_bad_values_raise_value_error_with_the_command_lines_message(family, options, named, cli,
                                                                     tmp_path):
    with pytest.raises(ValueError) as caught:
        gpufec.simulate(family, backend="cpu", **options)
    message = str(caught.value)
    assert named in message
    status, _, output = cli(command_line(family, dict(options, backend="cpu")), tmp_path)
    assert status in (1, 2)
    assert message in output  # the same words as the command line's one-line message


def test_standard_output_is_refused():
    with pytest.raises(ValueError, match="standard output"):
        gpufec.simulate("uncoded", ebn0=3, json="-")


def test_a_request_that_cannot_fit_raises_memory_error(monkeypatch):
    monkeypatch.setenv("GPUFEC_MEMORY_LIMIT", "16G")
    with pytest.raises(MemoryError, match="needs"):
        gpufec.simulate("sync", backend="cpu", q=32, n=10, N=4000, p=[0.001, 0.3],
                        storage="global", max_frames=1, threads=1)


def test_a_missing_backend_raises_runtime_error():
    if gpufec.build_info()["cuda"] and gpufec.cuda_devices():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(RuntimeError):
        gpufec.simulate("uncoded", ebn0=3, backend="cuda", max_frames=10)


def test_the_json_file_is_written_too(tmp_path):
    path = tmp_path / "out.json"
    result = gpufec.simulate("uncoded", ebn0=2, max_frames=100, backend="cpu", json=str(path))
    import json

    assert json.loads(path.read_text()) == result


def test_progress_reaches_the_callback():
    seen = []
    gpufec.simulate("uncoded", K=4096, ebn0=12, max_time=0.6, max_fe=0, backend="cpu",
                    progress=seen.append)
    assert seen, "no progress report"
    assert seen[-1]["frames"] > 0
    assert {"point", "frames", "frame_errors", "seconds_left"} <= set(seen[-1])


def test_ctrl_c_ends_the_point_and_raises_with_the_partial_result():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")

    def press_ctrl_c():
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=press_ctrl_c, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as caught:
        gpufec.simulate("uncoded", K=4096, ebn0=[12, 13], max_fe=0, max_time=60, backend="cpu")
    assert time.monotonic() - started < 20
    result = caught.value.result
    assert result["status"] == "interrupted"
    assert result["points"][0]["stop_reason"] == "interrupted"
    assert result["points"][0]["frames"] > 0
    # The interpreter's own handler is still in place, and the next run is unaffected.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    again = gpufec.simulate("uncoded", ebn0=3, max_frames=50, backend="cpu")
    assert again["status"] == "complete"


def test_build_info_and_version():
    info = gpufec.build_info()
    assert info["version"] == gpufec.__version__
    assert isinstance(info["cuda"], bool)
    assert isinstance(gpufec.cuda_devices(), list)


def test_the_stubs_are_installed_beside_the_module():
    here = os.path.dirname(gpufec._core.__file__)
    assert os.path.exists(os.path.join(here, "_core.pyi"))
    assert os.path.exists(os.path.join(here, "py.typed"))
