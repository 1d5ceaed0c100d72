"""JAX drives the reference plugin's simulated accelerator as platform `xpu`,
and its arrays leave and re-enter JAX through DLPack, zero-copy.

A NumPy array goes to an `xpu` device in JAX; pjrt_dlpack.jax exports it as
a kDLOneAPI tensor (JAX itself exports only cpu/cuda/rocm); it is imported
into JAX's own PJRT client as a view of the same memory, reads back the same
values, and comes back to JAX as a jax.Array on the same memory. Exits 1 if
a check fails.

    PYTHONPATH=build/python python examples/jax_xpu.py [PLUGIN]

PLUGIN is the reference plugin: argv[1], else $PJRT_REF_PLUGIN, else the one
installed in the pjrt_dlpack package. JAX reads PJRT_NAMES_AND_LIBRARY_PATHS
once, when it first creates its backends: this script sets it before.
"""
import json
import os
import sys
import tempfile

import numpy as np

import pjrt_dlpack
from example_checks import Checks


def plugin_path():
    if len(sys.argv) > 1:
        return sys.argv[1]
    if os.environ.get("PJRT_REF_PLUGIN"):
        return os.environ["PJRT_REF_PLUGIN"]
    bundled = os.path.join(os.path.dirname(pjrt_dlpack.__file__), "libpjrt_ref.so")
    if os.path.exists(bundled):
        return bundled
    sys.exit("jax_xpu.py: give the reference plugin's path (argv[1] or $PJRT_REF_PLUGIN)")


def main():
    # A plugin description JAX understands: the library and its create
    # options (here: the simulated accelerator instead of the default cpu).
    config = os.path.join(tempfile.mkdtemp(prefix="jax_xpu_"), "xpu.json")
    with open(config, "w") as f:
        json.dump({"library_path": os.path.abspath(plugin_path()),
                   "create_options": {"platform": "xpu"}}, f)
    os.environ["PJRT_NAMES_AND_LIBRARY_PATHS"] = f"xpu:{config}"

    import jax
    import pjrt_dlpack.jax as pjax

    check = Checks("jax_xpu.py")

    devices = jax.devices("xpu")
    print("JAX devices on xpu:", devices)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = jax.device_put(a, devices[-1])
    check(np.array_equal(np.asarray(x), a), "device_put to xpu and back")

    try:
        jax.jit(lambda v: v * 2)(x)
        check(False, "jit fails cleanly (the reference plugin cannot compile)")
    except jax.errors.JaxRuntimeError as e:
        check("UNIMPLEMENTED" in str(e), f"jit fails cleanly: {str(e).splitlines()[0][:70]}...")

    tensor = pjax.export(x)
    device_type, device_id = tensor.__dlpack_device__()
    print(f"exported: {pjrt_dlpack.__name__}.jax.export(x) is on "
          f"({device_type}, {device_id})")
    check(device_type == pjrt_dlpack.kDLOneAPI, "the tensor is kDLOneAPI")

    client = pjax.client("xpu")  # JAX's own PJRT client, wrapped
    buf = client.from_dlpack(tensor, copy=False)
    check(buf.unsafe_buffer_pointer() == x.unsafe_buffer_pointer(),
          "imported as a view: same pointer")
    check(np.array_equal(np.asarray(buf), a), "the view reads back the same values")

    y = pjax.from_dlpack(buf)  # back to JAX (a private jaxlib function)
    check(y.devices() == x.devices() and y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer(),
          "back in JAX on the same device and memory")
    check(np.array_equal(np.asarray(y), a), "the jax.Array reads the same values")

    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
