"""Conversation stores: the DynamoDB one under moto with the template's own table, the file one."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from duocthu.models.frame import QueryFrame
from duocthu.store.sessions import (
    MAX_TURNS,
    ConversationState,
    ConversationUnavailable,
    DynamoConversationStore,
    FileConversationStore,
    new_session_id,
)
from moto import mock_aws

from tests.infrastructure.template import read_sam_template

FRAME = QueryFrame(turn_type="drug_attribute", drugs=["omeprazol"], attribute="chi_dinh")


@pytest.fixture
def dynamo_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    with mock_aws():
        properties = dict(read_sam_template()["Resources"]["ConversationsTable"]["Properties"])
        ttl = properties.pop("TimeToLiveSpecification")
        properties.pop("SSESpecification", None)
        properties.pop("PointInTimeRecoverySpecification", None)
        client = boto3.client("dynamodb")
        client.create_table(TableName="conversations", **properties)
        client.update_time_to_live(TableName="conversations", TimeToLiveSpecification=ttl)
        yield boto3.resource("dynamodb").Table("conversations")


@pytest.fixture(params=["dynamodb", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "dynamodb":
        return DynamoConversationStore(request.getfixturevalue("dynamo_table"))
    return FileConversationStore(tmp_path / "sessions")


def test_round_trip_keeps_the_last_turns(store: Any) -> None:
    session = new_session_id()
    assert store.load(session) is None
    state = ConversationState(session_id=session)
    for n in range(5):
        state = state.with_turn(f"hỏi {n}", f"đáp {n}", FRAME)
    store.save(state)
    loaded = store.load(session)
    assert loaded is not None and loaded.prior_frame == FRAME
    assert len(loaded.turns) == MAX_TURNS and loaded.turns[-1].content == "đáp 4"
    assert loaded.history() == ["hỏi 2", "hỏi 3", "hỏi 4"]


def test_expired_sessions_read_as_absent(store: Any) -> None:
    store.ttl_s = -1
    state = ConversationState(session_id="old", updated_at=time.time() - 10)
    store.save(state)
    assert store.load("old") is None


def test_dynamodb_failure_is_typed() -> None:
    class Broken:
        def get_item(self, **_: Any) -> Any:
            from botocore.exceptions import EndpointConnectionError

            raise EndpointConnectionError(endpoint_url="https://dynamodb")

    with pytest.raises(ConversationUnavailable):
        DynamoConversationStore(Broken()).load("abc")
