"""gpufec.conv and gpufec.channel against the command line on the same inputs: the same coded
bits, the same noise, the same decisions, bit for bit; shapes, dtypes and every bad input."""

import numpy as np
import pytest

import gpufec
from gpufec import conv

FRAME = 300


def write_bits(path, frames):
    path.write_text("".join("".join(map(str, f)) + "\n" for f in frames))


def read_bits(path):
    return np.array([[int(c) for c in line] for line in path.read_text().split()], dtype=np.uint8)


CODES = {
    "k7 r1/2": dict(K=7, polys=(0o171, 0o133)),
    "k7 r3/4": dict(K=7, polys="171,133", rate="3/4"),
    "k5 r1/3 tailbiting": dict(K=5, polys=(0o25, 0o33, 0o37), term="tailbiting"),
    "k4 rsc trunc": dict(K=4, polys=(0o13, 0o15), rsc=True, term="trunc"),
}


def cli_code_words(options):
    polys = options.get("polys", (0o171, 0o133))
    words = ["--K", str(options["K"]), "--polys",
             polys if isinstance(polys, str) else ",".join(format(p, "o") for p in polys),
             "--term", options.get("term", "zero"), "--frame-bits", str(FRAME)]
    if options.get("rate"):
        words += ["--rate", options["rate"]]
    if options.get("rsc"):
        words += ["--rsc"]
    return words


@pytest.mark.parametrize("name", sorted(CODES))
def test_encode_channel_decode_equal_the_command_lines(name, run_cli, tmp_path):
    code = conv.Code(**CODES[name])
    words = cli_code_words(CODES[name])
    rng = np.random.default_rng()
    bits = rng.integers(0, 2, (7, FRAME), dtype=np.uint8)
    write_bits(tmp_path / "bits.txt", bits)
    # The encoder.
    coded = conv.Encoder(code, FRAME)(bits)
    run_cli("encode", "conv", *words, "-i", str(tmp_path / "bits.txt"), "-o",
            str(tmp_path / "coded.txt"))
    assert np.array_equal(coded, read_bits(tmp_path / "coded.txt"))
    # The channel: the same noise for the same seed and frame.
    rate = code.rate(FRAME)
    llr = gpufec.channel.awgn(coded, ebn0=2.5, rate=rate, seed=9)
    run_cli("channel", "awgn", "--ebn0", "2.5", "--rate", repr(rate), "--seed", "9",
            "-i", str(tmp_path / "coded.txt"), "-o", str(tmp_path / "llr.txt"))
    theirs = np.array([[np.float32(v) for v in line.split()]
                       for line in (tmp_path / "llr.txt").read_text().splitlines()])
    assert np.array_equal(llr, theirs)
    # The decoders, float and int8 LLRs.
    for decoder in ("reference", "fast", "tiled"):
        dec = conv.Decoder(code, FRAME, backend="cpu", decoder=decoder)
        mine = dec(llr)
        run_cli("decode", "conv", *words, "--backend", "cpu", "--decoder", decoder,
                "--quiet", "-i", str(tmp_path / "llr.txt"), "-o", str(tmp_path / "out.txt"))
        assert np.array_equal(mine, read_bits(tmp_path / "out.txt")), decoder
    q = np.clip(np.rint(llr * 4), -127, 127).astype(np.int8)
    q.tofile(tmp_path / "llr.i8")
    mine = conv.Decoder(code, FRAME, backend="cpu", decoder="fast")(q)
    run_cli("decode", "conv", *words, "--backend", "cpu", "--decoder", "fast",
            "--input-format", "i8", "--quiet", "-i", str(tmp_path / "llr.i8"), "-o",
            str(tmp_path / "out8.txt"))
    assert np.array_equal(mine, read_bits(tmp_path / "out8.txt"))


def test_noise_free_frames_decode_exactly_in_any_leading_shape():
    code = conv.Code(K=7, polys=(0o171, 0o133), rate="3/4")
    enc, dec = conv.Encoder(code, 64), conv.Decoder(code, 64, backend="cpu")
    rng = np.random.default_rng()
    for shape in [(64,), (1, 64), (2, 3, 64), (0, 64)]:
        bits = rng.integers(0, 2, shape, dtype=np.uint8)
        coded = enc(bits)
        assert coded.shape == shape[:-1] + (enc.coded_bits,)
        llr = (1 - 2 * coded.astype(np.float32)) * 4
        for x in (llr, llr.astype(np.float64), llr.astype(np.int8)):
            out = dec(x)
            assert out.shape == shape and out.dtype == np.uint8
            assert np.array_equal(out, bits)
        assert np.array_equal(dec.hard(coded), bits)
    # Booleans and wider integers are bits too; a non-contiguous view is copied.
    bits = rng.integers(0, 2, (4, 128)).astype(bool)[:, ::2]
    assert np.array_equal(enc(bits), enc(bits.astype(np.uint8)))


def test_batches_past_max_batch_are_decoded_in_pieces():
    code = conv.Code(K=5, polys=(0o23, 0o35))
    rng = np.random.default_rng()
    llr = rng.normal(0, 2, (10, code.shape(50)[1])).astype(np.float32)
    whole = conv.Decoder(code, 50, backend="cpu", decoder="reference")(llr)
    pieces = conv.Decoder(code, 50, backend="cpu", decoder="reference", max_batch=3)
    assert pieces._plan.max_batch == 3
    assert np.array_equal(pieces(llr), whole)


@pytest.mark.parametrize("make, named", [
    (lambda: conv.Code(K=2), "K=2"),
    (lambda: conv.Code(K=7, polys="171,1x3"), "polys"),
    (lambda: conv.Code(K=7, rate="9/10"), "rate=9/10"),
    (lambda: conv.Code(term="nope"), "term"),
    (lambda: conv.Decoder(conv.Code(), 100, decoder="nope"), "decoder"),
    (lambda: conv.Decoder(conv.Code(), 100, backend="gpu"), "backend"),
    (lambda: conv.Decoder(conv.Code(), 100, tile="64,20,40"), "tile"),
    (lambda: conv.Decoder(conv.Code(), 100, llr_scale=-1), "llr_scale"),
    (lambda: conv.Decoder(conv.Code(), 0), "0"),
])
def test_bad_descriptions_raise_value_error_naming_the_value(make, named):
    with pytest.raises(ValueError) as caught:
        make()
    assert named in str(caught.value)


def test_bad_inputs_raise_with_a_message():
    code = conv.Code()
    enc, dec = conv.Encoder(code, 20), conv.Decoder(code, 20, backend="cpu")
    with pytest.raises(ValueError, match="last axis must hold 20"):
        enc(np.zeros((2, 21), np.uint8))
    with pytest.raises(ValueError, match="0 or 1"):
        enc(np.full((1, 20), 2, np.uint8))
    with pytest.raises(ValueError, match="0 or 1"):
        enc(np.full((1, 20), 256, np.int64))  # would wrap to 0 as uint8
    with pytest.raises(TypeError):
        enc(np.zeros((1, 20), np.float32))
    llr = np.zeros((3, dec.coded_bits), np.float32)
    llr[2, 5] = np.nan
    with pytest.raises(ValueError, match="frame 2"):
        dec(llr)
    with pytest.raises(TypeError, match="hard"):
        dec(np.zeros((1, dec.coded_bits), np.uint8))
    with pytest.raises(ValueError):
        dec(np.float32(1.0))
    with pytest.raises(ValueError, match="ebn0"):
        gpufec.channel.awgn(np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="Eb/N0"):
        gpufec.channel.awgn(np.zeros(4, np.uint8), ebn0=float("nan"))


def test_cuda_without_a_device_raises_runtime_error(has_gpu):
    if has_gpu:
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(RuntimeError):
        conv.Decoder(conv.Code(), 100, backend="cuda")


def test_cuda_decides_as_the_cpus_tiled_decoder(has_gpu):
    if not has_gpu:
        pytest.skip("no CUDA device")
    code = conv.Code(K=7, polys=(0o171, 0o133))
    rng = np.random.default_rng()
    bits = rng.integers(0, 2, (50, 2000), dtype=np.uint8)
    llr = gpufec.channel.awgn(conv.Encoder(code, 2000)(bits), ebn0=2, rate=code.rate(2000),
                              seed=int(rng.integers(1 << 30)))
    gpu = conv.Decoder(code, 2000, backend="cuda", decoder="tiled", tile="64,20,40,16")
    cpu = conv.Decoder(code, 2000, backend="cpu", decoder="tiled", tile="64,20,40,16")
    assert gpu.backend == "cuda"
    assert np.array_equal(gpu(llr), cpu(llr))
    q = np.clip(np.rint(llr * 4), -127, 127).astype(np.int8)
    assert np.array_equal(gpu(q), cpu(q))


class HostDLPack:
    """A host array seen only through DLPack (as a PyTorch CPU tensor is)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class DeviceArray:
    """What a CUDA tensor shows: a DLPack device of type 2 (kDLCUDA)."""

    def __dlpack_device__(self):
        return (2, 0)


def test_host_arrays_come_through_dlpack_and_device_arrays_are_refused():
    code = conv.Code(K=5, polys=(0o23, 0o35))
    enc, dec = conv.Encoder(code, 40), conv.Decoder(code, 40, backend="cpu")
    bits = np.random.default_rng().integers(0, 2, (3, 40), dtype=np.uint8)
    llr = (1 - 2 * enc(bits).astype(np.float32)) * 3
    assert np.array_equal(enc(HostDLPack(bits)), enc(bits))
    assert np.array_equal(dec(HostDLPack(llr)), bits)
    with pytest.raises(TypeError, match="device arrays"):
        dec(DeviceArray())
    with pytest.raises(TypeError, match="device arrays"):
        gpufec.channel.awgn(DeviceArray(), ebn0=3)
