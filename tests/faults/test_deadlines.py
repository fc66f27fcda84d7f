"""Every outbound call ends inside the turn's deadline: a hanging Bedrock (understanding and the
grounded answer) or DynamoDB costs at most one attempt that fits the deadline, never
`max_attempts` full read timeouts, and the turn gets its documented fallback."""

from __future__ import annotations

import time
from typing import Any

import pytest
from duocthu.answer.generation import answer_generator
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline, turn_deadline
from duocthu.core.errors import ProviderUnavailable
from duocthu.models.evidence import EvidenceItem
from duocthu.providers.rerank import reranker_from_settings
from duocthu.retrieval.decision import decide
from duocthu.settings import Settings
from duocthu.store import StoreUnavailable
from duocthu.store.server import ServerStore
from duocthu.store.sessions import ConversationUnavailable, DynamoConversationStore, dynamodb_table
from duocthu.understanding.candidates import tagged_turn
from duocthu.understanding.pipeline import understand_turn
from duocthu.understanding.providers import frame_provider
from duocthu.understanding.tags import MessageReader
from qdrant_client import QdrantClient

from tests.factories import make_evidence

# The numbers: 20 s read timeout, 3 attempts. Before, a hang cost 3 x the read timeout.
BEDROCK_ENV = {
    "UNDERSTANDING_MODEL_ID": "global.anthropic.claude-haiku-4-5-20251001-v1:0",
    "GENERATION_MODEL_ID": "global.anthropic.claude-haiku-4-5-20251001-v1:0",
    "BEDROCK_REGION": "ap-southeast-1",
    "BEDROCK_CONNECT_TIMEOUT_S": "1",
    "BEDROCK_READ_TIMEOUT_S": "20",
    "BEDROCK_MAX_ATTEMPTS": "3",
}
BUDGET_S = 3.5


def _evidence() -> EvidenceItem:
    return make_evidence("Loét dạ dày tá tràng tiến triển.")


@pytest.fixture
def hanging_bedrock(
    monkeypatch: pytest.MonkeyPatch, hanging_endpoint: str, fresh_bedrock_clients: None
) -> Settings:
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", hanging_endpoint)
    return Settings.from_env(BEDROCK_ENV)


def test_hanging_bedrock_understanding_ends_inside_the_deadline(
    hanging_bedrock: Settings, resolver: CatalogDrugResolver
) -> None:
    message = "Chống chỉ định của ibuprofen?"
    turn = tagged_turn(MessageReader(resolver), message, (), None)
    provider = frame_provider(hanging_bedrock)
    provider.client_for(2)  # built once per container, as in Lambda (not inside the timed turn)
    started = time.monotonic()
    frame = understand_turn(turn, provider, Deadline.after(BUDGET_S))
    elapsed = time.monotonic() - started
    assert frame.system_error == "understanding_provider_unavailable" and frame.drugs == ()
    assert elapsed < BUDGET_S  # one attempt of int(3.5 - 1 - 0.25) = 2 s; no retry fits after it
    assert elapsed >= 1.5  # the attempt was made and timed out (not refused up front)


def test_hanging_bedrock_generation_falls_back_to_the_extractive_answer_in_time(
    hanging_bedrock: Settings,
) -> None:
    generator = answer_generator(hanging_bedrock).under(Deadline.after(BUDGET_S))
    started = time.monotonic()
    answer = generator.generate("ibuprofen chống chỉ định", decide([_evidence()]), sample_data=True)
    elapsed = time.monotonic() - started
    assert (answer.method, answer.system_error) == ("extractive", "generation_provider_unavailable")
    assert "Loét dạ dày tá tràng tiến triển." in answer.text
    assert elapsed < BUDGET_S


def test_no_bedrock_call_when_the_deadline_is_spent(hanging_bedrock: Settings) -> None:
    generator = answer_generator(hanging_bedrock).under(Deadline.after(0.5))
    started = time.monotonic()
    answer = generator.generate("q", decide([_evidence()]), sample_data=False)
    assert answer.system_error == "generation_provider_unavailable"
    assert time.monotonic() - started < 0.3


@pytest.fixture
def hanging_dynamodb(monkeypatch: pytest.MonkeyPatch, hanging_endpoint: str, aws_env: None) -> Any:
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", hanging_endpoint)
    return dynamodb_table("duocthu-conversations")


def test_hanging_dynamodb_is_bounded_by_its_own_timeouts(hanging_dynamodb: Any) -> None:
    store = DynamoConversationStore(hanging_dynamodb)
    started = time.monotonic()
    with pytest.raises(ConversationUnavailable):
        store.load("s1")
    assert time.monotonic() - started < 6.5  # 2 attempts x (read 2 s) + backoff, not 60 s each


def test_hanging_dynamodb_stops_at_the_turn_deadline(hanging_dynamodb: Any) -> None:
    store = DynamoConversationStore(hanging_dynamodb)
    started = time.monotonic()
    with turn_deadline(Deadline.after(BUDGET_S)), pytest.raises(ConversationUnavailable):
        store.load("s1")
    assert time.monotonic() - started < BUDGET_S  # the retry that could not finish never started
    with turn_deadline(Deadline.after(1.0)), pytest.raises(ConversationUnavailable, match="left in the turn"):
        store.load("s1")  # no attempt fits: refused before sending


def test_no_qdrant_server_read_starts_after_the_turn_s_deadline(hanging_endpoint: str) -> None:
    store = ServerStore(QdrantClient(url=hanging_endpoint, timeout=1, check_compatibility=False))
    started = time.monotonic()
    with turn_deadline(Deadline(time.monotonic() - 0.1)), pytest.raises(StoreUnavailable, match="deadline"):
        store.find_by_drug("ibuprofen")
    assert time.monotonic() - started < 0.2  # refused before any request to the hanging server
    with turn_deadline(Deadline.after(BUDGET_S)), pytest.raises(StoreUnavailable):
        store.find_by_drug("ibuprofen")  # inside the deadline: one read, cut by its own timeout
    assert time.monotonic() - started < BUDGET_S
    store.close()


def test_a_hanging_cohere_costs_one_attempt_cut_to_its_timeout(
    monkeypatch: pytest.MonkeyPatch, hanging_endpoint: str
) -> None:
    monkeypatch.setenv("CO_API_URL", hanging_endpoint)
    settings = Settings.from_env({"COHERE_API_KEY": "test", "RERANK_TIMEOUT_S": "1"})
    reranker = reranker_from_settings(settings)
    assert reranker is not None
    started = time.monotonic()
    with pytest.raises(ProviderUnavailable):
        reranker.rerank("warfarin uống lúc nào", ["Uống một lần mỗi ngày."], 1, Deadline.after(BUDGET_S))
    assert time.monotonic() - started < 2.0  # one attempt of RERANK_TIMEOUT_S, no retry
