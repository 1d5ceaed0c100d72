"""DLPack for JAX arrays on every PJRT platform.

JAX exports DLPack only from the platforms it knows (cpu; cuda, rocm and,
from 0.11, oneapi), and imports only a fixed list of device types. This
module exports any single-device ``jax.Array``, on any platform (a plugin
platform such as ``xpu`` included), as a DLPack tensor whose device type
comes from pjrt_dlpack's platform registry (``xpu`` is ``kDLOneAPI``), and
wraps the PJRT client JAX itself created for a C-API platform, so that
DLPack tensors imported for that platform become buffers of JAX's own
client. A sharded array goes out one tensor per shard
(:func:`export_shards`) and comes back from one tensor per device
(:func:`from_shards`). Where JAX 0.11+ exports an array itself as asked, its
own tensor is handed out (:func:`to_dlpack`). Tested with every JAX release
from 0.4.35 to 0.12.1; what a release lacks raises NotImplementedError
naming the release that has it.

    import pjrt_dlpack.jax as pjax
    t = pjax.export(x)                 # has __dlpack__ / __dlpack_device__
    buf = pjax.client(x).from_dlpack(t)  # a view on JAX's own PJRT client

What cannot be done from outside JAX (no public API gives it):

- a ``PJRT_Buffer*`` for a ``jax.Array``: the export describes the array's
  memory (``unsafe_buffer_pointer()``) and keeps the ``jax.Array`` alive
  instead of pinning the PJRT buffer, so ``x.delete()`` or donating ``x``
  while a tensor is alive frees memory the consumer still reads (except
  where JAX exports the array itself, cpu, cuda and rocm: there JAX's own
  tensor is handed out, which pins it);
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
import numpy as np

from . import _pjrt_dlpack as _core

__all__ = [
    "ExportedArray",
    "ExportedShard",
    "MINIMUM_JAX",
    "client",
    "dlpack_device",
    "export",
    "export_shards",
    "from_dlpack",
    "from_shards",
    "plugin",
    "to_dlpack",
]

# The oldest JAX this module is tested with (scripts/jax-matrix.txt); older
# releases are refused at import. Features that need a newer JAX say which.
MINIMUM_JAX = (0, 4, 35)


def _release_of(text):
    parts = []
    for part in text.split("+")[0].split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits or digits != part:
            break
        parts.append(int(digits))
    return tuple(parts)


_JAX = tuple(getattr(jax, "__version_info__", None) or _release_of(jax.__version__))
if _JAX < MINIMUM_JAX:
    raise ImportError(
        f"pjrt_dlpack.jax needs JAX {'.'.join(map(str, MINIMUM_JAX))} or newer; this is JAX "
        f"{jax.__version__}"
    )


def _needs(release, what):
    """NotImplementedError for a feature this JAX release does not have."""
    return NotImplementedError(
        f"{what} needs JAX {release} or newer; this is JAX {jax.__version__}"
    )


_lock = threading.Lock()
# Wrapped JAX clients by backend name: (JAX backend, pjrt_dlpack.Client). The
# backend object is kept so that JAX's PJRT client outlives the wrapper and
# every buffer imported into it (jax.clear_backends() drops JAX's reference,
# not this one).
_clients = {}
_plugins = {}


# ------------------------------------------------------------------ export


# Types found to be jax.Array subclasses: isinstance against the ABC costs
# more than the rest of a cached export's checks (a type, once registered,
# stays registered).
_array_types = set()


def _check_array(x):
    if type(x) not in _array_types:
        if not isinstance(x, jax.Array):
            raise TypeError(f"expected a jax.Array, not {type(x).__name__}")
        _array_types.add(type(x))
    if x.is_deleted():
        raise BufferError("the jax.Array has been deleted")


def _single_device(x):
    _check_array(x)
    devices = x.devices()
    if len(devices) != 1:
        raise BufferError(
            f"the jax.Array is sharded over {len(devices)} devices; a DLPack tensor describes "
            "one memory: use export_shards(x), one tensor per shard"
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
    return _export_facts(x)[1]


# Platforms whose arrays JAX exports itself (jax.Array.__dlpack__): oneapi
# from JAX 0.11.
_JAX_EXPORTS = ("cpu", "cuda", "rocm") + (("oneapi",) if _JAX >= (0, 11) else ())

# What an array's sharding says of its DLPack export, computed once per
# sharding and registry state (all that _dl_device reads): {id(sharding):
# (sharding, registry generation, device, DLDevice, whether JAX exports the
# platform itself)}. By identity, since a sharding's hash is computed in
# Python; the entry holds the sharding, so that its id is not reused while
# it is there.
_by_sharding = {}


def _export_facts(x):
    """(device, DLDevice, JAX exports it) of a single-device array, raising
    as _single_device and _dl_device do."""
    _check_array(x)
    sharding = x.sharding
    generation = _core._registry_generation()
    entry = _by_sharding.get(id(sharding))
    if entry is not None and entry[0] is sharding and entry[1] == generation:
        return entry[2:]
    device = _single_device(x)
    facts = (device, _dl_device(x, device), _platform_of(device) in _JAX_EXPORTS)
    if len(_by_sharding) >= 256:
        _by_sharding.clear()
    _by_sharding[id(sharding)] = (sharding, generation) + facts
    return facts


def _platform_of(device):
    """The registry name of a device's platform. JAX names CUDA, ROCm and
    oneAPI devices all "gpu"; as JAX 0.11's own __dlpack_device__ does, the
    client's platform_version says which ("oneapi" in it: kDLOneAPI)."""
    platform = device.platform
    if platform != "gpu":
        return platform
    version = getattr(device.client, "platform_version", None) or ""
    for name in ("cuda", "rocm", "oneapi"):
        if name in version:
            return name
    return platform


def _dl_device(x, device):
    platform = _platform_of(device)
    try:
        return _core.Client.platform_dl_device(platform, _memory_kind(x), _hardware_id(device))
    except _core.DLPackError as e:
        raise BufferError(
            f"platform '{platform}' has no DLPack device type in pjrt_dlpack's registry; "
            f"register it with pjrt_dlpack.register_platform('{platform}', <kDL...>): {e}"
        ) from None


def _runtime_errors():
    """The exception types jaxlib raises for a failed PJRT call."""
    from jax._src.lib import xla_client

    found = [getattr(jax.errors, "JaxRuntimeError", None),
             getattr(xla_client, "XlaRuntimeError", None)]
    return tuple(t for t in found if isinstance(t, type)) + (NotImplementedError,)


# Where each JAX release keeps a single-device array's device-local layout:
# (the array's attribute, that object's attribute), newest first.
_LAYOUT_PATHS = (
    ("format", "layout"),  # JAX 0.7 and later
    ("format", "device_local_layout"),  # JAX 0.6.2
    ("layout", "device_local_layout"),  # JAX 0.4.35 to 0.6.1
)
# Strides already computed, by (shape, dtype, layout), and NumPy's
# dtype.name, which NumPy computes in Python on every read: caches of pure
# functions of their keys, which leave the export JAX's attribute reads and
# the C call (bench/README.md).
_strides_of = {}
_dtype_names = {}


def _device_local_layout(x):
    """The array's device-local layout object; BufferError when unreadable."""
    for outer, inner in _LAYOUT_PATHS:
        if not hasattr(type(x), outer):
            continue
        try:
            holder = getattr(x, outer)
        except _runtime_errors() as e:
            raise BufferError(f"the array's layout cannot be read ({e}); not exported") from None
        if not hasattr(holder, inner):
            continue
        layout = getattr(holder, inner)
        if layout is None:
            raise BufferError("JAX reports no layout for the array; not exported")
        return layout
    raise BufferError(
        f"this JAX ({jax.__version__}) reports a single-device array's layout in no form this "
        "module reads (x.format.layout, x.format.device_local_layout, x.layout); not exported"
    )


def _element_bits(dtype):
    """The width of one element in bits (int4: 4, float8_e5m2: 8), from
    ml_dtypes (a dependency of jax), which knows NumPy's types too."""
    import ml_dtypes

    for info in (ml_dtypes.iinfo, ml_dtypes.finfo):
        try:
            return info(dtype).bits
        except (TypeError, ValueError):
            continue
    return np.dtype(dtype).itemsize * 8


def _strides(x):
    """Element strides of the array's layout; BufferError for any layout
    DLPack cannot describe exactly (tiled, packed other than at the element's
    own width, not a permutation)."""
    layout = _device_local_layout(x)
    try:
        key = (x.shape, x.dtype, layout)
        found = _strides_of.get(key)
    except TypeError:  # an unhashable layout: computed each time
        key, found = None, None
    if found is None:
        found = _layout_strides(tuple(x.shape), x.dtype, layout)
        if key is not None:
            if len(_strides_of) >= 256:
                _strides_of.clear()
            _strides_of[key] = found
    return found


def _layout_strides(shape, dtype, layout):
    tiling = getattr(layout, "tiling", getattr(layout, "_tiling", None))
    order = getattr(layout, "major_to_minor", None)
    if tiling is None or order is None:
        raise BufferError(f"the array's layout {layout!r} has no tiling or major_to_minor; "
                          "not exported")
    tiling = tuple(tuple(t) for t in tiling)
    if any(t != (1,) * len(t) for t in tiling):
        raise BufferError(f"the array's layout is tiled ({tiling}); DLPack has no tiles")
    bits = getattr(layout, "sub_byte_element_size_in_bits",
                   getattr(layout, "_sub_byte_element_size_in_bits", 0))
    # JAX 0.12 reports an int4 array's packing (4 bits), which is how DLPack's
    # 4-bit int is laid out too; packing at another width is not.
    if bits and bits != _element_bits(dtype):
        raise BufferError(f"the array's layout packs {bits}-bit elements of "
                          f"{np.dtype(dtype).name}; not exported")
    order = tuple(int(d) for d in order)
    if sorted(order) != list(range(len(shape))):
        raise BufferError(f"the array's layout major_to_minor {order} is not a permutation of "
                          f"its {len(shape)} dimensions; not exported")
    strides = [0] * len(shape)
    step = 1
    for dim in reversed(order):
        strides[dim] = step
        step *= max(shape[dim], 1)
    return tuple(strides)


def _dtype_name(dtype):
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = dtype.name
    return name


def _copy_on_device(x):
    """A new single-device array with x's values in new memory on x's device
    and memory kind. ``device_put(..., may_alias=False)`` copies from JAX
    0.6; before that it may hand back x's own buffer, and the copy goes
    through a fresh host array instead."""
    y = jax.device_put(x, x.sharding, may_alias=False)
    if y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer():
        return y
    y = jax.device_put(np.array(x, copy=True), x.sharding)
    if y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer():
        raise BufferError("JAX made no copy of the array (copy=True)")
    return y


def _jax_dlpack_version():
    """The DLPack version JAX's own export writes: (1, 3) from JAX 0.12 (a
    versioned tensor, always flagged read-only), (0, 8) before (legacy
    capsules only)."""
    try:
        from jax._src import dlpack as jax_dlpack
    except ImportError:
        return (0, 8)
    return tuple(getattr(jax_dlpack, "DLPACK_VERSION", (0, 8)))


# JAX 0.11 and later export the platforms JAX itself knows (cpu; cuda, rocm
# and oneapi gpu devices) with the device type this module's registry gives
# them, pinning the PJRT buffer for the tensor's life: their own export is
# used for those where it gives the tensor asked for (_jax_gives).
_JAX_OWN = _JAX >= (0, 11)
_JAX_DLPACK = _jax_dlpack_version()


def _jax_gives(x, dl, versioned, read_only):
    """Whether JAX's own ``__dlpack__`` gives x's tensor as asked: a legacy
    capsule (JAX 0.11+), or a versioned one asked read-only (JAX 0.12+ marks
    every versioned tensor read-only, so a writable one must be ours), of a
    dtype JAX exports (not its sub-byte ones) on the DLDevice ours would say
    (JAX says kDLOneAPI for oneapi pinned_host memory, the registry kDLCPU)."""
    if not _JAX_OWN or (versioned and (not read_only or _JAX_DLPACK < (1, 0))):
        return False
    import jax.dlpack

    if not jax.dlpack.is_supported_dtype(x.dtype):
        return False
    try:
        theirs = x.__dlpack_device__()
    except BufferError:  # a platform JAX does not export (xpu, tt, ...)
        return False
    return (int(theirs[0]), int(theirs[1])) == tuple(dl)


def to_dlpack(x, *, max_version=None, read_only=False, copy=None):
    """A DLPack capsule for a single-device ``jax.Array`` on any platform.

    The capsule describes the array's own memory (zero-copy), on the device
    type of :func:`dlpack_device`. The array is ready before this returns.
    ``max_version`` (a ``(major, minor)`` tuple, as in ``__dlpack__``)
    selects a versioned ``dltensor_versioned`` capsule when its major is at
    least 1, else a legacy ``dltensor``. ``read_only`` marks a versioned
    tensor read-only (JAX arrays are immutable; the default leaves it
    writable, as JAX before 0.12 hands them out, because pjrt_dlpack and most
    consumers cannot view read-only memory). ``copy=True`` exports a fresh
    copy made by JAX on the same device and memory; ``copy=False`` and None
    never copy. A layout DLPack cannot describe exactly (tiled, packed at
    another width than the element's) raises BufferError.

    On the platforms JAX exports itself (cpu, cuda, rocm; oneapi from JAX
    0.11) the tensor is JAX's own, made by the function its ``__dlpack__``
    ends in (``_jax_own_tensor``), for a legacy ask as JAX made it and
    wrapped for a versioned one, unless a copy is asked for or JAX's tensor
    is not the one described here. Where else JAX's own export gives the
    same tensor (JAX 0.11+: a legacy capsule, a copy included, or from 0.12
    a read-only versioned one), the capsule is JAX's. Either pins the PJRT
    buffer (``x.delete()`` cannot free the memory under the consumer).
    Otherwise the capsule holds a reference to ``x`` until the consumer's
    deleter runs (on any thread), after ``block_until_ready``.
    """
    return _export(x, _export_facts(x), max_version, read_only, copy)


def _export(x, facts, max_version, read_only, copy):
    """to_dlpack with x's _export_facts known."""
    device, dl, jax_exports = facts
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    if jax_exports and not copy:
        tensor = _jax_own_tensor(x, dl, versioned, bool(read_only) and versioned)
        if tensor is not None:
            return tensor
    _check_array(x)  # deleted since the facts were found
    if _jax_gives(x, dl, versioned, read_only):
        return x.__dlpack__(max_version=max_version if versioned else None, copy=copy)
    copied = False
    if copy:
        x = _copy_on_device(x)
        copied = True
    x.block_until_ready()
    strides = _strides(x)
    return _core.Client.external_dlpack(
        x.unsafe_buffer_pointer(),
        tuple(x.shape),
        _dtype_name(x.dtype),
        strides,
        dl,
        x,
        versioned=versioned,
        read_only=bool(read_only) and versioned,
        copied=copied and versioned,
    )


_exporter = []  # jaxlib's own export function (or None), once looked up


def _jax_export_function():
    """jaxlib's private buffer_to_dlpack_managed_tensor, which
    jax.Array.__dlpack__ calls after ~1.5 us of its own Python, or None."""
    _exporter.append(getattr(_jaxlib_module(), "buffer_to_dlpack_managed_tensor", None))
    return _exporter[0]


def _jax_own_tensor(x, dl, versioned, read_only):
    """JAX's own tensor of x, as to_dlpack hands it out, or None when JAX
    does not export it or not as this module would (another DLDevice than
    the registry's, a sub-byte type, a layout that is not compact). JAX's
    export waits until the array is ready and holds its PJRT buffer (an
    external reference: x.delete() cannot free the memory under the
    consumer) and the array. A legacy capsule is handed out as JAX made
    it, a versioned one wraps it. Made by the function jax.Array.__dlpack__
    ends in (private; __dlpack__ itself when a jaxlib lacks it)."""
    export = _exporter[0] if _exporter else _jax_export_function()
    try:
        # Of the array's shard, as JAX does: the tensor then keeps a
        # reference to the buffer that x.delete() does not drop (of x
        # itself, jaxlib 0.10.2 aborts the process in x.delete()).
        capsule = (export(x.addressable_data(0), stream=None) if export is not None
                   else x.__dlpack__())
    except Exception:  # this module's own export says why, or exports it
        return None
    return _core.Client.rewrap_dlpack(capsule, dl, versioned, read_only)


class ExportedArray:
    """A single-device ``jax.Array`` with the array API's DLPack methods.

    ``numpy.from_dlpack``, ``torch.from_dlpack`` and
    :func:`pjrt_dlpack.from_dlpack` take it. Each ``__dlpack__`` call makes a
    new tensor that keeps the array alive until its deleter runs.
    """

    # _facts: the array's _export_facts, kept with the registry generation
    # they were found under (an array's sharding never changes).
    __slots__ = ("array", "read_only", "_facts", "_generation")

    def __init__(self, array, *, read_only=False):
        self._generation = _core._registry_generation()
        self._facts = _export_facts(array)
        self.array = array
        self.read_only = read_only

    def _current_facts(self):
        generation = _core._registry_generation()
        if generation != self._generation:
            self._facts, self._generation = _export_facts(self.array), generation
        return self._facts

    def __dlpack_device__(self):
        facts = self._current_facts()
        _check_array(self.array)  # deleted since
        return facts[1]

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if stream is not None and not isinstance(stream, int) and not _core._is_sycl_queue(stream):
            raise TypeError(
                f"stream must be None, an int or a dpctl.SyclQueue, not {type(stream).__name__}")
        # Any stream is fine (a SYCL consumer's dpctl.SyclQueue too): the
        # export waits until the data is ready, so the consumer's stream has
        # nothing to wait for.
        if dl_device is not None and tuple(dl_device) != tuple(self.__dlpack_device__()):
            raise BufferError(
                f"dl_device={tuple(dl_device)}: the array is on {self.__dlpack_device__()}; "
                "move it with jax.device_put first"
            )
        return _export(self.array, self._current_facts(), max_version, self.read_only, copy)

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
    if not hasattr(be, "unsafe_client_pointer"):
        raise _needs("0.10.1", "wrapping JAX's PJRT client (Client.unsafe_client_pointer)")
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
                mine = _core.Client.platform_dl_device(_platform_of(device), None,
                                                       _hardware_id(device))
            except _core.Error:
                continue
            if tuple(mine) == tuple(dl):
                return device
    return None


def _jaxlib_module():
    """jaxlib's extension module of private functions: jaxlib._jax from JAX
    0.6.1, xla_extension before (or None)."""
    try:
        from jax._src.lib import _jax as module
    except ImportError:  # JAX before 0.6.1
        from jax._src.lib import xla_client

        module = getattr(xla_client, "_xla", None)
    return module


def _to_buffer_impl():
    """jaxlib's private dlpack_managed_tensor_to_buffer and whether it takes
    dl_device_type and copy."""
    impl = getattr(_jaxlib_module(), "dlpack_managed_tensor_to_buffer", None)
    if impl is None:
        raise _needs("0.4.35", "pjrt_dlpack.jax.from_dlpack (jaxlib's dlpack_managed_tensor_to_buffer)")
    signature = getattr(impl, "__doc__", None) or ""
    return impl, "dl_device_type" in signature, "copy" in signature


def from_dlpack(x, device=None):
    """A ``jax.Array`` viewing a DLPack tensor on any platform (experimental).

    ``x`` has ``__dlpack__`` and ``__dlpack_device__`` (a pjrt_dlpack Buffer
    of :func:`client`, an :class:`ExportedArray`, ...). ``device`` is the JAX
    device to place it on; by default the device whose DLDevice (by the
    library's registry) is the tensor's. JAX's public ``jax.dlpack.from_dlpack``
    refuses device types outside its fixed list (``kDLOneAPI`` among them);
    this calls the private jaxlib function behind it, which from JAX 0.10.2
    takes the device type and works for any device of a C-API platform whose
    plugin can view the memory (``PJRT_Client_CreateViewOfDeviceBuffer``) --
    memory of JAX's own client, such as a buffer of :func:`client`. Older
    JAX imports kDLCPU tensors only (NotImplementedError naming 0.10.2 for
    others). A strided tensor that JAX lays out otherwise over its memory
    (JAX 0.6.1 to 0.7.1 make every one row-major: wrong values) raises
    BufferError. Private: it may change with any jaxlib release.
    """
    impl, takes_type, takes_copy = _to_buffer_impl()
    dl = tuple(x.__dlpack_device__())
    if device is None:
        device = _jax_device_for(dl)
        if device is None:
            raise BufferError(f"no JAX device has DLDevice {dl}; pass device=")
    if not takes_type and int(dl[0]) != _KDL_CPU:
        raise _needs("0.10.2", f"importing a DLPack tensor of device type {int(dl[0])} into JAX "
                     "(dlpack_managed_tensor_to_buffer's dl_device_type)")
    # JAX's own consumer asks for a legacy capsule (no max_version); the
    # private function reads that form. A SYCL producer (dpctl, dpnp) is
    # asked with its own dpctl.SyclQueue, which is then waited for: no queue
    # of JAX's runtime can be handed to it (docs/conformance.md).
    queue = _core._sycl_queue_of(x)
    capsule = x.__dlpack__() if queue is None else x.__dlpack__(stream=queue)
    if queue is not None:
        queue.wait()
    strided = _core.Client.dlpack_strides(capsule)
    if takes_type:
        y = impl(capsule, device, None, False, int(dl[0]))
    elif takes_copy:  # JAX 0.8.1 to 0.10.1
        y = impl(capsule, device, None, False)
    else:
        y = impl(capsule, device, None)
    if strided is not None and y.unsafe_buffer_pointer() == strided[0]:
        _check_import_layout(y, strided[1])
    return y


def _check_import_layout(y, strides):
    """BufferError when the array JAX made over a strided tensor's memory
    does not lay its elements out as the tensor's strides do: JAX 0.6.1 to
    0.7.1 make a row-major array over any tensor, whose values are then
    wrong."""
    got = _strides(y)
    if any(n > 1 and g != s for n, g, s in zip(y.shape, got, strides)):
        raise BufferError(
            f"JAX {jax.__version__} laid the imported tensor out with element strides "
            f"{tuple(got)} where the tensor has {tuple(strides)}: its values would be wrong, so "
            "it is not imported (JAX 0.6.1 to 0.7.1 ignore a DLPack tensor's strides); pass a "
            "row-major tensor")


_KDL_CPU = 1


# --------------------------------------------------------------- shards


class ExportedShard(ExportedArray):
    """One addressable shard of a ``jax.Array``, with DLPack methods:
    ``index`` (a tuple of slices into the global array), ``device`` (the JAX
    device), ``replica_id`` and ``array`` (the shard's single-device array)."""

    __slots__ = ("index", "device", "replica_id")

    def __init__(self, shard, *, read_only=False):
        super().__init__(shard.data, read_only=read_only)
        self.index = shard.index
        self.device = shard.device
        self.replica_id = shard.replica_id

    def __repr__(self):
        return f"<pjrt_dlpack.jax.ExportedShard {self.array.dtype}{list(self.array.shape)} " \
               f"index={self.index} on {self.device}>"


def export_shards(x, *, read_only=False):
    """One :class:`ExportedShard` per addressable shard of ``x`` (a
    single-device array has one), in ``x.addressable_shards`` order. Each
    describes its shard's memory, zero-copy, on its device's DLDevice."""
    _check_array(x)
    return [ExportedShard(s, read_only=read_only) for s in x.addressable_shards]


def _shard_items(tensors, sharding):
    if isinstance(tensors, dict):
        items = list(tensors.items())
    else:
        items = []
        for t in tensors:
            device = getattr(t, "device", None)
            if not isinstance(device, jax.Device):
                raise TypeError("from_shards takes a dict {jax.Device: tensor} or tensors with a "
                                f".device (ExportedShard); got {type(t).__name__}")
            items.append((device, t))
    wanted = set(sharding.addressable_devices)
    given = [d for d, _ in items]
    if len(set(given)) != len(given) or set(given) != wanted:
        raise ValueError(f"from_shards needs one tensor for each addressable device of the "
                         f"sharding ({sorted(str(d) for d in wanted)}), got "
                         f"{[str(d) for d in given]}")
    return items


def _global_shape(items):
    """The global shape from the shards' indices (ExportedShard.index)."""
    shape = None
    for _, t in items:
        index = getattr(t, "index", None)
        local = tuple(t.array.shape) if isinstance(t, ExportedArray) else None
        if index is None or local is None:
            raise TypeError("from_shards: pass shape= unless the tensors are ExportedShards")
        dims = [s.stop if s.stop is not None else n for s, n in zip(index, local)]
        shape = dims if shape is None else [max(a, b) for a, b in zip(shape, dims)]
    return tuple(shape)


def from_shards(tensors, sharding, shape=None):
    """A ``jax.Array`` of ``sharding`` from one DLPack tensor per addressable
    device: a dict ``{jax.Device: tensor}``, or tensors with a ``.device``
    (the :class:`ExportedShard` items of :func:`export_shards`). ``shape``
    is the global shape; by default the one the shards' ``index`` spans.
    Each tensor becomes a single-device array through :func:`from_dlpack`
    (zero-copy where JAX can view the memory, with its release limits), and
    ``jax.make_array_from_single_device_arrays`` joins them."""
    items = _shard_items(tensors, sharding)
    if shape is None:
        shape = _global_shape(items)
    arrays = [from_dlpack(t, device=d) for d, t in items]
    return jax.make_array_from_single_device_arrays(tuple(shape), sharding, arrays)
