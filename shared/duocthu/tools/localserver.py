"""`duocthu serve`: the HTTP API on loopback, through the real Lambda handlers.

Each request is wrapped in an API Gateway HTTP API (v2) event and handed to the same `handler`
the deployed function runs (`sam local start-api` would need Docker, which these machines lack).

Bounded like a small production front: a fixed pool of workers (reading and writing sockets; the
handlers themselves run one invocation at a time, as a Lambda container does), and a connection is
accepted only when a worker is free, so a burst waits in the kernel's listen backlog (not in
unbounded threads); each request has a total deadline for its request line, headers and body (a
per-read socket timeout alone lets a client that sends a byte now and then hold a worker for ever:
a timer shuts the socket's read side when the deadline passes, and the request is a 408); a body
over the limit is a 413 before it is read; a chunked body is read chunk by chunk under the same
limit; every status, the server's own included (400, 404, 405, 408, 411, 413...), has a JSON
ErrorBody.
"""

from __future__ import annotations

import base64
import contextlib
import importlib.util
import json
import logging
import os
import socket
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

from duocthu.api.body import MAX_BODY_BYTES

log = logging.getLogger(__name__)

# path -> the function that serves it (as template.yaml routes them)
ROUTES = {
    "/v1/chat": "chat",
    "/v1/feedback": "chat",
    "/v1/drugs": "chat",
    "/health": "chat",
    "/": "chat",  # the chat page and its assets
    "/app.js": "chat",
    "/render.js": "chat",
    "/auth.js": "chat",
    "/oidc-client-ts.min.js": "chat",
    "/sign-in.json": "chat",
    "/app.css": "chat",
    "/v1/understand": "understand",
    "/v1/retrieve": "retrieve",
}
# every other route is GET
POST_ROUTES = frozenset({"/v1/chat", "/v1/feedback", "/v1/understand", "/v1/retrieve"})
WORKERS = 16
BACKLOG = 256  # connections waiting for a worker; the kernel caps it at net.core.somaxconn
SOCKET_TIMEOUT_S = 30.0  # a client that stops sending mid-request frees its worker
REQUEST_DEADLINE_S = 10.0  # request line + headers + body, in total (a 256 KB body needs far less)
_INVOCATION = threading.Lock()


@dataclass
class LocalContext:
    function_name: str
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:local:000000000000:function:local"
    aws_request_id: str = ""
    deadline_ms: float = 0.0

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int(self.deadline_ms - time.time() * 1000))


def functions_dir() -> Path:
    """The checkout's functions/ folder: `duocthu serve` runs from the repository root (or
    DUOCTHU_FUNCTIONS_DIR names the folder), never from an installed package."""
    folder = Path(os.environ.get("DUOCTHU_FUNCTIONS_DIR", "functions")).resolve()
    if not (folder / "chat" / "app.py").is_file():
        raise FileNotFoundError(
            f"{folder} holds no functions: run `duocthu serve` from the repository root "
            "or set DUOCTHU_FUNCTIONS_DIR"
        )
    return folder


def load_handler_module(name: str, folder: Path | None = None) -> ModuleType:
    path = (folder or functions_dir()) / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"duocthu_fn_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def to_event(method: str, target: str, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    url = urlsplit(target)
    try:
        text, encoded = body.decode("utf-8"), False
    except UnicodeDecodeError:  # passed on as API Gateway does: base64, flagged
        text, encoded = base64.b64encode(body).decode("ascii"), True
    query = dict(parse_qsl(url.query, keep_blank_values=True))
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": url.path,
        "rawQueryString": url.query,
        "headers": {k.lower(): v for k, v in headers.items()},
        "queryStringParameters": query or None,
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "local",
            "domainName": "localhost",
            "http": {
                "method": method,
                "path": url.path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": headers.get("User-Agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
            "timeEpoch": int(time.time() * 1000),
        },
        "body": text if body else None,
        "isBase64Encoded": encoded,
    }


class BadRequest(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


_REASONS = {400: "invalid_request", 413: "payload_too_large"}  # as the handlers name them


def error_body(status: int, message: str) -> bytes:
    """The ErrorBody (duocthu.api.models) of a status the server answers itself."""
    reason = _REASONS.get(status) or HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    return json.dumps({"error": reason, "message": message}).encode("utf-8")


def read_chunked(rfile: Any, limit: int) -> bytes:
    """A Transfer-Encoding: chunked body, refused (413) as soon as it passes the limit."""
    body = bytearray()
    while True:
        line = rfile.readline(1024)
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise BadRequest(HTTPStatus.BAD_REQUEST, "malformed chunk size") from None
        if size < 0:
            raise BadRequest(HTTPStatus.BAD_REQUEST, "malformed chunk size")
        if size == 0:
            while rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                pass  # trailers, ignored
            return bytes(body)
        if len(body) + size > limit:
            raise BadRequest(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body is over {limit} bytes")
        chunk = rfile.read(size)
        if len(chunk) < size:
            raise BadRequest(HTTPStatus.BAD_REQUEST, "the chunked body ended early")
        body += chunk
        rfile.readline(8)  # the chunk's CRLF


class _Handler(BaseHTTPRequestHandler):
    modules: ClassVar[dict[str, ModuleType]] = {}
    timeout = SOCKET_TIMEOUT_S  # StreamRequestHandler sets it on the socket
    request_deadline_s = REQUEST_DEADLINE_S
    _expired = False
    _watchdog: threading.Timer | None = None
    lambda_timeout_s = 29.0
    max_body_bytes = MAX_BODY_BYTES
    error_content_type = "application/json"
    default_request_version = "HTTP/1.0"  # so an error before the request line parses has headers

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return read_chunked(self.rfile, self.max_body_bytes)
        header = self.headers.get("Content-Length")
        if header is None:
            if self.command == "POST":
                raise BadRequest(HTTPStatus.LENGTH_REQUIRED, "a POST needs Content-Length or a chunked body")
            return b""
        if not header.strip().isdigit():
            raise BadRequest(HTTPStatus.BAD_REQUEST, "Content-Length is not a number")
        length = int(header)
        if length > self.max_body_bytes:
            raise BadRequest(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body is over {self.max_body_bytes} bytes"
            )
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            raise BadRequest(HTTPStatus.BAD_REQUEST, "the body ended before Content-Length")
        return body

    def handle_one_request(self) -> None:
        """The stdlib's request cycle under one deadline for reading the request (an idle
        keep-alive connection is closed by it too)."""
        self._expired = False
        self._watchdog = threading.Timer(self.request_deadline_s, self._expire)
        self._watchdog.daemon = True
        self._watchdog.start()
        try:
            super().handle_one_request()
        finally:
            self._watchdog.cancel()

    def _expire(self) -> None:
        self._expired = True
        with contextlib.suppress(OSError):  # a blocked read returns end-of-file at once
            self.connection.shutdown(socket.SHUT_RD)

    def _read_body(self) -> bytes:
        try:
            body = self._body()
        except TimeoutError:  # the client stopped sending: its worker is freed with a 408
            raise BadRequest(HTTPStatus.REQUEST_TIMEOUT, "the body did not arrive in time") from None
        except BadRequest:
            if self._expired:
                raise BadRequest(HTTPStatus.REQUEST_TIMEOUT, "the request did not arrive in time") from None
            raise
        if self._watchdog is not None:
            self._watchdog.cancel()  # read in time: the handler's own timeout bounds the rest
        if self._expired:
            raise BadRequest(HTTPStatus.REQUEST_TIMEOUT, "the request did not arrive in time")
        return body

    def _dispatch(self) -> None:
        path = urlsplit(self.path).path
        name = ROUTES.get(path)
        try:
            body = self._read_body()
        except BadRequest as err:
            self.close_connection = True  # what is left of the body is not read
            self._reply(err.status, {"Content-Type": "application/json"}, error_body(err.status, str(err)))
            return
        if name is None:
            self._reply(404, {"Content-Type": "application/json"}, error_body(404, "no such route"))
            return
        allowed = "POST" if path in POST_ROUTES else "GET"
        if self.command != allowed:
            headers = {"Content-Type": "application/json", "Allow": allowed}
            self._reply(405, headers, error_body(405, f"{path} answers {allowed} only"))
            return
        self._invoke(name, body)

    def _invoke(self, name: str, body: bytes) -> None:
        event = to_event(self.command, self.path, dict(self.headers.items()), body)
        try:
            # One invocation at a time, as one Lambda container runs them: the Powertools resolver,
            # logger and metrics keep the current event in process-wide state, and two at once
            # answered one request with another's body (a KeyError '_route' under load).
            with _INVOCATION:
                context = LocalContext(
                    function_name=name,
                    aws_request_id=event["requestContext"]["requestId"],
                    deadline_ms=time.time() * 1000 + self.lambda_timeout_s * 1000,
                )
                response = self.modules[name].handler(event, context)
        except Exception:  # the handlers answer their own faults; this is the Lambda runtime's 502
            log.exception("handler %s raised", name)
            self._reply(502, {"Content-Type": "application/json"}, error_body(502, "the function failed"))
            return
        payload = response.get("body") or ""
        raw = base64.b64decode(payload) if response.get("isBase64Encoded") else payload.encode("utf-8")
        self._reply(int(response.get("statusCode", 200)), response.get("headers") or {}, raw)

    def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for key, value in headers.items():
            if key.lower() != "content-length":
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The server's own errors (a bad request line, headers too long, ...) as JSON bodies."""
        self.close_connection = True
        if self._expired and code == HTTPStatus.BAD_REQUEST:  # cut short by the request deadline
            code, message = HTTPStatus.REQUEST_TIMEOUT, "the request did not arrive in time"
        body = error_body(code, message or HTTPStatus(code).description)
        with contextlib.suppress(OSError):  # the client is gone
            self._reply(code, {"Content-Type": "application/json"}, body)

    do_GET = do_POST = _dispatch

    def __getattr__(self, name: str) -> Any:
        # Any other method (PUT, TRACE, QUERY...) reaches the routing too: a known path answers 405
        # with Allow, an unknown one 404, as API Gateway's routes do.
        if name.startswith("do_"):
            return self._dispatch
        raise AttributeError(name)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """The access log names the route, never the query (`/v1/drugs?q=` carries user text)."""
        route = urlsplit(getattr(self, "path", "") or "").path
        log.info(
            "%s %s %s %s", self.address_string(), getattr(self, "command", "") or "-", route or "-", code
        )

    def log_message(self, format: str, *args: Any) -> None:
        # the server's own errors: a text argument may quote the request line, so only numbers show
        shown = tuple(a if isinstance(a, int) else "-" for a in args)
        log.info("%s %s", self.address_string(), format % shown)


class PooledHTTPServer(HTTPServer):
    """HTTPServer with a fixed worker pool; accept waits for a free worker."""

    request_queue_size = BACKLOG
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], workers: int) -> None:
        super().__init__(address, handler)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="duocthu-serve")
        self._free = threading.BoundedSemaphore(workers)

    def process_request(self, request: Any, client_address: Any) -> None:
        self._free.acquire()
        self._pool.submit(self._work, request, client_address)

    def _work(self, request: socket.socket, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self._free.release()

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=True)


def make_server(port: int = 3000, host: str = "127.0.0.1", workers: int = WORKERS) -> PooledHTTPServer:
    """A server bound to loopback, with every function's handler imported once (cold start)."""
    modules = {name: load_handler_module(name) for name in sorted(set(ROUTES.values()))}
    handler = type("Handler", (_Handler,), {"modules": modules})
    return PooledHTTPServer((host, port), handler, workers)
