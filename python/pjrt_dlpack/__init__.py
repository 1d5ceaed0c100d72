"""DLPack for every PJRT plugin.

Exchange PJRT device buffers with NumPy, PyTorch, JAX and any other DLPack
producer or consumer, zero-copy where possible, on any PJRT plugin and any
device type. The work is done in C (libpjrt_dlpack, through the extension
module ``pjrt_dlpack._pjrt_dlpack``); this package re-exports its API.
"""
from ._pjrt_dlpack import (  # noqa: F401  (the public API, re-exported)
    DLPACK_VERSION,
    Buffer,
    Client,
    DLPackError,
    Device,
    Error,
    Executable,
    Memory,
    Plugin,
    __version__,
    from_dlpack,
    load_plugin,
    register_platform,
)
from . import _pjrt_dlpack as _core

# The DLPack device-type constants (kDLCPU, kDLCUDA, ...), as in dlpack.h.
globals().update({name: getattr(_core, name) for name in dir(_core) if name.startswith("kDL")})

__all__ = [
    "DLPACK_VERSION",
    "Buffer",
    "Client",
    "DLPackError",
    "Device",
    "Error",
    "Executable",
    "Memory",
    "Plugin",
    "__version__",
    "from_dlpack",
    "load_plugin",
    "register_platform",
] + sorted(name for name in dir(_core) if name.startswith("kDL"))
