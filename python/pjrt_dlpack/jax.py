"""DLPack for JAX arrays on every PJRT platform.

JAX exports DLPack only from platforms named cpu, cuda or rocm, and imports
only a fixed list of device types. This module exports any single-device
``jax.Array``, on any platform (a plugin platform such as ``xpu`` included),
as a DLPack tensor whose device type comes from pjrt_dlpack's platform
registry (``xpu`` is ``kDLOneAPI``), and wraps the PJRT client JAX itself
created for a C-API platform, so that DLPack tensors imported for that
platform become buffers of JAX's own client.

    import pjrt_dlpack.jax as pjax
    t = pjax.export(x)                 # has __dlpack__ / __dlpack_device__
    buf = pjax.client(x).from_dlpack(t)  # a view on JAX's own PJRT client

What cannot be done from outside JAX (no public API gives it):

- a ``PJRT_Buffer*`` for a ``jax.Array``: the export describes the array's
  memory (``unsafe_buffer_pointer()``) and keeps the ``jax.Array`` alive
  instead of pinning the PJRT buffer, so ``x.delete()`` or donating ``x``
  while a tensor is alive frees memory the consumer still reads;
- a ``jax.Array`` from a ``PJRT_Buffer*``: buffers imported through
  :func:`client` are pjrt_dlpack Buffers of JAX's client, not
  ``jax.Array``s. :func:`from_dlpack` makes a ``jax.Array`` from a DLPack
  tensor on any platform, but only through a private jaxlib function;
- ordering on the consumer's stream: JAX exposes no ready event, so the
  export waits (``block_until_ready``) and the data is complete before any
  consumer stream runs.

See python/README.md, section "JAX".
"""

import threading

import jax

from . import _pjrt_dlpack as _core

__all__ = [
    "ExportedArray",
    "client",
    "dlpack_device",
    "export",
    "from_dlpack",
    "plugin",
    "to_dlpack",
]

_lock = threading.Lock()
# Wrapped JAX clients by backend name: (JAX backend, pjrt_dlpack.Client). The
# backend object is kept so that JAX's PJRT client outlives the wrapper and
# every buffer imported into it (jax.clear_backends() drops JAX's reference,
# not this one).
_clients = {}
_plugins = {}


# ------------------------------------------------------------------ export


def _single_device(x):
    if not isinstance(x, jax.Array):
        raise TypeError(f"expected a jax.Array, not {type(x).__name__}")
    if x.is_deleted():
        raise BufferError("the jax.Array has been deleted")
    devices = x.devices()
    if len(devices) != 1:
        raise BufferError(
            f"the jax.Array is sharded over {len(devices)} devices; a DLPack tensor describes "
            "one memory: export each shard (x.addressable_shards[i].data)"
        )
    (device,) = devices
    return device


def _hardware_id(device):
    hw = getattr(device, "local_hardware_id", None)
    if hw is not None and hw >= 0:
        return int(hw)
    # As the library does for plugins without hardware ids: the device's
    # index among its client's devices.
    return list(device.client.local_devices()).index(device)


def _memory_kind(x):
    kind = getattr(x.sharding, "memory_kind", None)
    return kind if kind else None


def dlpack_device(x):
    """The ``(device_type, device_id)`` of a single-device ``jax.Array``.

    The device type comes from the library's platform registry for the array's
    platform and memory kind (``xpu`` device memory is ``kDLOneAPI``, its
    ``pinned_host`` memory ``kDLCPU``); teach it other platforms with
    :func:`pjrt_dlpack.register_platform`. Raises BufferError for a platform
    the registry does not know.
    """
    device = _single_device(x)
    return _dl_device(x, device)


def _dl_device(x, device):
    try:
        return _core.Client.platform_dl_device(device.platform, _memory_kind(x), _hardware_id(device))
    except _core.DLPackError as e:
        raise BufferError(
            f"platform '{device.platform}' has no DLPack device type in pjrt_dlpack's registry; "
            f"register it with pjrt_dlpack.register_platform('{device.platform}', <kDL...>): {e}"
        ) from None


def _strides(x):
    """Element strides from the array's layout; None when JAX reports none."""
    shape = tuple(x.shape)
    try:
        layout = x.format.layout
    except Exception:  # platforms without layouts: JAX arrays are row-major there
        layout = None
    order = tuple(range(len(shape)))  # major to minor
    if layout is not None:
        tiling = tuple(getattr(layout, "tiling", ()) or ())
        if tiling and any(tuple(t) != (1,) * len(t) for t in tiling):
            raise BufferError(f"the array's layout is tiled ({tiling}); DLPack has no tiles")
        m2m = getattr(layout, "major_to_minor", None)
        if m2m is not None:
            order = tuple(m2m)
    strides = [0] * len(shape)
    step = 1
    for dim in reversed(order):
        strides[dim] = step
        step *= max(shape[dim], 1)
    return strides


def to_dlpack(x, *, max_version=None, read_only=False, copy=None):
    """A DLPack capsule for a single-device ``jax.Array`` on any platform.

    The capsule describes the array's own memory (zero-copy), on the device
    type of :func:`dlpack_device`. It holds a reference to ``x`` until the
    consumer's deleter runs (on any thread). The array is ready before this
    returns (``block_until_ready``). ``max_version`` (a ``(major, minor)``
    tuple, as in ``__dlpack__``) selects a versioned ``dltensor_versioned``
    capsule when its major is at least 1, else a legacy ``dltensor``.
    ``read_only`` marks a versioned tensor read-only (JAX arrays are
    immutable; the default leaves it writable, as JAX's own ``__dlpack__``
    does, because pjrt_dlpack and most consumers cannot view read-only
    memory). ``copy=True`` exports a fresh copy made by JAX on the same
    device; ``copy=False`` and None never copy.
    """
    device = _single_device(x)
    dl = _dl_device(x, device)
    copied = False
    if copy:
        x = jax.device_put(x, x.sharding, may_alias=False)
        copied = True
    x.block_until_ready()
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    return _core.Client.external_dlpack(
        x.unsafe_buffer_pointer(),
        tuple(x.shape),
        x.dtype.name,
        _strides(x),
        dl,
        x,
        versioned=versioned,
        read_only=bool(read_only) and versioned,
        copied=copied and versioned,
    )


class ExportedArray:
    """A single-device ``jax.Array`` with the array API's DLPack methods.

    ``numpy.from_dlpack``, ``torch.from_dlpack`` and
    :func:`pjrt_dlpack.from_dlpack` take it. Each ``__dlpack__`` call makes a
    new tensor that keeps the array alive until its deleter runs.
    """

    __slots__ = ("array", "read_only")

    def __init__(self, array, *, read_only=False):
        _single_device(array)
        self.array = array
        self.read_only = read_only

    def __dlpack_device__(self):
        return dlpack_device(self.array)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if stream is not None and not isinstance(stream, int):
            raise TypeError(f"stream must be None or an int, not {type(stream).__name__}")
        # Any stream is fine: the export waits until the data is ready, so the
        # consumer's stream has nothing to wait for.
        if dl_device is not None and tuple(dl_device) != tuple(self.__dlpack_device__()):
            raise BufferError(
                f"dl_device={tuple(dl_device)}: the array is on {self.__dlpack_device__()}; "
                "move it with jax.device_put first"
            )
        return to_dlpack(self.array, max_version=max_version, read_only=self.read_only, copy=copy)

    def __repr__(self):
        return f"<pjrt_dlpack.jax.ExportedArray {self.array.dtype}{list(self.array.shape)} on " \
               f"{next(iter(self.array.devices()))}>"


def export(x, *, read_only=False):
    """Wraps a single-device ``jax.Array`` as an :class:`ExportedArray`."""
    return ExportedArray(x, read_only=read_only)


# ----------------------------------------------------- JAX's own clients


def _backend_of(target):
    """(name, backend) for a backend name or platform, a jax Device or Array."""
    from jax._src import xla_bridge

    backends = xla_bridge.backends()
    if isinstance(target, jax.Array):
        target = _single_device(target)
    if isinstance(target, str):
        if target in backends:
            return target, backends[target]
        for name, be in backends.items():
            if be.platform == target:
                return name, be
        raise ValueError(f"JAX has no backend or platform '{target}' (it has {sorted(backends)})")
    be = getattr(target, "client", None)
    for name, candidate in backends.items():
        if candidate is be:
            return name, candidate
    raise TypeError(f"expected a backend name, a platform, a jax Device or Array, not {target!r}")


def plugin(target):
    """The pjrt_dlpack Plugin on the ``PJRT_Api`` JAX loaded for a backend.

    ``target``: a backend name (the name in ``PJRT_NAMES_AND_LIBRARY_PATHS``
    or the ``jax_plugins`` package), a platform, a jax Device or Array. The
    table comes from JAX's plugin registry (``xla_bridge``, not a public
    API); it is not initialized again.
    """
    from jax._src import xla_bridge

    name, _ = _backend_of(target)
    with _lock:
        if name in _plugins:
            return _plugins[name]
        registration = getattr(xla_bridge, "_backend_factories", {}).get(name)
        capsule = getattr(registration, "c_api", None)
        if capsule is None:
            raise ValueError(
                f"JAX backend '{name}' was not loaded from a PJRT C API plugin (built-in "
                "backends have no PJRT_Api)"
            )
        p = _core.Plugin.from_api(capsule)
        _plugins[name] = p
        return p


def client(target):
    """A pjrt_dlpack Client on the PJRT client JAX created for a backend.

    Only backends that JAX drives through the PJRT C API have one (plugin
    platforms; not JAX's built-in cpu). Tensors imported with
    ``client(...).from_dlpack(t)`` are buffers of JAX's own client: a tensor
    exported from a JAX array of that platform comes back as a view of the
    same memory. The wrapper and JAX's backend are kept for the life of the
    process.
    """
    name, be = _backend_of(target)
    with _lock:
        if name in _clients:
            return _clients[name][1]
    address = be.unsafe_client_pointer
    if callable(address):  # a method in some jaxlib versions, a property in others
        address = address()
    if not address:
        raise ValueError(
            f"JAX backend '{name}' is not a PJRT C API client (JAX reports no PJRT_Client*); "
            "only plugin platforms can be wrapped"
        )
    p = plugin(name)
    c = _core.Client.wrap(p, int(address))
    with _lock:
        if name not in _clients:
            _clients[name] = (be, c)
        return _clients[name][1]


# ------------------------------------------------------------- import


def _jax_device_for(dl):
    """The JAX device whose memory has DLDevice ``dl``, or None."""
    from jax._src import xla_bridge

    for be in xla_bridge.backends().values():
        for device in be.local_devices():
            try:
                mine = _core.Client.platform_dl_device(device.platform, None, _hardware_id(device))
            except _core.Error:
                continue
            if tuple(mine) == tuple(dl):
                return device
    return None


def from_dlpack(x, device=None):
    """A ``jax.Array`` viewing a DLPack tensor on any platform (experimental).

    ``x`` has ``__dlpack__`` and ``__dlpack_device__`` (a pjrt_dlpack Buffer
    of :func:`client`, an :class:`ExportedArray`, ...). ``device`` is the JAX
    device to place it on; by default the device whose DLDevice (by the
    library's registry) is the tensor's. JAX's public ``jax.dlpack.from_dlpack``
    refuses device types outside its fixed list (``kDLOneAPI`` among them);
    this calls the private jaxlib function behind it, which works for any
    device of a C-API platform whose plugin can view the memory
    (``PJRT_Client_CreateViewOfDeviceBuffer``) -- memory of JAX's own client,
    such as a buffer of :func:`client`. Private: it may change with any
    jaxlib release, and raises NotImplementedError where it is missing.
    """
    from jax._src.lib import _jax

    impl = getattr(_jax, "dlpack_managed_tensor_to_buffer", None)
    if impl is None:
        raise NotImplementedError("this jaxlib has no dlpack_managed_tensor_to_buffer")
    dl = tuple(x.__dlpack_device__())
    if device is None:
        device = _jax_device_for(dl)
        if device is None:
            raise BufferError(f"no JAX device has DLDevice {dl}; pass device=")
    # JAX's own consumer asks for a legacy capsule (no max_version); the
    # private function reads that form.
    capsule = x.__dlpack__()
    try:
        return impl(capsule, device, None, False, int(dl[0]))
    except TypeError:  # jaxlib before the device-type argument
        raise NotImplementedError(
            "this jaxlib's dlpack_managed_tensor_to_buffer does not take a device type"
        ) from None
