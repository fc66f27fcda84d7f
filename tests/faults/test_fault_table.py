"""The fault table of docs/reliability.md, row by row: each outside dependency hangs (a loopback
socket that accepts and never answers), refuses (a port nobody listens on), errors (an AWS 5xx
from a loopback server) or answers malformed (a 200 the client cannot use), and a chat turn still
answers inside its function's time, with its documented decision, reason and system_error.

The turn's budget is scaled down: the Lambda context says 5 s remain, the margin keeps 1 s, so
the turn's deadline is 4 s; every answer must come before the 5 s are up.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from duocthu.answer.generation import get_answer_generator
from duocthu.api.models import ChatRequest, ChatResponse
from duocthu.api.runtime import build_runtime
from duocthu.api.services import chat as chat_service
from duocthu.catalog.artifact import Catalog
from duocthu.settings import Settings
from duocthu.store import StoreUnavailable
from duocthu.store import catalog as catalog_module
from duocthu.store.edge import EdgeStore
from duocthu.store.sessions import get_conversation_store
from duocthu.understanding.providers import get_frame_provider

REMAINING_MS = 5_000
MODEL = "global.anthropic.claude-haiku-4-5-20251001-v1:0"
QUESTION = "Chống chỉ định của ibuprofen?"
BEDROCK = {"BEDROCK_REGION": "ap-southeast-1", "BEDROCK_CONNECT_TIMEOUT_S": "1", "BEDROCK_MAX_ATTEMPTS": "3"}
AWS_ERROR = (500, {"x-amzn-ErrorType": "InternalServerException"}, b'{"message":"internal error"}')
DYNAMO_ERROR = (500, {"x-amzn-ErrorType": "InternalServerError"}, b'{"__type":"InternalServerError"}')
# an item whose state is not a conversation (a hand edit, another program's item)
UNREADABLE = (
    200,
    {"Content-Type": "application/x-amz-json-1.0"},
    b'{"Item": {"session_id": {"S": "x"}, "state": {"S": "not json"}, "expires_at": {"N": "99999999999"}}}',
)
# a 200 that is no DynamoDB reply at all (a proxy's page): botocore alone would read it as "no item"
NOT_JSON = (200, {"Content-Type": "text/html"}, b"<html><body>502 Bad Gateway</body></html>")
# Converse without the forced tool (understanding) and without a [n] on its sentence (generation)
UNCITED = (
    200,
    {"Content-Type": "application/json"},
    json.dumps(
        {
            "output": {"message": {"role": "assistant", "content": [{"text": "Ibuprofen an toàn."}]}},
            "stopReason": "end_turn",
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
            "metrics": {"latencyMs": 1},
        }
    ).encode(),
)


@dataclass(frozen=True)
class Row:
    dependency: str
    mode: str  # hang | refuse | error | malformed | not-json
    settings: dict[str, str]
    endpoint_variable: str | None  # AWS_ENDPOINT_URL_<service>, pointed at the fault
    canned: tuple[int, dict[str, str], bytes] | None  # for error / malformed
    decision: str
    reason: str
    system_error: str | None


UNDERSTANDING = {**BEDROCK, "UNDERSTANDING_MODEL_ID": MODEL}
GENERATION = {**BEDROCK, "GENERATION_MODEL_ID": MODEL}
CONVERSATIONS = {"CONVERSATION_TABLE": "conversations"}
ABSTAIN = ("ABSTAIN", "dependency_unavailable")
STATELESS = "conversation_store_unavailable"
ANSWER = ("ANSWERABLE", "grounded_evidence_available")
UNAVAILABLE = "understanding_provider_unavailable"
NOT_GENERATED = "generation_provider_unavailable"


def _rows(
    dependency: str,
    settings: dict[str, str],
    variable: str,
    outcome: tuple[str, str],
    faults: dict[str, tuple[tuple[int, dict[str, str], bytes] | None, str | None]],
) -> list[Row]:
    """One dependency's rows: mode -> (what the fake answers, the system_error expected)."""
    return [
        Row(dependency, mode, settings, variable, canned, *outcome, error)
        for mode, (canned, error) in faults.items()
    ]


ROWS = [
    *_rows(
        "bedrock-understanding",
        UNDERSTANDING,
        "BEDROCK_RUNTIME",
        ABSTAIN,
        {
            "hang": (None, UNAVAILABLE),
            "refuse": (None, UNAVAILABLE),
            "error": (AWS_ERROR, UNAVAILABLE),
            "malformed": (UNCITED, "understanding_malformed_output"),
        },
    ),
    *_rows(
        "bedrock-generation",
        GENERATION,
        "BEDROCK_RUNTIME",
        ANSWER,
        {
            "hang": (None, NOT_GENERATED),
            "refuse": (None, NOT_GENERATED),
            "error": (AWS_ERROR, NOT_GENERATED),
            "malformed": (UNCITED, None),  # the extractive answer; the reason is logged, no fault
        },
    ),
    *_rows(
        "dynamodb",
        CONVERSATIONS,
        "DYNAMODB",
        ANSWER,
        {
            "hang": (None, STATELESS),
            "refuse": (None, STATELESS),
            "error": (DYNAMO_ERROR, STATELESS),
            "malformed": (UNREADABLE, STATELESS),
            "not-json": (NOT_JSON, STATELESS),
        },
    ),
]


@dataclass
class _Context:
    remaining_ms: int

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


@pytest.fixture
def fresh_clients(fresh_bedrock_clients: None) -> Iterator[None]:
    """Clients built for this row's endpoint: no cached provider, generator or store."""
    for cached in (get_frame_provider, get_answer_generator, get_conversation_store):
        cached.cache_clear()
    yield
    for cached in (get_frame_provider, get_answer_generator, get_conversation_store):
        cached.cache_clear()


def _turn(settings: Settings) -> tuple[ChatResponse, float]:
    runtime = build_runtime(settings)
    started = time.monotonic()
    try:
        response = chat_service.chat(runtime, ChatRequest(message=QUESTION), _Context(REMAINING_MS))
    finally:
        runtime.store.close()
    return response, time.monotonic() - started


def _report(row: str, response: ChatResponse, elapsed: float) -> None:
    """The row's figures, for docs/reliability.md (`pytest -s` shows them)."""
    print(f"\nFAULT {row}: {response.decision} {response.reason} {response.system_error} {elapsed:.2f}s")


def _settings(index_dir: Any, values: dict[str, str]) -> Settings:
    return Settings.from_env(
        {**values, "UNDERSTANDING_DEADLINE_MARGIN_MS": "1000", "DUOCTHU_DATA_DIR": str(index_dir)}
    )


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.dependency}-{r.mode}")
def test_fault_row(
    row: Row,
    monkeypatch: pytest.MonkeyPatch,
    sample_index: tuple[EdgeStore, Catalog, Settings],
    fresh_clients: None,
    hanging_endpoint: str,
    refusing_endpoint: str,
    canned_endpoint: Callable[[int, dict[str, str], bytes], str],
) -> None:
    endpoint = {"hang": hanging_endpoint, "refuse": refusing_endpoint}.get(row.mode)
    if row.canned is not None:
        endpoint = canned_endpoint(*row.canned)
    assert row.endpoint_variable and endpoint
    monkeypatch.setenv(f"AWS_ENDPOINT_URL_{row.endpoint_variable}", endpoint)
    response, elapsed = _turn(_settings(sample_index[2].data_dir, row.settings))
    assert (response.decision, response.reason, response.system_error) == (
        row.decision,
        row.reason,
        row.system_error,
    )
    assert elapsed < REMAINING_MS / 1000, f"{elapsed:.2f}s"
    if row.decision == "ANSWERABLE":  # the fallback is the formulary's own words, with their source
        assert response.citations and "Chống chỉ định" in response.answer
    _report(f"{row.dependency} {row.mode}", response, elapsed)


@pytest.mark.parametrize("canned", [NOT_JSON, UNREADABLE], ids=["not-json", "unreadable-item"])
def test_a_session_the_store_cannot_read_is_answered_statelessly_never_called_unknown(
    canned: tuple[int, dict[str, str], bytes],
    monkeypatch: pytest.MonkeyPatch,
    sample_index: tuple[EdgeStore, Catalog, Settings],
    fresh_clients: None,
    canned_endpoint: Callable[[int, dict[str, str], bytes], str],
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", canned_endpoint(*canned))
    runtime = build_runtime(_settings(sample_index[2].data_dir, CONVERSATIONS))
    try:
        request = ChatRequest(message=QUESTION, session_id="a" * 22)
        response = chat_service.chat(runtime, request, _Context(REMAINING_MS))
    finally:
        runtime.store.close()
    assert (response.decision, response.system_error) == ("ANSWERABLE", STATELESS)


def test_a_store_that_fails_mid_turn_abstains(
    monkeypatch: pytest.MonkeyPatch, sample_index: tuple[EdgeStore, Catalog, Settings]
) -> None:
    def down(*_: Any, **__: Any) -> Any:
        raise StoreUnavailable("connection reset")

    runtime = build_runtime(_settings(sample_index[2].data_dir, {}))
    monkeypatch.setattr(runtime.store, "find_by_section", down)
    started = time.monotonic()
    response = chat_service.chat(runtime, ChatRequest(message=QUESTION), _Context(REMAINING_MS))
    elapsed = time.monotonic() - started
    runtime.store.close()
    assert (response.decision, response.reason, response.system_error) == (*ABSTAIN, "store_unavailable")
    assert elapsed < REMAINING_MS / 1000
    _report("store error mid-turn", response, elapsed)


@pytest.mark.parametrize("mode", ["hang", "refuse"])
def test_a_qdrant_server_that_does_not_answer_at_start_abstains(
    mode: str, tmp_path: Any, hanging_endpoint: str, refusing_endpoint: str
) -> None:
    url = hanging_endpoint if mode == "hang" else refusing_endpoint
    started = time.monotonic()
    response, _ = _turn(_settings(tmp_path, {"QDRANT_URL": url, "QDRANT_TIMEOUT_S": "1"}))
    elapsed = time.monotonic() - started  # the start (a cold start) and the turn
    assert (response.decision, response.reason, response.system_error) == (*ABSTAIN, "store_unavailable")
    assert elapsed < REMAINING_MS / 1000, f"{elapsed:.2f}s"
    _report(f"qdrant-server {mode} (start + turn)", response, elapsed)


@pytest.mark.parametrize("mode", ["hang", "refuse", "error"])
def test_an_s3_catalogue_that_does_not_answer_at_start_abstains(
    mode: str,
    monkeypatch: pytest.MonkeyPatch,
    aws_env: None,
    sample_index: tuple[EdgeStore, Catalog, Settings],
    hanging_endpoint: str,
    refusing_endpoint: str,
    canned_endpoint: Callable[[int, dict[str, str], bytes], str],
) -> None:
    error = (500, {}, b"<Error><Code>InternalError</Code><Message>x</Message></Error>")
    url = {"hang": hanging_endpoint, "refuse": refusing_endpoint}.get(mode) or canned_endpoint(*error)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", url)
    catalog_module._s3_client.cache_clear()
    started = time.monotonic()
    response, _ = _turn(
        _settings(sample_index[2].data_dir, {"CATALOG_S3_URI": "s3://artifacts/catalog.json"})
    )
    elapsed = time.monotonic() - started
    catalog_module._s3_client.cache_clear()
    assert (response.decision, response.reason, response.system_error) == (*ABSTAIN, "store_unavailable")
    assert elapsed < 9.0, f"{elapsed:.2f}s"  # a cold start: 2 attempts x (1 s connect + 3 s read) at most
    _report(f"s3-catalogue {mode} (start + turn)", response, elapsed)
