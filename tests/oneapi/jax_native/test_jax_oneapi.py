"""JAX 0.11.2 on Intel's oneAPI PJRT plugin over ze_sim, JAX's own DLPack
and pjrt_dlpack.jax side by side (jax_oneapi_child.py runs every scenario in
one child process; each test checks one). Run by ctest as
python_jax_oneapi in the JAX matrix's environment of JAX 0.11.2 on Python
3.13 (scripts/jax-env.sh, entry 0.11.2-py3.13), with the plugin's package on
PYTHONPATH (JAX finds it as jax_plugins.xla_oneapi), ze_sim and the
plugin's runtime on LD_LIBRARY_PATH and the plugin in PJRT_ONEAPI_PLUGIN.
Nothing skips: a missing plugin, runtime or package fails."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICE = [14, 0]  # kDLOneAPI, ze_sim's GPU 0


@pytest.fixture(scope="module")
def results():
    plugin = os.environ.get("PJRT_ONEAPI_PLUGIN")
    assert plugin and os.path.exists(plugin), f"PJRT_ONEAPI_PLUGIN is {plugin!r}"
    proc = subprocess.run([sys.executable, os.path.join(HERE, "jax_oneapi_child.py")],
                          capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"child failed ({proc.returncode}):\n" \
        f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def exported(capsule, maker, flags=None):
    return {"capsule": capsule, "device": DEVICE, "zero_copy": True, "shape": [3, 4],
            "strides": [4, 1], "flags": flags, "maker": maker}


def test_jax_drives_the_plugin_on_ze_sim(results):
    assert results["jax"] == "0.11.2"
    assert results["devices"] == ["oneapi:0"]
    assert results["platform"][0] == "gpu" and "oneapi" in results["platform"][1]
    assert results["roundtrip"] is True


def test_jax_exports_oneapi_legacy_only(results):
    """JAX 0.11 exports kDLOneAPI itself, as legacy capsules whatever the
    consumer asks (its DLPack is 0.8), pinning the PJRT buffer."""
    assert results["jax_export"] == exported("dltensor", "jax")
    assert results["jax_export_v1"] == exported("dltensor", "jax")
    copy = results["jax_export_copy"]
    assert copy["device"] == DEVICE and copy["zero_copy"] is False


def test_pjrt_dlpack_jax_uses_jax_s_export_where_it_is_the_same(results):
    """Asked for a legacy capsule, pjrt_dlpack.jax hands out JAX's own; asked
    for DLPack 1.x, its own versioned tensor (writable, copied flagged)."""
    assert results["ours_export"] == exported("dltensor", "jax")
    assert results["ours_export_v1"] == exported("dltensor_versioned", "ours", flags=0)
    copy = results["ours_export_copy"]
    assert copy["zero_copy"] is False and copy["flags"] == 2 and copy["device"] == DEVICE


def test_into_pjrt_dlpack_buffers(results):
    """An array into JAX's own client, zero-copy, from either export; into a
    client of the library's own on the same plugin, the values."""
    for way in ("jax", "ours"):
        assert results[f"{way}_to_jax_client"] is True
        assert results[f"{way}_to_own_client"] is True


@pytest.mark.parametrize("source", ["view", "jax_client", "own_client"])
def test_back_into_jax_zero_copy(results, source):
    """pjrt_dlpack buffers (a view of a JAX array, a new buffer of JAX's
    client, a buffer of the library's own client) into JAX through
    jax.dlpack.from_dlpack and through pjrt_dlpack.jax.from_dlpack: the same
    device, zero-copy, the same values."""
    want = {"device": "oneapi:0", "zero_copy": True, "values": True}
    assert results[f"jax_from_{source}"] == want
    assert results[f"ours_from_{source}"] == want


def test_pinned_host_memory(results):
    """pinned_host memory: JAX says kDLOneAPI (USM host memory, which NumPy
    cannot read through it), the library's registry kDLCPU, which NumPy
    reads zero-copy."""
    assert results["pinned_jax_device"] == DEVICE
    assert results["pinned_ours_device"] == [1, 0]
    assert results["pinned_jax_numpy"].startswith("BufferError")
    assert results["pinned_ours_numpy"] is True


def test_timings_were_taken(results):
    """Per-call costs, side by side (python/README.md shows them; the
    benchmarks own any comparison)."""
    for key in ("us_jax_export", "us_ours_export", "us_ours_export_v1", "us_jax_from_dlpack",
                "us_ours_from_dlpack"):
        assert isinstance(results[key], float) and results[key] > 0, (key, results[key])
