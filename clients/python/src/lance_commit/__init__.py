"""Python client for the Lance commit coordinator's CommitTable.

Write data files with stock pylance where the coordinator says, then commit them through it::

    from lance_commit import CommitClient

    client = CommitClient("http://127.0.0.1:9101")
    table = client.declare_table("sales$orders")
    fragments = lance.fragment.write_fragments(data, table.location, storage_options=table.storage_options)
    client.create_table("sales$orders", fragments, schema=data.schema)
"""

from .client import CommitClient, CommitRequest, CommitResult, RetryPolicy, TableId, TableInfo
from .errors import (
    CommitConflictError,
    CommitStateUnknownError,
    IncompatibleConflictError,
    InvalidInputError,
    LanceCommitError,
    NamespaceAlreadyExistsError,
    NamespaceNotFoundError,
    PermissionDeniedError,
    RequestFailedError,
    RetryableConflictError,
    SchemaContractError,
    ServiceUnavailableError,
    TableAlreadyExistsError,
    TableNotFoundError,
    ThrottledError,
    UnauthenticatedError,
    UnsupportedOperationError,
)

__all__ = [
    "CommitClient",
    "CommitRequest",
    "CommitResult",
    "RetryPolicy",
    "TableId",
    "TableInfo",
    "LanceCommitError",
    "RequestFailedError",
    "InvalidInputError",
    "SchemaContractError",
    "UnsupportedOperationError",
    "UnauthenticatedError",
    "PermissionDeniedError",
    "NamespaceNotFoundError",
    "TableNotFoundError",
    "NamespaceAlreadyExistsError",
    "TableAlreadyExistsError",
    "CommitConflictError",
    "RetryableConflictError",
    "IncompatibleConflictError",
    "ThrottledError",
    "ServiceUnavailableError",
    "CommitStateUnknownError",
]
