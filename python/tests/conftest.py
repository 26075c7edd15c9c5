"""Shared fixtures: the command-line program built beside the package (GPUFEC_CLI), run with the
same options, so that tests compare gpufec.simulate with `gpufec simulate`."""

import json
import os
import shutil
import subprocess

import pytest


def _cli_path():
    path = os.environ.get("GPUFEC_CLI") or shutil.which("gpufec")
    return path if path and os.path.exists(path) else None


@pytest.fixture(scope="module")
def cli_path():
    """The command-line program's path (the tests that compare with it skip without one)."""
    path = _cli_path()
    if path is None:
        pytest.skip("no gpufec program to compare with (set GPUFEC_CLI)")
    return path


@pytest.fixture(scope="module")
def run_cli(cli_path):
    """run_cli(*words): runs `gpufec WORDS...`, which must succeed (its output on failure)."""

    def run(*words):
        done = subprocess.run([cli_path, *words], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    return run


@pytest.fixture(scope="module")
def cli():
    """cli(words, tmp_path) -> (status, JSON dict or None, output text)."""
    path = _cli_path()
    if path is None:
        pytest.skip("no gpufec program to compare with (set GPUFEC_CLI)")

    def run(words, tmp_path):
        out = os.path.join(tmp_path, "cli.json")
        done = subprocess.run([path, *words, "--json", out], capture_output=True, text=True,
                              timeout=300)
        result = None
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                result = json.load(f)
        return done.returncode, result, done.stdout + done.stderr

    return run


@pytest.fixture(scope="module")
def has_gpu():
    import gpufec

    return gpufec.build_info()["cuda"] and len(gpufec.cuda_devices()) > 0
