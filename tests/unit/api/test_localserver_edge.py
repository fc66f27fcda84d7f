"""`duocthu serve` at the socket: every status a JSON ErrorBody, a body limit read before the
body, chunked bodies read, malformed framing a 400, and a bounded pool with socket timeouts."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from duocthu.api.body import MAX_BODY_BYTES
from duocthu.tools.localserver import PooledHTTPServer, make_server, read_chunked

from tests.integration.test_handlers import env  # noqa: F401 - fixture


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[PooledHTTPServer]:
    request.getfixturevalue("env")
    httpd = make_server(port=0, workers=2)
    httpd.RequestHandlerClass.timeout = 1.0  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def exchange(httpd: PooledHTTPServer, data: bytes) -> tuple[int, dict[str, str], Any]:
    with socket.create_connection(httpd.server_address, timeout=10) as sock:
        sock.sendall(data)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


CHAT = "POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"


@pytest.mark.parametrize(
    ("request_bytes", "status", "error"),
    [
        (b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, "invalid_request"),
        (b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400, "invalid_request"),
        (b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n{}", 408, "request_timeout"),
        (b"POST /v1/chat HTTP/1.1\r\nHost: x\r\n\r\n", 411, "length_required"),
        (
            f"POST /v1/chat HTTP/1.1\r\nContent-Length: {MAX_BODY_BYTES + 1}\r\n\r\n".encode(),
            413,
            "payload_too_large",
        ),
        (
            b"POST /v1/chat HTTP/1.1\r\nContent-Type: multipart/form-data\r\nContent-Length: 2\r\n\r\n{}",
            415,
            "unsupported_media_type",
        ),
        (b"POST /v1/chat HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "invalid_request"),
        (b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not_found"),
        (b"PUT /v1/chat HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"),
        (b"QUERY /health HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"),
        (b"GET /health HTTP/9.9\r\n\r\n", 505, "http_version_not_supported"),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414, "request_uri_too_long"),
        (b"garbage\r\n\r\n", 400, "invalid_request"),
    ],
)
def test_every_status_has_a_json_error(
    served: PooledHTTPServer, request_bytes: bytes, status: int, error: str
) -> None:
    got, headers, body = exchange(served, request_bytes)
    assert (got, body["error"]) == (status, error) and headers["Content-Type"] == "application/json"
    if status == 405:
        assert headers["Allow"] in ("GET", "POST")


def test_a_chunked_body_is_read(served: PooledHTTPServer) -> None:
    payload = json.dumps({"message": "Chỉ định của losartan?"}).encode()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (payload[:7], payload[7:]))
    request = (CHAT + "Transfer-Encoding: chunked\r\n\r\n").encode() + chunks + b"0\r\n\r\n"
    status, _, body = exchange(served, request)
    assert status == 200 and body["decision"] == "ANSWERABLE"


def test_a_chunked_body_over_the_limit_is_refused_while_reading() -> None:
    import io

    with pytest.raises(Exception, match="over 10 bytes"):
        read_chunked(io.BytesIO(b"8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n"), 10)


def test_the_pool_is_bounded_and_a_silent_client_times_out(served: PooledHTTPServer) -> None:
    # Two clients that connect and send nothing hold both workers until the socket timeout (1 s
    # here); a third waits in the listen backlog, is not reset, and is answered after.
    idle = [socket.create_connection(served.server_address) for _ in range(2)]
    time.sleep(0.2)
    started = time.monotonic()
    status, _, body = exchange(served, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    waited = time.monotonic() - started
    assert status == 200 and body["status"] == "ok"
    assert waited >= 0.5, "the third request was served while both workers were busy"
    for sock in idle:
        assert sock.recv(100) == b""  # closed by the server's timeout, not left hanging
        sock.close()


def test_the_handlers_run_one_invocation_at_a_time(request: pytest.FixtureRequest) -> None:
    # The handlers keep the current event in process-wide state (Powertools' resolver, logger and
    # metrics): two at once answered one request with another's body under load. The workers
    # overlap on sockets only.
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    request.getfixturevalue("env")
    httpd = make_server(port=0, workers=8)
    modules = httpd.RequestHandlerClass.modules  # type: ignore[attr-defined]
    running, overlap, lock = [0], [0], threading.Lock()

    def probed(real: Any) -> Any:
        def handler(event: dict[str, Any], context: Any) -> Any:
            with lock:
                running[0] += 1
                overlap[0] = max(overlap[0], running[0])
            time.sleep(0.02)  # long enough for any other worker to enter too
            try:
                return real(event, context)
            finally:
                with lock:
                    running[0] -= 1

        return handler

    httpd.RequestHandlerClass.modules = {  # type: ignore[attr-defined]
        name: SimpleNamespace(handler=probed(module.handler)) for name, module in modules.items()
    }
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    drugs = [
        "losartan",
        "ibuprofen",
        "paracetamol",
        "warfarin",
        "metformin",
        "amlodipin",
        "digoxin",
        "omeprazol",
    ]

    def ask(drug: str) -> list[str]:
        payload = json.dumps({"message": f"Chỉ định của {drug}?"}).encode()
        head = f"{CHAT}Content-Length: {len(payload)}\r\n\r\n".encode()
        return list(exchange(httpd, head + payload)[2]["frame"]["drugs"])

    try:
        with ThreadPoolExecutor(max_workers=len(drugs)) as pool:
            answers = list(pool.map(ask, drugs * 2))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert answers == [[drug] for drug in drugs * 2] and overlap[0] == 1


def test_slow_clients_cannot_starve_the_pool(served: PooledHTTPServer) -> None:
    """Clients sending a header line now and then (never idle as long as the socket timeout)
    are cut by the per-request deadline with a 408, and a normal request is served meanwhile."""
    served.RequestHandlerClass.timeout = 5.0  # type: ignore[attr-defined]  # per read: no help here
    served.RequestHandlerClass.request_deadline_s = 1.0  # type: ignore[attr-defined]
    slow = [socket.create_connection(served.server_address, timeout=10) for _ in range(4)]
    stop = threading.Event()

    def dribble() -> None:
        for sock in slow:
            with contextlib.suppress(OSError):
                sock.sendall(b"POST /v1/chat HTTP/1.1\r\n")
        while not stop.wait(0.3):
            for sock in slow:
                with contextlib.suppress(OSError):
                    sock.sendall(b"X-Slow: 1\r\n")

    feeder = threading.Thread(target=dribble, daemon=True)
    feeder.start()
    time.sleep(0.2)
    started = time.monotonic()
    status, _, body = exchange(served, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    waited = time.monotonic() - started
    stop.set()
    feeder.join()
    assert status == 200 and body["status"] == "ok" and waited < 4.0
    answered = [sock.recv(4096) for sock in slow[:2]]  # the two that held the workers first
    assert any(b" 408 " in raw.split(b"\r\n", 1)[0] for raw in answered), answered
    for sock in slow:
        sock.close()
