"""pjrt_dlpack quick example: NumPy -> PJRT -> PyTorch -> NumPy, no copies.

Run with the built module on PYTHONPATH and the plugin path as argument (or
in PJRT_REF_PLUGIN):  python3 example_quick.py build/lib/libpjrt_ref.so
"""
import os
import sys

import numpy as np
import torch

import pjrt_dlpack

path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PJRT_REF_PLUGIN")
plugin = pjrt_dlpack.load_plugin(path)  # None: $PJRT_DLPACK_PLUGIN or the bundled plugin
client = plugin.client(platform="cpu")

host = np.arange(6, dtype=np.float32).reshape(2, 3)
buf = client.from_dlpack(host)  # a PJRT buffer viewing NumPy's memory
tensor = torch.from_dlpack(buf)  # PyTorch sees the same memory
back = np.from_dlpack(buf)  # and so does NumPy again

tensor[0, 0] = 42.0  # one write ...
print(buf, "on", buf.device)
pointers = {host.ctypes.data, buf.unsafe_buffer_pointer(), tensor.data_ptr(), back.ctypes.data}
print("same memory:", len(pointers) == 1)
print("write seen everywhere:", host[0, 0] == back[0, 0] == 42.0)
