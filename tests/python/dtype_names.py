"""The NumPy dtypes the tests exchange, by name: one list for the tests of
both environments and modern/."""

# Every numeric dtype NumPy, DLPack and the module share. bool is added
# where a test takes it: PyTorch 1.13 has no bool over DLPack.
NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"]
# Those PyTorch 1.13 (Debian's) lacks altogether.
NOT_IN_TORCH_1_13 = ("uint16", "uint32", "uint64")
