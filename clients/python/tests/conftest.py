"""A coordinator for the tests, and a fault-injecting proxy in front of it.

The coordinator is the one at ``$LCC_URL`` when set (the Java build starts one in-process and sets it); otherwise this
starts ``java -jar coordinator/target/coordinator.jar --port 0 --kafka none`` on a temporary warehouse (build it first:
``mvn -B -pl coordinator -am package -DskipTests``).
"""

from __future__ import annotations

import collections
import http.server
import os
import re
import subprocess
import threading
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Deque, Iterator, List, Optional, Tuple

import pyarrow as pa
import pytest

from lance_commit import CommitClient, RetryPolicy

REPO = Path(__file__).resolve().parents[3]


def rows(first: int, count: int) -> pa.Table:
    """Rows ``id = first .. first+count-1`` with ``value = "v" + id``: a reader can check both columns from the ids."""
    ids = list(range(first, first + count))
    return pa.table({"id": pa.array(ids, pa.int64()), "value": pa.array([f"v{i}" for i in ids], pa.string())})


@pytest.fixture(scope="session")
def coordinator_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = os.environ.get("LCC_URL")
    if url:
        yield url
        return
    jar = Path(os.environ.get("LCC_COORDINATOR_JAR", REPO / "coordinator" / "target" / "coordinator.jar"))
    if not jar.is_file():
        pytest.fail(f"no coordinator at $LCC_URL and no jar at {jar}: build it with "
                    "`mvn -B -pl coordinator -am package -DskipTests` or set LCC_URL")
    warehouse = tmp_path_factory.mktemp("warehouse")
    process = subprocess.Popen(
        ["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-jar", str(jar), "--port", "0", "--kafka", "none",
         "--warehouse", str(warehouse)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        seen: List[str] = []
        for line in process.stdout:
            seen.append(line)
            match = re.search(r"REST URL:\s+(\S+)", line)
            if match:
                threading.Thread(target=lambda: collections.deque(process.stdout, maxlen=0), daemon=True).start()
                yield match.group(1)
                return
        pytest.fail("the coordinator exited before serving:\n" + "".join(seen))
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def namespace(coordinator_url: str) -> str:
    """A fresh namespace for one test."""
    name = "py_" + uuid.uuid4().hex[:10]
    CommitClient(coordinator_url).create_namespace(name)
    return name


@pytest.fixture
def client(coordinator_url: str) -> CommitClient:
    return CommitClient(coordinator_url)


class FaultProxy:
    """Forwards requests to the coordinator, except that the next commits meet the faults queued with ``inject``:

    - ``"lost-503"``: forwarded (the commit lands), but the client is told 503/17 "outcome unknown";
    - ``"lost"``: forwarded, then the connection is closed without an answer;
    - ``"503"``: answered 503/17 without forwarding;
    - ``("429", retry_after)``: answered 429/21 with ``Retry-After: retry_after`` without forwarding;
    - ``("served-by", url)``: forwarded, and the answer names ``url`` as the table's owner (``x-lcc-served-by``), as
      an instance of a cluster does when it forwarded the commit to the owner;
    - ``"close-after"``: forwarded and answered as kept alive, then the connection is closed (as by an instance that
      restarted while the client kept the connection).

    It speaks HTTP/1.1 and keeps connections alive; ``connections`` counts those it accepted.
    """

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.faults: Deque[object] = collections.deque()
        self.forwarded_commits = 0
        self.connections = 0
        self.commit_bodies: List[bytes] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with proxy._lock:
                    proxy.connections += 1

            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                is_commit = self.path.endswith("/commit")
                fault = proxy._next_fault() if is_commit else None
                if is_commit:
                    with proxy._lock:
                        proxy.commit_bodies.append(body)
                if isinstance(fault, tuple) and fault[0] == "429":
                    return self._answer(429, b'{"error":"throttled","code":21}', {"Retry-After": str(fault[1])})
                if fault == "503":
                    return self._answer(503, b'{"error":"Object store unavailable","code":17}')
                status, headers, answer = proxy._forward(self.path, body, dict(self.headers))
                if is_commit:
                    with proxy._lock:
                        proxy.forwarded_commits += 1
                if fault == "lost":
                    self.close_connection = True
                    return
                if fault == "lost-503":
                    return self._answer(503, b'{"error":"Commit outcome unknown","code":17}')
                extra = {k: v for k, v in headers if k.lower() == "retry-after"}
                if isinstance(fault, tuple) and fault[0] == "served-by":
                    extra["x-lcc-served-by"] = str(fault[1])
                self._answer(status, answer, extra)
                if fault == "close-after":
                    self.close_connection = True

            def _answer(self, status: int, body: bytes, headers: Optional[dict] = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def inject(self, *faults: object) -> None:
        with self._lock:
            self.faults.extend(faults)

    def _next_fault(self) -> object:
        with self._lock:
            return self.faults.popleft() if self.faults else None

    def _forward(self, path: str, body: bytes, headers: dict) -> Tuple[int, List[Tuple[str, str]], bytes]:
        request = urllib.request.Request(self.target + path, data=body, method="POST",
                                         headers={"Content-Type": headers.get("Content-Type", "application/json")})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, list(response.headers.items()), response.read()
        except urllib.error.HTTPError as e:
            with e:
                return e.code, list(e.headers.items()), e.read()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def proxy(coordinator_url: str) -> Iterator[FaultProxy]:
    p = FaultProxy(coordinator_url)
    yield p
    p.close()


FAST_RETRIES = RetryPolicy(retry_budget=5.0, initial_backoff=0.01, max_backoff=0.2, request_timeout=30.0)
