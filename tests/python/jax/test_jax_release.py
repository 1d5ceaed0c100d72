"""pjrt_dlpack.jax on the JAX release of this environment: one child process
(jax_child.py) runs every scenario with the reference plugin as `xpu` (two
devices) and JAX's CPU backend with four devices; each test checks one
scenario against what this release can do. What needs a newer release than
this one must fail with an error naming that release."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(plugin, *args):
    proc = subprocess.run([sys.executable, os.path.join(HERE, "jax_child.py"), plugin, *args],
                          capture_output=True, text=True, timeout=600)
    return proc


@pytest.fixture(scope="module")
def results(ref_plugin_file):
    proc = run_child(ref_plugin_file)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"child failed ({proc.returncode}):\n" \
        f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def needs(release, value, minimum, what):
    """value is a success when release >= minimum, else the error naming it."""
    if release >= minimum:
        return True
    text = ".".join(map(str, minimum))
    assert isinstance(value, str) and f"needs JAX {text} or newer" in value and what in value, value
    return False


def test_module_imports(results):
    assert results["import"] is True


def test_jax_loads_the_plugin_with_two_devices(results):
    assert results["xpu_devices"] == ["xpu:0", "xpu:1"]
    assert results["xpu_roundtrip"] is True


def test_export_on_xpu_is_oneapi_zero_copy(results):
    assert results["xpu_export"] == {"same_pointer": True, "device": [14, 1], "shape": [3, 4],
                                     "strides": [4, 1]}


def test_export_on_cpu_is_zero_copy(results):
    assert results["cpu_devices"] == 4
    assert results["cpu_export"] == {"same_pointer": True, "device": [1, 0], "shape": [3, 4],
                                     "strides": [4, 1]}
    assert results["cpu_numpy"] == [True, True]


@pytest.mark.parametrize("where", ["xpu", "cpu"])
def test_copy_true_is_a_real_copy(results, where):
    # Written through: before JAX 0.6 device_put(may_alias=False) aliases.
    assert results[f"{where}_copy"] == {"new_memory": True, "flagged_copied": True,
                                        "same_values": True, "original_unchanged": True}


def test_layout_is_read_where_this_release_keeps_it(results, jax_release):
    expected = ("format.layout" if jax_release >= (0, 7) else
                "format.device_local_layout" if jax_release >= (0, 6, 2) else
                "layout.device_local_layout")
    assert results["layout_path"] == expected


def test_client_needs_unsafe_client_pointer(results, jax_release):
    if needs(jax_release, results["xpu_client"], (0, 10, 1), "PJRT client"):
        assert results["xpu_client"] == "xpu"
        assert results["xpu_view"] is True
        assert results["cpu_client"].startswith("ValueError") and "C API" in results["cpu_client"]
    else:
        assert "0.10.1" in results["cpu_client"]


def test_cpu_tensors_come_back_into_jax(results):
    assert results["cpu_to_jax"][1:] == [True, True]
    assert results["cpu_to_jax"][0] in ("cpu:2", "TFRT_CPU_2")


def test_xpu_tensors_come_back_into_jax(results, jax_release):
    if needs(jax_release, results["xpu_to_jax"], (0, 10, 2), "device type 14"):
        assert results["xpu_to_jax"] == ["xpu:1", True, True]


def test_jax_reads_a_library_buffer(results):
    assert results["jax_from_library"] is True


def test_a_sharded_array_is_refused_by_export(results):
    assert results["xpu_sharded_export"].startswith("BufferError")
    assert "export_shards" in results["xpu_sharded_export"]


def test_export_shards_on_four_cpu_devices(results):
    shards = results["cpu_shards"]
    assert len(shards) == 4
    assert all(s["same_pointer"] and s["device"] == [1, 0] and s["shape"] == [2, 4]
               for s in shards)
    assert sorted(s["index"] for s in shards) == sorted(
        f"(slice({r}, {r + 2}, None), slice({c}, {c + 4}, None))" for r in (0, 2) for c in (0, 4))


def test_export_shards_on_two_xpu_devices(results):
    shards = results["xpu_shards"]
    assert [s["device"] for s in shards] == [[14, 0], [14, 1]]
    assert all(s["same_pointer"] and s["shape"] == [3, 2] and s["strides"] == [2, 1]
               for s in shards)


def test_from_shards_on_cpu_is_zero_copy(results):
    assert results["cpu_from_shards"] == {"values": True, "shape": [4, 8],
                                          "zero_copy": [True] * 4}


def test_from_shards_on_xpu(results, jax_release):
    if needs(jax_release, results["xpu_from_shards"], (0, 10, 2), "device type 14"):
        assert results["xpu_from_shards"] == {"values": True, "shape": [3, 4],
                                              "zero_copy": [True, True]}


def test_the_example(results, jax_release):
    ex = results["example"]
    if jax_release >= (0, 10, 2):
        assert ex["returncode"] == 0, ex
    else:  # a clean refusal naming the release it needs, no abort
        needed = "0.10.2" if jax_release >= (0, 10, 1) else "0.10.1"
        assert ex["returncode"] == 1, ex
        assert f"needs JAX {needed} or newer" in ex["stderr"], ex


def test_jax_own_export_where_it_gives_the_tensor(results, jax_release):
    """pjax.to_dlpack hands out JAX's own tensor where JAX gives the one
    asked for: a legacy capsule from 0.11, a read-only versioned one from
    0.12 (JAX flags every versioned tensor read-only); a writable versioned
    one, and anything on a platform JAX does not export (xpu), is ours."""
    own = {"legacy": jax_release >= (0, 11), "read_only": jax_release >= (0, 12),
           "writable": False}
    assert results["cpu_whose_export"] == {k: "jax" if v else "ours" for k, v in own.items()}
    assert results["xpu_whose_export"] == dict.fromkeys(own, "ours")


def test_jax_dlpack_and_ours_side_by_side(results, jax_release):
    """The same array through JAX's own __dlpack__ and through ours: the
    same tensor, row-major and column-major (a Format, from JAX 0.7); a
    library buffer back into JAX through jax.dlpack.from_dlpack and through
    pjax.from_dlpack: zero-copy and equal, both orders."""
    out = results["export_side_by_side"]
    assert out["row_major"] == {"same_tensor": True, "strides": [4, 1]}
    if jax_release >= (0, 7):
        assert out["column_major"] == {"same_tensor": True, "strides": [1, 3]}
    else:
        assert out["column_major"] in ("n/a", {"same_tensor": True, "strides": [1, 3]})
    both = results["import_side_by_side"]
    assert both["row_major"] == [[True, True], [True, True]]
    # Some releases before 0.11 (0.7.2 among them) refuse a column-major
    # tensor: then JAX's own import and ours refuse it alike. 0.6.1 to
    # 0.7.1 make a row-major array over its memory, zero-copy, so JAX's own
    # import gives wrong values: ours refuses it (BufferError).
    theirs, ours = both["column_major"]
    if jax_release >= (0, 11) or theirs == [True, True]:
        assert theirs == ours == [True, True]
    elif theirs == [True, False]:
        assert (0, 6, 1) <= jax_release < (0, 7, 2), both
        assert isinstance(ours, str) and "values would be wrong" in ours, both
    else:
        assert "non-default layout" in theirs and "non-default layout" in ours, both
