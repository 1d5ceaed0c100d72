"""Callbacks that need the GIL once a subinterpreter has existed (issue 20,
defect 1). CPython 3.10 and 3.11 make PyGILState_Check() answer 1 for good
after the first subinterpreter; a deleter that must be queued (it runs on a
thread without the GIL) then ran Python code without it, and the process died
with "Fatal Python error: PyThreadState_Get". Each case runs in a fresh
interpreter (run_python), so that a crash fails the test, not pytest."""
from fresh_python import PRELUDE, run_python

# Creates and destroys a subinterpreter: what broke the GIL test. The module
# is _interpreters from CPython 3.13 and _xxsubinterpreters before.
SUBINTERPRETER = """
    try:
        import _interpreters as subinterpreters
    except ImportError:
        import _xxsubinterpreters as subinterpreters
    subinterpreters.destroy(subinterpreters.create())
"""

# An object whose release the test can see: the owner of external memory.
OWNER = """
    import gc, weakref

    class Owner:
        def __init__(self, n):
            self.array = np.arange(n, dtype=np.float32)

    def external(n):
        owner = Owner(n)
        capsule = pjrt_dlpack.Client.external_dlpack(
            owner.array.ctypes.data, (n,), "float32", None, (pjrt_dlpack.kDLCPU, 0), owner)
        return capsule, weakref.ref(owner)
"""


def test_owner_released_without_the_gil_after_a_subinterpreter():
    # Dropping the Buffer releases the library's buffer without the GIL; its
    # last reference runs the guard deleter, which must queue the owner's
    # release, then run it once the GIL is back.
    out = run_python(PRELUDE + SUBINTERPRETER + OWNER + """
    client = plugin.client(platform="cpu")
    capsule, owner = external(16)
    buf = client.from_dlpack(capsule)
    del capsule
    view = np.from_dlpack(buf)
    del view
    assert owner() is not None
    del buf
    gc.collect()
    assert owner() is None, "the owner was not released"
    print("ok")
    """)
    assert out.strip() == "ok"


def test_host_transfer_done_callback_after_a_subinterpreter():
    # An xpu import copies: the plugin's done_with_host_buffer releases the
    # producer's tensor, on whatever thread the transfer finishes.
    out = run_python(PRELUDE + SUBINTERPRETER + OWNER + """
    xpu = plugin.client(platform="xpu")
    owners = []
    for i in range(20):
        capsule, owner = external(1 << 14)
        owners.append(owner)
        buf = xpu.from_dlpack(capsule, device=xpu.devices[0])
        del capsule
        buf.block_until_ready()
        assert buf.to_bytes() == np.arange(1 << 14, dtype=np.float32).tobytes()
        del buf
    xpu.buffer(np.zeros(1, np.float32)).block_until_ready()  # drains the queue
    gc.collect()
    assert all(o() is None for o in owners), "an owner was not released"
    print("ok")
    """)
    assert out.strip() == "ok"


def test_allocator_without_the_gil_after_a_subinterpreter():
    # The exchange API's allocator called from C without the GIL (ctypes
    # releases it) must take the GIL, not run the registry walk without it.
    out = run_python(PRELUDE + SUBINTERPRETER + """
    from dlpack_ctypes import Table
    table = Table(pjrt_dlpack.Buffer)
    client = plugin.client(platform="cpu")
    address, errors = table.allocate((2, 3), with_gil=False)
    assert not errors, errors
    buf = table.to_object(address)
    assert buf.shape == (2, 3) and buf.to_bytes() == bytes(24)
    print("ok")
    """)
    assert out.strip() == "ok"


# Imports through the Buffer's exchange table and through the capsule of a
# producer type without one, three times each: run in the main interpreter
# and in subinterpreters (which cannot load NumPy: it refuses a second load).
IMPORTS = """
import array, os, pjrt_dlpack
client = pjrt_dlpack.load_plugin(os.environ["PJRT_REF_PLUGIN"]).client(platform="cpu")
buf = client.buffer(array.array("f", range(6)))

class NoTable:
    def __dlpack__(self, **kw):
        return buf.__dlpack__(**kw)

    def __dlpack_device__(self):
        return buf.__dlpack_device__()

for _ in range(3):
    assert client.from_dlpack(buf).unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    assert client.from_dlpack(NoTable()).unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
"""


def test_exchange_table_cache_in_a_subinterpreter():
    # The module keeps the exchange tables of producer types it has seen,
    # keyed by the type's version tag, which CPython 3.12 and later number
    # per interpreter (the key then holds the interpreter's id): each
    # interpreter's imports find their own types' tables.
    out = run_python(PRELUDE + f"""
    imports = {IMPORTS!r}
    try:
        import _interpreters as subinterpreters
    except ImportError:
        import _xxsubinterpreters as subinterpreters
    exec(imports, {{}})
    for _ in range(2):
        interp = subinterpreters.create()
        subinterpreters.run_string(interp, imports)
        subinterpreters.destroy(interp)
    exec(imports, {{}})
    tensor = torch.arange(6, dtype=torch.float32)  # PyTorch's own table
    assert plugin.client(platform="cpu").from_dlpack(tensor).shape == (6,)
    print("ok")
    """)
    assert out.strip() == "ok"


def test_module_first_imported_in_a_subinterpreter():
    # The module is initialized once per process, by whichever interpreter
    # imports it first. When that is a subinterpreter (alive or destroyed),
    # the main interpreter's deleters must still run at once: a view's
    # release gives NumPy its array back, not at some later library call.
    for destroy in (True, False):
        out = run_python(f"""
        try:
            import _interpreters as subinterpreters
        except ImportError:
            import _xxsubinterpreters as subinterpreters
        interp = subinterpreters.create()
        subinterpreters.run_string(interp, {IMPORTS!r})
        if {destroy}:
            subinterpreters.destroy(interp)
        import os, sys, numpy as np, pjrt_dlpack
        client = pjrt_dlpack.load_plugin(os.environ["PJRT_REF_PLUGIN"]).client(platform="cpu")
        array = np.arange(6, dtype=np.float32)
        refs = sys.getrefcount(array)
        buf = client.from_dlpack(array)
        assert sys.getrefcount(array) == refs + 1
        del buf
        assert sys.getrefcount(array) == refs, "the deleter did not run at the release"
        print("ok")
        """)
        assert out.strip() == "ok"
