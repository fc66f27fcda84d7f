"""`duocthu serve`: the HTTP API on loopback, through the real Lambda handlers.

Each request is wrapped in an API Gateway HTTP API (v2) event and handed to the same `handler`
the deployed function runs (`sam local start-api` would need Docker, which these machines lack).
"""

from __future__ import annotations

import base64
import importlib.util
import logging
import os
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

log = logging.getLogger(__name__)

# path -> the function that serves it (as template.yaml routes them)
ROUTES = {
    "/v1/chat": "chat",
    "/v1/drugs": "chat",
    "/health": "chat",
    "/": "chat",  # the chat page and its two assets
    "/app.js": "chat",
    "/app.css": "chat",
    "/v1/understand": "understand",
    "/v1/retrieve": "retrieve",
}


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


class _Handler(BaseHTTPRequestHandler):
    modules: ClassVar[dict[str, ModuleType]] = {}
    # One event at a time per function, as in one Lambda execution environment: a Powertools
    # resolver keeps the current event on the app, so two threads in one app mix their requests
    # (a browser asking for /app.js and /app.css at once got a KeyError '_route_args').
    locks: ClassVar[dict[str, threading.Lock]] = {}
    timeout_s = 29.0

    def _dispatch(self) -> None:
        path = urlsplit(self.path).path
        name = ROUTES.get(path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if name is None:
            self._reply(
                404, {"Content-Type": "application/json"}, b'{"error":"not_found","message":"no such route"}'
            )
            return
        event = to_event(self.command, self.path, dict(self.headers.items()), body)
        context = LocalContext(
            function_name=name,
            aws_request_id=event["requestContext"]["requestId"],
            deadline_ms=time.time() * 1000 + self.timeout_s * 1000,
        )
        with self.locks[name]:
            response = self.modules[name].handler(event, context)
        payload = response.get("body") or ""
        raw = base64.b64decode(payload) if response.get("isBase64Encoded") else payload.encode("utf-8")
        self._reply(int(response.get("statusCode", 200)), response.get("headers") or {}, raw)

    def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _dispatch

    def log_message(self, format: str, *args: Any) -> None:
        log.info("%s %s", self.address_string(), format % args)


def make_server(port: int = 3000, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server bound to loopback, with every function's handler imported once (cold start)."""
    modules = {name: load_handler_module(name) for name in sorted(set(ROUTES.values()))}
    locks = {name: threading.Lock() for name in modules}
    handler = type("Handler", (_Handler,), {"modules": modules, "locks": locks})
    return ThreadingHTTPServer((host, port), handler)
