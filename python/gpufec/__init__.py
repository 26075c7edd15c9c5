"""gpufec: fast decoders for channel codes, GPU first, with an exact CPU reference.

    import gpufec
    result = gpufec.simulate("conv", K=7, polys="171,133", ebn0=[3, 4], max_fe=300, seed=3,
                             backend="cpu")
    for p in result["points"]:
        print(p["point"], p["ber"], p["fer"])

`simulate` takes the command line's options as keyword arguments and returns the dict that
`gpufec simulate ... --json` writes; `gpufec.conv`, `gpufec.polar` and `gpufec.sync` hold codes,
encoders and decoders on numpy arrays, `gpufec.channel` the AWGN and BSID channels with the command
line's frames (docs/python.md).
"""

from . import _core, channel, conv, polar, sync
from ._simulate import simulate

__all__ = ["simulate", "conv", "polar", "sync", "channel", "build_info", "cuda_devices", "__version__"]


def build_info() -> dict:
    """Version, git commit, build type and the CUDA backend's build (as `gpufec info`)."""
    return _core.build_info()


def cuda_devices() -> list:
    """The CUDA devices this process can use, as dicts (an empty list without one)."""
    return _core.cuda_devices()


__version__: str = _core.build_info()["version"]
