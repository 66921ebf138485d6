"""Lance's table-format protobuf messages, built at import from the descriptor set shipped in the package.

``lance_format.binpb`` is the project's own .proto files (conflict-rules/format/src/main/proto) compiled to a
``FileDescriptorSet``; a test of the Java build fails when it is stale. Messages live in a private descriptor pool, so
they never clash with other protobufs named ``lance.*`` in the same process.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_POOL = descriptor_pool.DescriptorPool()
for _file in descriptor_pb2.FileDescriptorSet.FromString(
    resources.files(__package__).joinpath("lance_format.binpb").read_bytes()
).file:
    _POOL.Add(_file)


def _message(name: str) -> Any:
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(name))


Transaction: Any = _message("lance.table.Transaction")
DataFragment: Any = _message("lance.table.DataFragment")
DataFile: Any = _message("lance.table.DataFile")
DeletionFile: Any = _message("lance.table.DeletionFile")
ExternalFile: Any = _message("lance.table.ExternalFile")
IndexMetadata: Any = _message("lance.table.IndexMetadata")
Field: Any = _message("lance.file.Field")
Manifest: Any = _message("lance.table.Manifest")
