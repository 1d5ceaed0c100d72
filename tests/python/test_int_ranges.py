"""Every Python integer that crosses into C is range-checked (issue 20,
defect 4): a value that does not fit the C type it becomes is refused with
the documented class, naming the argument, never cast (a device id of 2**32
was device 0). The DLPack protocol's arguments raise DLPackError (a
BufferError); other arguments OverflowError."""
import numpy as np
import pytest

import pjrt_dlpack

BIG = 2 ** 32
HUGE = 2 ** 64
ONEAPI = pjrt_dlpack.kDLOneAPI


@pytest.fixture
def xbuf(xpu):
    """A buffer in xpu device memory: DLDevice (kDLOneAPI, 0)."""
    buf = xpu.buffer(np.arange(4, dtype=np.float32), device=xpu.devices[0])
    assert buf.__dlpack_device__() == (ONEAPI, 0)
    return buf


def refused(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value), str(info.value)
    assert "out of range" in str(info.value) or "not an address" in str(info.value)


@pytest.mark.parametrize("kwargs, name", [
    (dict(dl_device=(ONEAPI, BIG), copy=False), "dl_device[1]"),
    (dict(dl_device=(ONEAPI + BIG, 0), copy=False), "dl_device[0]"),
    (dict(dl_device=(ONEAPI, -BIG)), "dl_device[1]"),
    (dict(max_version=(-1, 0)), "max_version[0]"),
    (dict(max_version=(1, -1)), "max_version[1]"),
    (dict(stream=HUGE), "stream"),
    (dict(stream=-HUGE), "stream"),
])
@pytest.mark.parametrize("method", ["__dlpack__", "release_to_dlpack"])
def test_dlpack_arguments_out_of_range(xbuf, kwargs, name, method):
    refused(lambda: getattr(xbuf, method)(**kwargs), BufferError, name)
    assert not xbuf.is_deleted


@pytest.mark.parametrize("max_version", [(2, 0), (BIG + 1, 0), (HUGE, HUGE), (1, BIG)])
def test_a_newer_max_version_gets_our_newest(xbuf, max_version):
    # Issue 38 (7): a consumer that reads a newer major than ours gets our
    # newest version, however large its numbers: clamped, not refused.
    capsule = xbuf.__dlpack__(max_version=max_version)
    assert "dltensor_versioned" in repr(capsule)
    assert not xbuf.is_deleted


def test_dl_device_in_range_still_works(xbuf):
    capsule = xbuf.__dlpack__(dl_device=(ONEAPI, 0), copy=False, max_version=(1, 3))
    assert type(capsule).__name__ == "PyCapsule"


class Producer:
    """Exports `buf`, but says its device is `device`."""

    def __init__(self, buf, device):
        self.buf, self.device = buf, device

    def __dlpack__(self, **kwargs):
        return self.buf.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.device


@pytest.mark.parametrize("device, name", [
    ((ONEAPI, BIG), "__dlpack_device__()[1]"),
    ((ONEAPI + BIG, 0), "__dlpack_device__()[0]"),
])
def test_producer_device_out_of_range(xpu, xbuf, device, name):
    refused(lambda: xpu.from_dlpack(Producer(xbuf, device)), BufferError, name)


def external(**overrides):
    owner = np.arange(4, dtype=np.float32)
    args = dict(data=owner.ctypes.data, shape=(4,), dtype="float32", strides=None,
                dl_device=(pjrt_dlpack.kDLCPU, 0), owner=owner)
    args.update(overrides)
    return pjrt_dlpack.Client.external_dlpack(**args)


@pytest.mark.parametrize("overrides, name", [
    (dict(dl_device=(ONEAPI, BIG)), "dl_device[1]"),
    (dict(dl_device=(ONEAPI + BIG, 0)), "dl_device[0]"),
    (dict(shape=(HUGE,)), "shape[0]"),
    (dict(shape=(4, -HUGE)), "shape[1]"),
    (dict(strides=(HUGE,)), "strides[0]"),
    (dict(data=-1), "data"),
    (dict(data=HUGE), "data"),
])
def test_external_dlpack_arguments_out_of_range(overrides, name):
    refused(lambda: external(**overrides), OverflowError, name)


def test_module_and_client_arguments_out_of_range(plugin, cpu):
    refused(lambda: pjrt_dlpack.register_platform("wide", BIG), OverflowError, "device_type")
    refused(lambda: pjrt_dlpack.register_platform("wide", ONEAPI, -BIG), OverflowError,
            "host_memory_type")
    refused(lambda: pjrt_dlpack.Client.platform_dl_device("xpu", None, BIG), OverflowError,
            "hardware_id")
    refused(lambda: cpu.set_wait_timeout(2 ** 63), OverflowError, "set_wait_timeout")
    refused(lambda: plugin.client(platform="cpu", wide=HUGE), OverflowError,
            "client option 'wide'")
    refused(lambda: plugin.client(platform="cpu", wide=[1, -HUGE]), OverflowError,
            "client option 'wide'")
    refused(lambda: pjrt_dlpack.Client.wrap(plugin, -1), OverflowError, "address")
    refused(lambda: pjrt_dlpack.Plugin.from_api(HUGE), OverflowError, "address")


def test_integer_arguments_must_be_integers(xbuf):
    with pytest.raises(TypeError, match="dl_device"):
        xbuf.__dlpack__(dl_device=(ONEAPI, 0.0))
    with pytest.raises(TypeError, match="stream"):
        xbuf.__dlpack__(stream="0")
