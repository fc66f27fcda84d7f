"""`duocthu serve`: a real HTTP request on loopback through the Lambda handlers."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from duocthu.tools.localserver import make_server, to_event

from tests.integration.test_handlers import env  # noqa: F401 - fixture


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[str]:
    request.getfixturevalue("env")  # the sample index, Powertools settings
    httpd = make_server(port=0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def request(url: str, body: bytes | None = None) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_chat_over_loopback(server: str) -> None:
    status, body = request(f"{server}/v1/chat", json.dumps({"message": "Chỉ định của losartan?"}).encode())
    assert status == 200 and body["decision"] == "ANSWERABLE" and body["citations"]
    status, body = request(f"{server}/health")
    assert status == 200 and body["status"] == "ok"
    status, body = request(f"{server}/nowhere")
    assert status == 404 and body["error"] == "not_found"


def test_invalid_utf8_is_a_422_not_a_crash(server: str) -> None:
    status, body = request(f"{server}/v1/chat", b'{"message": "\xff\xfe"}')
    assert status == 422 and body["error"] == "invalid_request"


def test_event_shape() -> None:
    event = to_event("GET", "/v1/drugs?q=Panadol", {"Host": "x"}, b"")
    assert event["rawPath"] == "/v1/drugs" and event["queryStringParameters"] == {"q": "Panadol"}
    assert event["requestContext"]["http"]["method"] == "GET" and event["body"] is None
