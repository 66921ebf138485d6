"""The exceptions of the client, one per error code of the Lance namespace error model.

Two kinds, never mixed: :class:`RequestFailedError` (the coordinator refused: nothing changed; for a commit, the
transaction was not committed) and :class:`CommitStateUnknownError` (no definite answer: the commit may have landed;
resubmitting the same request settles it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, Optional, Tuple, Type

if TYPE_CHECKING:
    from .client import CommitRequest

__all__ = [
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


class LanceCommitError(Exception):
    """Base of everything the client raises for the coordinator's sake.

    ``status`` is the HTTP status (0 when there was no answer), ``code`` the namespace spec's error code (-1 when
    the answer had none), ``detail`` the coordinator's explanation.
    """

    def __init__(self, message: str, status: int = 0, code: int = -1, detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.detail = detail


class RequestFailedError(LanceCommitError):
    """The coordinator answered and refused; nothing was changed. Codes without a class of their own arrive as this."""


class InvalidInputError(RequestFailedError):
    """400/13: the request or transaction is malformed, or cannot apply to the table."""


class SchemaContractError(RequestFailedError):
    """400/20: the commit breaks the table's schema contract; ``detail`` names the field path."""


class UnsupportedOperationError(RequestFailedError):
    """400/0: an operation this coordinator does not apply (e.g. DataOverlay); ``detail`` says why."""


class UnauthenticatedError(RequestFailedError):
    """401/16: no or unknown credentials (``api_key=`` or ``token=``)."""


class PermissionDeniedError(RequestFailedError):
    """403/15: the principal lacks the grant this call needs."""


class NamespaceNotFoundError(RequestFailedError):
    """404/1: the namespace does not exist."""


class TableNotFoundError(RequestFailedError):
    """404/4: the table does not exist (declare it first)."""


class NamespaceAlreadyExistsError(RequestFailedError):
    """409/2: a namespace with this id exists."""


class TableAlreadyExistsError(RequestFailedError):
    """409/5: a table with this id exists."""


class CommitConflictError(RequestFailedError):
    """409: a version committed since the read version conflicts; the transaction was not committed.

    ``conflicting_version`` and ``conflicting_operation`` are what the coordinator named (None when it named nothing).
    """

    def __init__(
        self,
        message: str,
        status: int = 409,
        code: int = -1,
        detail: str = "",
        conflicting_version: Optional[int] = None,
        conflicting_operation: Optional[str] = None,
    ) -> None:
        super().__init__(message, status, code, detail)
        self.conflicting_version = conflicting_version
        self.conflicting_operation = conflicting_operation


class RetryableConflictError(CommitConflictError):
    """409/14: valid if rebuilt on ``conflicting_version``. Appends are rebuilt by the client itself."""


class IncompatibleConflictError(CommitConflictError):
    """409/19: can never apply on what was committed since (or the table has feature flags the coordinator lacks)."""


class ThrottledError(RequestFailedError):
    """429/21: the table's commit queue stayed full for the whole retry budget; nothing was committed."""


class ServiceUnavailableError(RequestFailedError):
    """503/17 or no answer on a call that changes nothing, after the retry budget."""


class CommitStateUnknownError(LanceCommitError):
    """No definite answer for a commit within the retry budget: it may or may not have been committed.

    ``request`` is the exact request; ``client.commit_request(table_id, error.request)`` resubmits it safely (the
    coordinator answers the original version if it committed, and commits it otherwise).
    """

    def __init__(
        self, message: str, status: int, code: int, detail: str, table_id: list[str], request: "CommitRequest"
    ) -> None:
        super().__init__(message, status, code, detail)
        self.table_id = table_id
        self.request = request


_BY_CODE: Dict[int, Type[RequestFailedError]] = {
    13: InvalidInputError,
    20: SchemaContractError,
    16: UnauthenticatedError,
    15: PermissionDeniedError,
    1: NamespaceNotFoundError,
    4: TableNotFoundError,
    2: NamespaceAlreadyExistsError,
    5: TableAlreadyExistsError,
    21: ThrottledError,
    17: ServiceUnavailableError,
}

# An older coordinator names the conflict only in its text:
# "Retryable commit conflict with version 7 (Delete)" (error) / "conflicting version 7, operation Delete" (detail)
_CONFLICT = re.compile(r"with version (\d+) \(([^)]*)\)")
_CONFLICT_DETAIL = re.compile(r"conflicting version (\d+), operation (\w+)")


def _conflict_of(body: Dict[str, object], error: str, detail: str) -> Tuple[Optional[int], Optional[str]]:
    """The conflicting version and operation: the body's own members, else (an older coordinator) its text."""
    version = body.get("conflicting_version")
    operation = body.get("conflicting_operation")
    match = _CONFLICT.search(error) or _CONFLICT_DETAIL.search(detail)
    if not (isinstance(version, int) and not isinstance(version, bool)):
        version = int(match.group(1)) if match else None
    if not (isinstance(operation, str) and operation):
        operation = match.group(2) if match else None
    return version, operation


def error_for(call: str, status: int, body: Dict[str, object]) -> RequestFailedError:
    """The exception for a refusal ``{"error", "code", "detail", "instance"}``."""
    error = str(body.get("error") or "")
    detail = str(body.get("detail") or "")
    raw_code = body.get("code")
    code = raw_code if isinstance(raw_code, int) else -1
    what = error or detail
    message = f"{call} failed: HTTP {status}" + (f" (code {code})" if code >= 0 else "") + (f": {what}" if what else "")
    if code in (14, 19):
        version, operation = _conflict_of(body, error, detail)
        cls = RetryableConflictError if code == 14 else IncompatibleConflictError
        return cls(message, status, code, detail, version, operation)
    if code == 0 and status == 400:
        return UnsupportedOperationError(message, status, code, detail)
    if code in _BY_CODE:
        return _BY_CODE[code](message, status, code, detail)
    if status == 429:
        return ThrottledError(message, status, code, detail)
    if status == 401:
        return UnauthenticatedError(message, status, code, detail)
    if status == 403:
        return PermissionDeniedError(message, status, code, detail)
    if status >= 500:
        return ServiceUnavailableError(message, status, code, detail)
    return RequestFailedError(message, status, code, detail)
