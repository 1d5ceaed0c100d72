"""DLPack for every PJRT plugin.

Exchange PJRT device buffers with NumPy, PyTorch, JAX and any other DLPack
producer or consumer, zero-copy where possible, on any PJRT plugin and any
device type. The work is done in C (libpjrt_dlpack, through the extension
module ``pjrt_dlpack._pjrt_dlpack``); this package re-exports its public
names (every name of the extension that does not start with an underscore,
and ``__version__``). ``pjrt_dlpack.jax`` adds JAX arrays on any platform.
"""
from . import _pjrt_dlpack as _core

__all__ = sorted(name for name in dir(_core) if not name.startswith("_")) + ["__version__"]
globals().update({name: getattr(_core, name) for name in __all__})
