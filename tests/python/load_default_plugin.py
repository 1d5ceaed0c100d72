"""Run in a child process by test_package.py and tests/package/check_installed.py:
loads the plugin pjrt_dlpack.load_plugin() picks by default and prints its
path after a bytes round trip on a cpu client, or the code name and message
of the pjrt_dlpack.Error it raises."""
import pjrt_dlpack

try:
    plugin = pjrt_dlpack.load_plugin()
except pjrt_dlpack.Error as e:
    print(e.code_name, e)
else:
    client = plugin.client(platform="cpu")
    assert client.buffer(b"pjrt").to_bytes() == b"pjrt"
    print(plugin.path)
