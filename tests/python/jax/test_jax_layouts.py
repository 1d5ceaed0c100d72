"""How pjrt_dlpack.jax reads an array's layout, on stand-ins for the three
forms JAX releases use (x.format.layout from 0.7, x.format.device_local_layout
in 0.6.2, x.layout.device_local_layout before): a layout DLPack describes
exactly becomes strides, anything else is refused with a message. Also the
refusal of a JAX older than the oldest tested."""
import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import pjrt_dlpack.jax as pjax


class Layout:
    def __init__(self, major_to_minor, tiling=(), bits=0, old=False):
        self.major_to_minor = major_to_minor
        if old:  # JAX before 0.7: private names
            self._tiling = tiling
            self._sub_byte_element_size_in_bits = bits
        else:
            self.tiling = tiling
            self.sub_byte_element_size_in_bits = bits


class Holder:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def array(layout, outer="format", inner="layout", shape=(3, 4), dtype=np.float32):
    """A stand-in with the array attribute `outer` holding `inner`."""
    cls = type("FakeArray", (), {outer: property(lambda self: Holder(**{inner: layout}))})
    x = cls()
    x.shape = shape
    x.dtype = np.dtype(dtype)
    return x


@pytest.mark.parametrize("outer,inner,old", [("format", "layout", False),
                                             ("format", "device_local_layout", True),
                                             ("layout", "device_local_layout", True)])
def test_every_form_is_read(outer, inner, old):
    assert pjax._strides(array(Layout((0, 1), old=old), outer, inner)) == (4, 1)
    assert pjax._strides(array(Layout((1, 0), old=old), outer, inner)) == (1, 3)


def test_trivial_tiles_are_row_major():
    assert pjax._strides(array(Layout((0, 1), tiling=((1,),)))) == (4, 1)


@pytest.mark.parametrize("name", ["int4", "uint4", "int2", "uint2"])
def test_packing_at_the_element_width_is_dlpack_s(name):
    # JAX 0.12 reports an int4 array's 4-bit packing; DLPack's int4 is packed.
    layout = Layout((1, 0), bits=ml_dtypes.iinfo(name).bits)
    assert pjax._strides(array(layout, dtype=getattr(ml_dtypes, name))) == (1, 3)


@pytest.mark.parametrize("layout,message", [
    (Layout((0, 1), tiling=((8, 128),)), "tiled"),
    (Layout((0, 1), tiling=((8, 128),), old=True), "tiled"),
    (Layout((0, 1), bits=4), "4-bit elements of float32"),
    (Layout((0, 0)), "not a permutation"),
    (Layout((0,)), "not a permutation"),
    (None, "no layout"),
    (Holder(), "no tiling or major_to_minor"),
])
def test_inexact_layouts_are_refused(layout, message):
    with pytest.raises(BufferError, match=message):
        pjax._strides(array(layout))


def test_no_known_form_is_refused():
    x = type("FakeArray", (), {})()
    x.shape = (2,)
    x.dtype = np.dtype(np.float32)
    with pytest.raises(BufferError, match="in no form this module reads"):
        pjax._strides(x)


def test_an_unreadable_layout_is_refused():
    def fail(self):
        raise NotImplementedError("UNIMPLEMENTED: no layouts here")
    x = type("FakeArray", (), {"format": property(fail)})()
    x.shape = (2,)
    x.dtype = np.dtype(np.float32)
    with pytest.raises(BufferError, match="cannot be read .*UNIMPLEMENTED"):
        pjax._strides(x)


def test_a_jax_older_than_tested_is_refused(tmp_path):
    fake = tmp_path / "jax"
    fake.mkdir()
    (fake / "__init__.py").write_text("__version__ = '0.4.34'\n__version_info__ = (0, 4, 34)\n")
    code = textwrap.dedent("""
        try:
            import pjrt_dlpack.jax
        except ImportError as e:
            print(e)
    """)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert "needs JAX 0.4.35 or newer; this is JAX 0.4.34" in out.stdout, out.stdout + out.stderr


def test_release_numbers():
    assert pjax._release_of("0.9.0.1") == (0, 9, 0, 1)
    assert pjax._release_of("0.10.2+local") == (0, 10, 2)
    assert pjax._release_of("0.11.0.dev20260101") == (0, 11, 0)


def test_the_stub_names_the_module():
    import ast

    stub = os.path.join(os.path.dirname(pjax.__file__), "jax.pyi")
    with open(stub) as f:
        tree = ast.parse(f.read())
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    assert names == set(pjax.__all__)


class FakeClient:
    def __init__(self, platform_version):
        self.platform_version = platform_version


class FakeDevice:
    def __init__(self, platform, version, hardware_id):
        self.platform = platform
        self.client = FakeClient(version)
        self.local_hardware_id = hardware_id


@pytest.mark.parametrize("platform,version,memory,expected", [
    # JAX 0.11's __dlpack_device__ for a oneAPI device: kDLOneAPI, its local
    # hardware id (JAX says "gpu" and tells oneAPI by the platform version).
    ("gpu", "oneapi level-zero 1.3", None, (14, 3)),
    ("gpu", "cuda 12080", None, (2, 3)),
    ("gpu", "cuda 12080", "pinned_host", (3, 0)),  # JAX 0.11: (3, 3)
    ("gpu", "rocm 60400", None, (10, 3)),
    ("xpu", "pjrt_ref xpu", "device", (14, 3)),
    ("xpu", "pjrt_ref xpu", "pinned_host", (1, 0)),
])
def test_dl_device_as_jax_would_give(platform, version, memory, expected):
    x = Holder(sharding=Holder(memory_kind=memory))
    assert tuple(pjax._dl_device(x, FakeDevice(platform, version, 3))) == expected


def test_an_unknown_gpu_is_refused():
    x = Holder(sharding=Holder(memory_kind=None))
    with pytest.raises(BufferError, match="platform 'gpu' has no DLPack device type"):
        pjax._dl_device(x, FakeDevice("gpu", "something else", 0))


def test_from_shards_names_what_is_wrong():
    import jax
    import numpy as np

    cpu = jax.devices("cpu")[0]
    # Its own single-device sharding (JAX 0.12 deprecates building one by hand).
    x = jax.device_put(np.arange(4, dtype=np.float32), cpu)
    sharding = x.sharding
    with pytest.raises(TypeError, match="tensors with a .device"):
        pjax.from_shards([pjax.export(x)], sharding)
    with pytest.raises(ValueError, match="one tensor for each addressable device"):
        pjax.from_shards({}, sharding)
    with pytest.raises(TypeError, match="pass shape="):
        pjax.from_shards({cpu: pjax.export(x)}, sharding)
    y = pjax.from_shards({cpu: pjax.export(x)}, sharding, shape=(4,))
    assert np.array_equal(np.asarray(y), np.arange(4)) and y.shape == (4,)
    (only,) = pjax.export_shards(x)
    assert only.device == cpu and only.replica_id == 0
