"""gpufec.polar against the command line on the same inputs: the same codewords and decisions
(hard and soft) bit for bit; shapes, the iteration counts, and bad input."""

import numpy as np
import pytest

import gpufec
from gpufec import polar


def read_bits(path):
    return np.array([[int(c) for c in line] for line in path.read_text().split()], dtype=np.uint8)


DECODERS = {
    "sc sp": (dict(decoder="sc"), ["--decoder", "sc"]),
    "sc minsum fast": (dict(decoder="sc", update="minsum", implementation="fast"),
                       ["--decoder", "sc", "--sc-update", "minsum", "--impl", "fast"]),
    "bp minsum early stop": (dict(decoder="bp", update="minsum", early_stop=True),
                             ["--decoder", "bp", "--bp-update", "minsum", "--early-stop"]),
    "bp scaled rl-lr": (dict(decoder="bp", update="scaled:0.875", iterations=7, schedule="rl-lr"),
                        ["--decoder", "bp", "--bp-update", "scaled:0.875", "--iters", "7",
                         "--schedule", "rl-lr"]),
}


@pytest.mark.parametrize("systematic", [False, True])
@pytest.mark.parametrize("name", sorted(DECODERS))
def test_encode_and_decode_equal_the_command_lines(name, systematic, run_cli, tmp_path):
    N, K = 256, 120
    code = polar.Code(N, K, construct="5g", systematic=systematic)
    code_words = ["--N", str(N), "--K", str(K), "--construct", "5g"] + (
        ["--systematic"] if systematic else [])
    rng = np.random.default_rng()
    bits = rng.integers(0, 2, (9, K), dtype=np.uint8)
    (tmp_path / "bits.txt").write_text("".join("".join(map(str, f)) + "\n" for f in bits))
    coded = polar.Encoder(code)(bits)
    run_cli("encode", "polar", *code_words, "-i", str(tmp_path / "bits.txt"), "-o",
            str(tmp_path / "coded.txt"))
    assert np.array_equal(coded, read_bits(tmp_path / "coded.txt"))
    llr = gpufec.channel.awgn(coded, ebn0=1.5, rate=code.rate, seed=int(rng.integers(1 << 30)))
    llr.tofile(tmp_path / "llr.f32")
    options, words = DECODERS[name]
    mine = polar.Decoder(code, backend="cpu", **options)(llr)
    run_cli("decode", "polar", *code_words, *words, "--backend", "cpu", "--quiet",
            "--input-format", "f32", "-i", str(tmp_path / "llr.f32"), "-o",
            str(tmp_path / "out.txt"))
    assert np.array_equal(mine, read_bits(tmp_path / "out.txt"))
    if options["decoder"] == "bp":
        for kind, length in (("info-llr", K), ("codeword-llr", N)):
            soft = polar.Decoder(code, backend="cpu", output=kind, **options)(llr)
            assert soft.shape == (9, length) and soft.dtype == np.float32
            run_cli("decode", "polar", *code_words, *words, "--backend", "cpu",
                    "--quiet", "--input-format", "f32", "--output-kind", kind,
                    "--output-format", "f32", "-i", str(tmp_path / "llr.f32"), "-o",
                    str(tmp_path / "soft.f32"))
            theirs = np.fromfile(tmp_path / "soft.f32", dtype=np.float32).reshape(9, length)
            assert np.array_equal(soft, theirs), kind


def test_noise_free_codewords_decode_exactly_in_any_leading_shape():
    code = polar.Code(64, 32)
    enc = polar.Encoder(code)
    rng = np.random.default_rng()
    for decoder in ("sc", "bp"):
        dec = polar.Decoder(code, decoder=decoder, early_stop=decoder == "bp", backend="cpu")
        for shape in [(32,), (2, 3, 32), (0, 32)]:
            bits = rng.integers(0, 2, shape, dtype=np.uint8)
            llr = (1 - 2 * enc(bits).astype(np.float64)) * 5
            out = dec(llr)
            assert out.shape == shape and out.dtype == np.uint8
            assert np.array_equal(out, bits)
            if decoder == "bp":
                assert dec.last_iterations.shape == shape[:-1]
                assert np.all(dec.last_iterations == 1)  # the G-matrix check holds at once


def test_a_frozen_set_gives_the_code():
    frozen = [0, 1, 2, 4, 8, 16]
    code = polar.Code(32, frozen=frozen)
    assert code.K == 26
    assert list(code.frozen_positions) == frozen
    with pytest.raises(ValueError, match="frozen"):
        polar.Code(32, K=20, frozen=frozen)


@pytest.mark.parametrize("make, named", [
    (lambda: polar.Code(100), "100"),
    (lambda: polar.Code(64, 65), "65"),
    (lambda: polar.Code(64, 32, construct="ga:x"), "ga:x"),
    (lambda: polar.Decoder(polar.Code(64), decoder="list"), "decoder"),
    (lambda: polar.Decoder(polar.Code(64), decoder="bp", update="scaled:2"), "scale"),
    (lambda: polar.Decoder(polar.Code(64), decoder="bp", iterations=0), "iterations"),
    (lambda: polar.Decoder(polar.Code(64), precision="fp16", backend="cpu"), "fp16"),
])
def test_bad_descriptions_raise_value_error_naming_the_value(make, named):
    with pytest.raises(ValueError) as caught:
        make()
    assert named in str(caught.value)


def test_bad_inputs_raise_with_a_message():
    code = polar.Code(64, 32)
    dec = polar.Decoder(code, backend="cpu")
    with pytest.raises(ValueError, match="64"):
        dec(np.zeros((2, 63), np.float32))
    llr = np.zeros((3, 64), np.float32)
    llr[1, 7] = np.inf
    with pytest.raises(ValueError):
        dec(llr)
    with pytest.raises(TypeError):
        dec(np.zeros((1, 64), np.int8))
    with pytest.raises(ValueError, match="0 or 1"):
        polar.Encoder(code)(np.full((1, 32), 3))


def test_cuda_bp_decides_as_the_cpu_in_fp32_min_sum(has_gpu):
    if not has_gpu:
        pytest.skip("no CUDA device")
    code = polar.Code(1024, 512)
    rng = np.random.default_rng()
    bits = rng.integers(0, 2, (3000, 512), dtype=np.uint8)
    llr = gpufec.channel.awgn(polar.Encoder(code)(bits), ebn0=2.5, rate=0.5,
                              seed=int(rng.integers(1 << 30)))
    options = dict(decoder="bp", update="minsum", early_stop=True)
    gpu = polar.Decoder(code, backend="cuda", **options)
    cpu = polar.Decoder(code, backend="cpu", **options)
    assert gpu.backend == "cuda"
    assert np.array_equal(gpu(llr), cpu(llr))
    assert np.array_equal(gpu.last_iterations, cpu.last_iterations)
