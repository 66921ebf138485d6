"""CommitClient: commit pylance writes through the Lance commit coordinator's CommitTable."""

from __future__ import annotations

import base64
import email.utils
import http.client
import json
import random
import threading
import time
import urllib.parse
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import Message
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import lance
from lance.fragment import FragmentMetadata

from . import _protos, transactions
from .errors import (
    CommitStateUnknownError,
    InvalidInputError,
    RequestFailedError,
    RetryableConflictError,
    ServiceUnavailableError,
    error_for,
)
from .transactions import SchemaLike

__all__ = ["CommitClient", "CommitRequest", "CommitResult", "RetryPolicy", "TableInfo", "TableId"]

TableId = Union[str, Sequence[str]]
"""A table id: a list of parts (``["sales", "orders"]``) or the ``$``-joined form (``"sales$orders"``)."""


@dataclass(frozen=True)
class RetryPolicy:
    """How the client retries; one policy for every call of a client.

    - 409/14 on an Append: resubmitted on the conflicting version (appends commute), at most ``max_rebuilds`` times;
      the same for :meth:`CommitClient.delete` (recomputed on the new version) and :meth:`CommitClient.commit_rebuilding`.
      Other retryable conflicts raise :class:`~lance_commit.errors.RetryableConflictError`.
    - 503 and other 5xx, or no answer: the identical bytes are sent again (CommitTable is idempotent per transaction
      uuid) with exponential backoff and full jitter, until ``retry_budget`` seconds are spent; then
      :class:`~lance_commit.errors.CommitStateUnknownError`.
    - 429: the same, waiting at least the ``Retry-After`` the answer names; then
      :class:`~lance_commit.errors.ThrottledError` (or ``CommitStateUnknownError`` when an earlier attempt's outcome
      was unknown).
    """

    max_rebuilds: int = 10
    retry_budget: float = 60.0
    initial_backoff: float = 0.05
    max_backoff: float = 5.0
    request_timeout: float = 60.0

    def __post_init__(self) -> None:
        if self.max_rebuilds < 0:
            raise ValueError(f"max_rebuilds must be >= 0, got {self.max_rebuilds}")
        if min(self.retry_budget, self.initial_backoff, self.max_backoff) < 0 or self.request_timeout <= 0:
            raise ValueError(f"durations must be >= 0 and request_timeout > 0: {self}")
        if self.max_backoff < self.initial_backoff:
            raise ValueError(f"max_backoff {self.max_backoff} is below initial_backoff {self.initial_backoff}")

    def delay(self, retry: int, retry_after: Optional[float]) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        if retry_after is not None:
            return retry_after + random.uniform(0, self.initial_backoff)
        ceiling = min(self.max_backoff, self.initial_backoff * (2 ** min(retry, 30)))
        return random.uniform(0, ceiling)


@dataclass(frozen=True)
class TableInfo:
    """Where a table lives: pass ``location`` and ``storage_options`` to ``lance.fragment.write_fragments``."""

    table_id: List[str]
    location: str
    storage_options: Dict[str, str]
    version: Optional[int]
    """The latest committed version; None for a declared table with no version yet."""


@dataclass(frozen=True)
class CommitResult:
    """A committed transaction."""

    version: int
    read_version: int
    transaction_uuid: str
    manifest_path: str
    operation: str
    group_size: int = 1
    """How many writers' transactions ``version`` commits (more than 1: a group commit)."""
    new_fragment_ids: Sequence[int] = ()
    """The ids ``version`` gave the fragments the transaction added (Append, Overwrite: its fragments; Update: its new
    fragments), in the transaction's order, so a writer need not read the manifest back; empty for other operations."""


@dataclass(frozen=True)
class CommitRequest:
    """One CommitTable call: the Lance ``Transaction`` protobuf bytes and, for a Delete or Update, the row addresses
    it touched (a portable 64-bit Roaring map) so the coordinator can rebase it over concurrent deletes."""

    transaction: bytes
    affected_rows: Optional[bytes] = None


Rebuild = Callable[[int], CommitRequest]


def _table_parts(table_id: TableId) -> List[str]:
    parts = table_id.split("$") if isinstance(table_id, str) else list(table_id)
    if not parts or any(not isinstance(p, str) or not p or "$" in p for p in parts):
        raise ValueError(f"invalid table id {table_id!r}: non-empty parts without '$' expected")
    return parts


class CommitClient:
    """Commits Lance transactions through the coordinator, with one retry policy (:class:`RetryPolicy`).

    Thread-safe: one client may be used from any number of threads (every call keeps its state to itself). Requests go
    over kept-alive HTTP/1.1 connections, one per thread and instance (``http.client``; a new connection per request
    through ``urllib`` cost 0.3-0.4 ms more each on two cores). Proxy environment variables are not followed: the
    client talks to the coordinator directly. ``close()`` (or ``with CommitClient(...) as client:``) closes them.

    ``url`` is the coordinator's REST URL; ``api_key`` is sent as ``x-api-key`` and ``token`` as
    ``Authorization: Bearer``. ``storage_options`` are used under the vended ones (which win) when the client itself
    opens a table (``delete``).

    ``route_to_owner`` (on by default): in a cluster, any instance accepts a commit, forwards it to the table's owner
    and names the owner in its answer (``x-lcc-served-by``); the client then sends that table's commits straight
    there, saving the hop. An owner it cannot reach is left for a minute and the commit goes to ``url`` (the same
    transaction is answered at most once). Only URLs of ``url``'s scheme are followed. Turn it off where the
    instances' advertised URLs are not reachable from the client.
    """

    def __init__(
        self,
        url: str,
        api_key: Optional[str] = None,
        token: Optional[str] = None,
        *,
        retry: RetryPolicy = RetryPolicy(),
        storage_options: Optional[Mapping[str, str]] = None,
        route_to_owner: bool = True,
    ) -> None:
        parsed = urllib.parse.urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"the coordinator URL must be http(s)://host[:port], got {url!r}")
        self._url = url.rstrip("/")
        self._headers: Dict[str, str] = {}
        if api_key:
            self._headers["x-api-key"] = api_key
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self.retry = retry
        self._storage_options = dict(storage_options or {})
        self._owners = _TableOwners(self._url, route_to_owner)
        self._connections = _Connections(retry.request_timeout)

    def close(self) -> None:
        """Closes the client's kept-alive connections (a later call opens new ones)."""
        self._connections.close()

    def __enter__(self) -> "CommitClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- namespace calls

    def create_namespace(self, namespace: TableId, properties: Optional[Mapping[str, str]] = None) -> None:
        """CreateNamespace; raises :class:`~lance_commit.errors.NamespaceAlreadyExistsError` if it exists."""
        parts = _table_parts(namespace)
        self._post(f"CreateNamespace {'$'.join(parts)}", self._path("namespace", parts, "create"),
                   {"properties": dict(properties or {})}, idempotent=False)

    def declare_table(self, table_id: TableId) -> TableInfo:
        """DeclareTable: reserves the id and returns where to write its data files, with vended storage options."""
        parts = _table_parts(table_id)
        body = self._post(f"DeclareTable {'$'.join(parts)}", self._path("table", parts, "declare"), {},
                          idempotent=False)
        return self._table_info(parts, body)

    def describe_table(self, table_id: TableId) -> TableInfo:
        """DescribeTable: the table's location, vended storage options and latest version."""
        parts = _table_parts(table_id)
        body = self._post(f"DescribeTable {'$'.join(parts)}", self._path("table", parts, "describe"), {},
                          idempotent=True)
        return self._table_info(parts, body)

    # ---- commits

    def create_table(self, table_id: TableId, fragments: Sequence[FragmentMetadata], schema: SchemaLike) -> CommitResult:
        """Commits the first version of a declared table: an Overwrite at read version 0 with ``schema`` (recorded
        exactly as pylance records it) and the fragments written for it."""
        txn = transactions.overwrite(0, fragments, schema)
        return self._commit_loop(_table_parts(table_id), CommitRequest(txn.SerializeToString()), None)

    def append(self, table_id: TableId, fragments: Sequence[FragmentMetadata]) -> CommitResult:
        """Appends fragments on the latest version; a 409/14 is resubmitted on the conflicting version."""
        parts = _table_parts(table_id)
        txn = transactions.append(self._latest_version(parts), fragments)
        return self.commit_request(parts, CommitRequest(txn.SerializeToString()))

    def overwrite(self, table_id: TableId, fragments: Sequence[FragmentMetadata], schema: SchemaLike) -> CommitResult:
        """Replaces the table's schema and data with ``fragments``, on its latest version."""
        parts = _table_parts(table_id)
        txn = transactions.overwrite(self._latest_version(parts), fragments, schema)
        return self._commit_loop(parts, CommitRequest(txn.SerializeToString()), None)

    def delete(self, table_id: TableId, predicate: str) -> CommitResult:
        """Deletes the rows matching the SQL ``predicate``.

        pylance computes the deletion vectors on the latest version without committing, and the Delete goes to the
        coordinator with the row addresses it touched, so concurrent deletes of other rows of the same fragments are
        merged server-side. If the coordinator still answers 409/14 (the same rows were deleted meanwhile, or the
        fragments rewritten) the delete is computed again on the conflicting version. Like pylance's own delete, a
        predicate matching nothing still commits a version.
        """
        parts = _table_parts(table_id)
        table = self.describe_table(parts)
        if table.version is None:
            raise InvalidInputError(f"Delete from {'$'.join(parts)} refused: the table has no version yet")
        options = {**self._storage_options, **table.storage_options}

        def rebuild(read_version: int) -> CommitRequest:
            dataset = lance.dataset(table.location, version=read_version, storage_options=options)
            txn, affected = transactions.compute_delete(dataset, predicate)
            return CommitRequest(txn.SerializeToString(), affected)

        return self.commit_rebuilding(parts, table.version, rebuild)

    def compact(self, table_id: TableId, *results: Any) -> CommitResult:
        """Commits compaction done with pylance (``lance.optimize.Compaction.plan(ds, options)``, then
        ``task.execute(ds)`` for each task): one Rewrite group per result, on the version the plan was made on. A
        retryable conflict raises :class:`~lance_commit.errors.RetryableConflictError`: plan again."""
        txn = transactions.rewrite(results)
        return self._commit_loop(_table_parts(table_id), CommitRequest(txn.SerializeToString()), None)

    def create_index(self, table_id: TableId, added: Sequence[Any], removed: Sequence[Any] = ()) -> CommitResult:
        """Commits index segments pylance built without committing (``LanceDataset.create_index_uncommitted`` with
        ``fragment_ids``, optionally merged with ``merge_existing_index_segments``), replacing ``removed``."""
        txn = transactions.create_index(added, removed)
        return self._commit_loop(_table_parts(table_id), CommitRequest(txn.SerializeToString()), None)

    def commit(self, table_id: TableId, transaction_bytes: bytes) -> CommitResult:
        """Commits a transaction built elsewhere (the bytes Lance writes to ``_transactions/*.txn``). An Append is
        rebuilt on a conflicting version like :meth:`append`; any other retryable conflict is raised."""
        return self.commit_request(table_id, CommitRequest(bytes(transaction_bytes)))

    def commit_request(self, table_id: TableId, request: CommitRequest) -> CommitResult:
        """Commits ``request`` (e.g. the ``request`` of a :class:`~lance_commit.errors.CommitStateUnknownError`)."""
        parts = _table_parts(table_id)
        txn = _protos.Transaction()
        try:
            txn.ParseFromString(request.transaction)
        except Exception as e:  # the protobuf runtime raises DecodeError, or other errors on some backends
            raise ValueError(f"not a Lance Transaction protobuf: {e}") from e
        rebuild: Optional[Rebuild] = None
        if txn.HasField("append"):

            def rebuild(read_version: int) -> CommitRequest:
                txn.read_version = read_version  # same uuid: a rebuilt append is the same transaction
                return CommitRequest(txn.SerializeToString(), request.affected_rows)

        return self._commit_loop(parts, request, rebuild)

    def commit_rebuilding(self, table_id: TableId, read_version: int, rebuild: Rebuild) -> CommitResult:
        """Commits what ``rebuild(read_version)`` builds; on each 409/14 calls it again with the conflicting version
        (at most ``retry.max_rebuilds`` times). ``rebuild`` redoes the work on that version and may write files."""
        return self._commit_loop(_table_parts(table_id), rebuild(read_version), rebuild)

    def _commit_loop(self, parts: List[str], request: CommitRequest, rebuild: Optional[Rebuild]) -> CommitResult:
        rebuilds = 0
        while True:
            try:
                return self._commit_once(parts, request)
            except RetryableConflictError as e:
                if rebuild is None or rebuilds >= self.retry.max_rebuilds or e.conflicting_version is None:
                    raise
                rebuilds += 1
                request = rebuild(e.conflicting_version)

    def _commit_once(self, parts: List[str], request: CommitRequest) -> CommitResult:
        """One commit, resubmitting the identical bytes after 429, 5xx or no answer within the retry budget."""
        call = f"CommitTable {'$'.join(parts)}"
        if request.affected_rows is None:
            body, content_type = request.transaction, "application/x-protobuf"
        else:
            body = json.dumps({
                "transaction": base64.b64encode(request.transaction).decode("ascii"),
                "affected_rows": base64.b64encode(request.affected_rows).decode("ascii"),
            }).encode("utf-8")
            content_type = "application/json"
        attempts = _Attempts(self.retry)
        uncertain = False
        last = (0, -1, "")
        table = "$".join(parts)
        while True:
            target = self._owners.url_for(table)
            try:
                status, headers, raw = self._send(self._path("table", parts, "commit"), body, content_type,
                                                  base=target, resend_on_stale=True)
            except OSError as e:  # no answer: the request may or may not have been processed
                uncertain = True
                last = (0, -1, f"no answer from {target} ({e})")
                if target != self._url:
                    # the owner as last heard of; the configured URL reaches whichever instance owns the table now
                    self._owners.unreachable(table, target)
                    continue
                if attempts.wait(None):
                    continue
                raise self._unknown(call, parts, request, attempts, last) from e
            self._owners.answered(table, target, headers.get(_SERVED_BY))
            if status == 200:
                try:
                    answer = json.loads(raw)
                    return CommitResult(
                        version=int(answer["version"]),
                        read_version=int(answer.get("read_version", -1)),
                        transaction_uuid=str(answer.get("transaction_uuid", "")),
                        manifest_path=str(answer.get("manifest_path", "")),
                        operation=str(answer.get("operation", "")),
                        group_size=int(answer.get("group_size", 1)),
                        new_fragment_ids=tuple(int(i) for i in answer.get("new_fragment_ids", ())),
                    )
                except (ValueError, KeyError, TypeError) as e:
                    raise self._unknown(call, parts, request, attempts, (200, -1, f"unreadable answer {raw!r}")) from e
            error = _error_body(raw)
            if status == 429:
                if attempts.wait(_retry_after(headers)):
                    continue
                if uncertain:
                    raise self._unknown(call, parts, request, attempts, last)
                raise error_for(f"{call} (throttled for {attempts.elapsed():.1f}s)", status, error)
            if status >= 500:
                uncertain = True
                code = error.get("code")
                last = (status, code if isinstance(code, int) else -1,
                        str(error.get("error") or error.get("detail") or raw[:200]))
                if attempts.wait(_retry_after(headers)):
                    continue
                raise self._unknown(call, parts, request, attempts, last)
            raise error_for(call, status, error)

    @staticmethod
    def _unknown(call: str, parts: List[str], request: CommitRequest, attempts: "_Attempts",
                 last: "tuple[int, int, str]") -> CommitStateUnknownError:
        status, code, problem = last
        txn = _protos.Transaction()
        txn.ParseFromString(request.transaction)
        return CommitStateUnknownError(
            f"{call}: outcome unknown after {attempts.count} attempt(s) in {attempts.elapsed():.1f}s, last: "
            f"{problem}. Resubmitting the same request (transaction {txn.uuid}) is safe and settles it.",
            status, code, problem, parts, request)

    # ---- plumbing

    def _latest_version(self, parts: List[str]) -> int:
        body = self._post(f"DescribeTable {'$'.join(parts)}", self._path("table", parts, "describe"),
                          {"vend_credentials": False}, idempotent=True)
        if body.get("version") is None:
            raise InvalidInputError(f"Table {'$'.join(parts)} has no version yet; create it with create_table")
        return int(body["version"])

    def _table_info(self, parts: List[str], body: Dict[str, Any]) -> TableInfo:
        location = body.get("location")
        if not location:
            raise RequestFailedError(f"Table {'$'.join(parts)}: the answer names no location: {body}", 200)
        options = {**self._storage_options, **{str(k): str(v) for k, v in (body.get("storage_options") or {}).items()}}
        version = body.get("version")
        return TableInfo(parts, str(location), options, int(version) if version is not None else None)

    def _post(self, call: str, path: str, payload: Dict[str, Any], *, idempotent: bool) -> Dict[str, Any]:
        body = json.dumps(payload).encode("utf-8")
        attempts = _Attempts(self.retry)
        while True:
            try:
                status, headers, raw = self._send(path, body, "application/json", resend_on_stale=idempotent)
            except OSError as e:
                if idempotent and attempts.wait(None):
                    continue
                raise ServiceUnavailableError(f"{call} failed: no answer from {self._url} ({e})", 0, -1, str(e)) from e
            if status == 200:
                try:
                    answer = json.loads(raw) if raw.strip() else {}
                except ValueError as e:
                    raise RequestFailedError(f"{call}: unreadable answer {raw!r}", status) from e
                if not isinstance(answer, dict):
                    raise RequestFailedError(f"{call}: unexpected answer {raw!r}", status)
                return answer
            if (status == 429 or status >= 500 and idempotent) and attempts.wait(_retry_after(headers)):
                continue
            raise error_for(call, status, _error_body(raw))

    def _path(self, kind: str, parts: List[str], action: str) -> str:
        return f"/v1/{kind}/{urllib.parse.quote('$'.join(parts), safe='$')}/{action}"

    def _send(self, path: str, body: bytes, content_type: str, base: Optional[str] = None, *,
              resend_on_stale: bool = False) -> "tuple[int, Message, str]":
        """POSTs ``body``; raises OSError when no answer came.

        A kept-alive connection the server closed meanwhile (an instance restarted) fails before any answer; the
        request is then sent once more on a new connection, but only where sending it twice is harmless
        (``resend_on_stale``: a commit, answered once per transaction, or an idempotent call). Other calls get a new
        connection every time, as before connections were kept, so they never meet a stale one.
        """
        target = base or self._url
        split = urllib.parse.urlsplit(target)
        headers = {**self._headers, "Content-Type": content_type}
        while True:
            connection, reused = self._connections.get(split) if resend_on_stale else (
                self._connections.new(split), False)
            try:
                connection.request("POST", split.path + path, body=body, headers=headers)
                response = connection.getresponse()
                raw = response.read().decode("utf-8", "replace")
            except (OSError, http.client.HTTPException) as e:
                self._connections.discard(split, connection)
                if reused and isinstance(e, _STALE_CONNECTION):
                    continue  # only a reused connection is retried, and a new one is never reused: at most once
                if isinstance(e, OSError):
                    raise
                raise OSError(f"{type(e).__name__}: {e}") from e
            if not resend_on_stale or response.will_close:
                self._connections.discard(split, connection)
            return response.status, response.headers, raw


# what a kept-alive connection the server has closed fails with when it is used again
_STALE_CONNECTION = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


class _Connections:
    """Kept-alive connections by thread and instance (``http.client`` connections are not thread-safe)."""

    def __init__(self, timeout: float) -> None:
        self._timeout = timeout
        self._local = threading.local()
        self._all: "set[http.client.HTTPConnection]" = set()
        self._lock = threading.Lock()

    def get(self, target: urllib.parse.SplitResult) -> "tuple[http.client.HTTPConnection, bool]":
        """This thread's connection to ``target`` and whether it was used before."""
        mine: Dict[str, http.client.HTTPConnection] = self._local.__dict__.setdefault("connections", {})
        key = f"{target.scheme}://{target.netloc}"
        connection = mine.get(key)
        if connection is not None:
            return connection, True
        connection = self.new(target)
        mine[key] = connection
        return connection, False

    def new(self, target: urllib.parse.SplitResult) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection
        if target.scheme == "https":
            connection = http.client.HTTPSConnection(target.netloc, timeout=self._timeout)
        else:
            connection = http.client.HTTPConnection(target.netloc, timeout=self._timeout)
        with self._lock:
            self._all.add(connection)
        return connection

    def discard(self, target: urllib.parse.SplitResult, connection: http.client.HTTPConnection) -> None:
        mine: Dict[str, http.client.HTTPConnection] = self._local.__dict__.get("connections", {})
        key = f"{target.scheme}://{target.netloc}"
        if mine.get(key) is connection:
            del mine[key]
        with self._lock:
            self._all.discard(connection)
        connection.close()

    def close(self) -> None:
        with self._lock:
            connections, self._all = self._all, set()
        for connection in connections:
            connection.close()
        self._local = threading.local()


_SERVED_BY = "x-lcc-served-by"
_UNREACHABLE_FOR = 60.0
_MAX_TABLES = 10_000


class _TableOwners:
    """Where to send a table's commits: the owner an answer named (``x-lcc-served-by``), else the configured URL."""

    def __init__(self, configured: str, enabled: bool) -> None:
        self._configured = configured
        self._scheme = urllib.parse.urlparse(configured).scheme.lower()
        self._enabled = enabled
        self._owners: Dict[str, str] = {}
        self._unreachable: Dict[str, float] = {}
        self._lock = threading.Lock()

    def url_for(self, table: str) -> str:
        if not self._enabled:
            return self._configured
        with self._lock:
            owner = self._owners.get(table)
            if owner is None:
                return self._configured
            until = self._unreachable.get(owner)
            if until is not None:
                if time.monotonic() < until:
                    del self._owners[table]
                    return self._configured
                del self._unreachable[owner]
            return owner

    def answered(self, table: str, sent_to: str, served_by: Optional[str]) -> None:
        if not self._enabled:
            return
        with self._lock:
            if served_by:
                owner = served_by.rstrip("/")
                parsed = urllib.parse.urlparse(owner)
                if parsed.scheme.lower() == self._scheme and parsed.netloc:
                    if len(self._owners) >= _MAX_TABLES:
                        self._owners.clear()
                    self._owners[table] = owner
            elif sent_to != self._configured:
                self._owners.setdefault(table, sent_to)  # the owner answered itself: keep going there

    def unreachable(self, table: str, sent_to: str) -> None:
        if sent_to == self._configured:
            return
        with self._lock:
            if self._owners.get(table) == sent_to:
                del self._owners[table]
            self._unreachable[sent_to] = time.monotonic() + _UNREACHABLE_FOR


class _Attempts:
    """The attempts of one call: counts them and sleeps between them while the retry budget lasts."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._start = time.monotonic()
        self.count = 1

    def wait(self, retry_after: Optional[float]) -> bool:
        delay = self._policy.delay(self.count - 1, retry_after)
        if time.monotonic() + delay > self._start + self._policy.retry_budget:
            return False
        time.sleep(delay)
        self.count += 1
        return True

    def elapsed(self) -> float:
        return time.monotonic() - self._start


def _error_body(raw: str) -> Dict[str, Any]:
    try:
        parsed = json.loads(raw)
        if isinstance(parsed, dict):
            return parsed
    except ValueError:
        pass
    return {"detail": raw[:500]}


def _retry_after(headers: Message) -> Optional[float]:
    """``Retry-After`` as delta-seconds or an HTTP date (RFC 9110), if valid."""
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return max(0.0, (at - datetime.now(timezone.utc)).total_seconds())
