"""Faults of the outside services, made on loopback: a socket that accepts and never answers (a
hang), a port nobody listens on (a refusal). Nothing here leaves 127.0.0.1."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.source import Monograph
from duocthu.providers import bedrock as bedrock_module


@pytest.fixture(scope="module")
def resolver(sample_records: list[Monograph]) -> CatalogDrugResolver:
    return CatalogDrugResolver(Catalog.from_records(sample_records, corpus_hash="test"))


@pytest.fixture
def hanging_endpoint() -> Iterator[str]:
    """http://127.0.0.1:<port> where the kernel completes the TCP handshake and nothing answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)  # never accepted: every read waits for its timeout
        yield f"http://127.0.0.1:{server.getsockname()[1]}"


@pytest.fixture
def refusing_endpoint() -> str:
    """http://127.0.0.1:<port> with nothing listening: every connection is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def fresh_bedrock_clients(aws_env: None) -> Iterator[None]:
    """Bedrock clients built for this test's endpoint, not a cached one from another test."""
    bedrock_module._client.cache_clear()
    yield
    bedrock_module._client.cache_clear()


class _Canned(BaseHTTPRequestHandler):
    """Answers every POST with the status, headers and body the test put on the server."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, headers, body = self.server.canned  # type: ignore[attr-defined]
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def canned_endpoint() -> Iterator[Callable[[int, dict[str, str], bytes], str]]:
    """A loopback HTTP server that answers with what the test sets: an AWS error, a 200 whose body
    is not what the client expects (malformed)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Canned)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def answer(status: int, headers: dict[str, str], body: bytes) -> str:
        server.canned = (status, headers, body)  # type: ignore[attr-defined]
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield answer
    server.shutdown()
    server.server_close()
