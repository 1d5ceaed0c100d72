"""Types of pjrt_dlpack.jax (see jax.py)."""
from typing import Any, Mapping, Sequence

import jax

from . import Client, Plugin

MINIMUM_JAX: tuple[int, int, int]

class ExportedArray:
    array: jax.Array
    read_only: bool
    def __init__(self, array: jax.Array, *, read_only: bool = ...) -> None: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    def __dlpack__(
        self,
        *,
        stream: int | None = ...,
        max_version: tuple[int, int] | None = ...,
        dl_device: tuple[int, int] | None = ...,
        copy: bool | None = ...,
    ) -> Any: ...

class ExportedShard(ExportedArray):
    index: tuple[slice, ...]
    device: jax.Device
    replica_id: int
    def __init__(self, shard: Any, *, read_only: bool = ...) -> None: ...

def dlpack_device(x: jax.Array) -> tuple[int, int]: ...
def to_dlpack(
    x: jax.Array,
    *,
    max_version: tuple[int, int] | None = ...,
    read_only: bool = ...,
    copy: bool | None = ...,
) -> Any: ...
def export(x: jax.Array, *, read_only: bool = ...) -> ExportedArray: ...
def export_shards(x: jax.Array, *, read_only: bool = ...) -> list[ExportedShard]: ...
def plugin(target: str | jax.Device | jax.Array) -> Plugin: ...
def client(target: str | jax.Device | jax.Array) -> Client: ...
def from_dlpack(x: Any, device: jax.Device | None = ...) -> jax.Array: ...
def from_shards(
    tensors: Mapping[jax.Device, Any] | Sequence[Any],
    sharding: jax.sharding.Sharding,
    shape: Sequence[int] | None = ...,
) -> jax.Array: ...
