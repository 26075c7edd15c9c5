"""gpufec.sync and gpufec.channel.bsid against the command line on the same inputs: the same
frames, received sequences, decisions and APPs; ragged batches, undecodable frames, bad input."""

import numpy as np
import pytest

import gpufec
from gpufec import sync


@pytest.mark.parametrize("q, n, N, ps, storage", [(8, 5, 20, 0.0, "global"),
                                                   (16, 6, 30, 0.01, "local"),
                                                   (5, 4, 12, 0.0, "compact")])
def test_encode_channel_decode_equal_the_command_lines(q, n, N, ps, storage, run_cli, tmp_path):
    code = sync.Code(q=q, n=n, N=N, seed=4)
    code_words = ["--q", str(q), "--n", str(n), "--N", str(N), "--codebook-seed", "4"]
    rng = np.random.default_rng()
    messages = rng.integers(0, q, (12, N))
    (tmp_path / "m.txt").write_text("".join(" ".join(map(str, m)) + "\n" for m in messages))
    frames = sync.Encoder(code)(messages)
    run_cli("encode", "sync", *code_words, "-i", str(tmp_path / "m.txt"), "-o",
            str(tmp_path / "f.txt"))
    theirs = [[int(c) for c in line] for line in (tmp_path / "f.txt").read_text().split()]
    assert np.array_equal(frames, np.array(theirs, dtype=np.uint8))
    seed = int(rng.integers(1 << 30))
    received = gpufec.channel.bsid(frames, pi=0.03, pd=0.02, ps=ps, seed=seed)
    run_cli("channel", "bsid", "--pi", "0.03", "--pd", "0.02", "--ps", repr(ps),
            "--seed", str(seed), "-i", str(tmp_path / "f.txt"), "-o", str(tmp_path / "r.txt"))
    lines = (tmp_path / "r.txt").read_text().split("\n")[:len(received)]
    assert [r.tolist() for r in received] == [[int(c) for c in line] for line in lines]
    assert len({len(r) for r in received}) > 1  # the lengths differ: a ragged batch
    out = sync.Decoder(code, pi=0.03, pd=0.02, ps=ps, storage=storage, backend="cpu")(received)
    run_cli("decode", "sync", *code_words, "--pi", "0.03", "--pd", "0.02", "--ps",
            repr(ps), "--storage", storage, "--backend", "cpu", "-i", str(tmp_path / "r.txt"),
            "--decisions", str(tmp_path / "d.txt"), "--app", str(tmp_path / "a.f64"),
            "--app-format", "f64")
    decisions = [[int(v) for v in line.split()]
                 for line in (tmp_path / "d.txt").read_text().splitlines()]
    assert np.array_equal(out.decisions, np.array(decisions, dtype=np.uint32))
    app = np.fromfile(tmp_path / "a.f64", dtype=np.float64).reshape(len(received), N, q)
    assert np.array_equal(out.app, app)
    assert out.decoded.all() and out.messages == [""] * len(received)


def test_noise_free_frames_decode_exactly_with_posteriors_that_sum_to_one():
    code = sync.Code(q=16, n=6, N=10, seed=2)
    rng = np.random.default_rng()
    messages = rng.integers(0, 16, (3, 10))
    frames = sync.Encoder(code)(messages)
    dec = sync.Decoder(code, pi=1e-3, backend="cpu", drift_posterior=True, max_batch=2)
    out = dec(frames)  # a 2-D array of equal lengths; two plan calls
    assert np.array_equal(out.decisions, messages)
    assert np.allclose(out.app.sum(axis=2), 1.0)
    assert out.drift.shape[:2] == (3, 11) and np.allclose(out.drift.sum(axis=2), 1.0)
    single = dec(frames[1])  # one frame
    assert np.array_equal(single.decisions[0], messages[1])


def test_priors_weigh_the_symbols():
    code = sync.Code(q=8, n=5, N=20, seed=1)
    rng = np.random.default_rng()
    messages = rng.integers(0, 8, (4, 20))
    received = gpufec.channel.bsid(sync.Encoder(code)(messages), pi=0.05, ps=0.05,
                                   seed=int(rng.integers(1 << 30)))
    dec = sync.Decoder(code, pi=0.05, ps=0.05, backend="cpu", max_batch=3)
    plain = dec(received)
    uniform = dec(received, priors=np.full((4, 20, 8), 1 / 8))
    assert np.array_equal(uniform.decisions, plain.decisions)
    assert np.allclose(uniform.app, plain.app, rtol=1e-12, atol=0)
    # Priors that know the message decide it, whatever the channel did.
    known = np.full((4, 20, 8), 1e-6)
    known[np.arange(4)[:, None], np.arange(20)[None, :], messages] = 1 - 7e-6
    assert np.array_equal(dec(received, priors=known).decisions, messages)
    with pytest.raises(ValueError, match="shape"):
        dec(received, priors=np.full((4, 20, 7), 1 / 7))
    with pytest.raises(ValueError):
        dec(received, priors=np.full((4, 20, 8), -1.0))


def test_a_received_length_outside_the_limits_is_marked_undecodable():
    code = sync.Code(q=8, n=5, N=20, seed=1)
    frames = sync.Encoder(code)(np.zeros((2, 20), dtype=int))
    out = sync.Decoder(code, pi=1e-3, backend="cpu")([frames[0], frames[1][:40]])
    assert list(out.decoded) == [True, False]
    assert out.messages[0] == "" and out.messages[1]


@pytest.mark.parametrize("make, named", [
    (lambda: sync.Code(q=64, n=5, N=10), "q = 64"),
    (lambda: sync.Code(q=8, n=0, N=10), "n = 0"),
    (lambda: sync.Code(q=8, n=5, N=10, marker="yes"), "marker"),
    (lambda: sync.Decoder(sync.Code(q=8, n=5, N=10), pi=0.6, pd=0.5), "Pi"),
    (lambda: sync.Decoder(sync.Code(q=8, n=5, N=10), pi=0.01, storage="disk"), "storage"),
    (lambda: gpufec.channel.bsid(np.zeros(5, np.uint8), pi=0.7, pd=0.7), "Pi"),
])
def test_bad_descriptions_raise_value_error_naming_the_value(make, named):
    with pytest.raises(ValueError) as caught:
        make()
    assert named in str(caught.value)


def test_bad_inputs_raise_with_a_message():
    code = sync.Code(q=8, n=5, N=10, seed=1)
    with pytest.raises(ValueError, match=r"\[0, 8\)"):
        sync.Encoder(code)(np.full((1, 10), 8))
    with pytest.raises(TypeError):
        sync.Encoder(code)(np.zeros((1, 10), np.float32))
    dec = sync.Decoder(code, pi=0.01, backend="cpu")
    with pytest.raises(ValueError, match="alphabet"):
        dec([np.full(50, 2, np.uint8)])
    with pytest.raises(ValueError, match="0 or 1"):
        dec([np.full(50, 2, np.int64)])
    with pytest.raises(ValueError, match="frame 1"):
        dec([np.zeros(50, np.uint8), np.zeros((2, 25), np.uint8)])


def test_cuda_gives_the_cpus_decisions(has_gpu):
    if not has_gpu:
        pytest.skip("no CUDA device")
    code = sync.Code(q=32, n=10, N=50, seed=3)
    rng = np.random.default_rng()
    frames = sync.Encoder(code)(rng.integers(0, 32, (200, 50)))
    received = gpufec.channel.bsid(frames, pi=0.01, seed=int(rng.integers(1 << 30)))
    gpu = sync.Decoder(code, pi=0.01, backend="cuda")(received)
    cpu = sync.Decoder(code, pi=0.01, backend="cpu")(received)
    assert np.array_equal(gpu.decisions, cpu.decisions)
    assert np.allclose(gpu.app, cpu.app, rtol=1e-4, atol=1e-9)
