"""Both rerank providers' requests and failure modes: the Cohere API through `cohere.ClientV2` on a
fake httpx transport, Bedrock through a botocore Stubber (which validates every request against
the installed service model); and the one place that picks a provider from settings."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import boto3
import cohere
import httpx
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput, ProviderUnavailable
from duocthu.core.ports import Ranked
from duocthu.providers.rerank import (
    BEDROCK_RERANK_MODEL,
    COHERE_RERANK_MODEL,
    BedrockReranker,
    CohereReranker,
    cohere_api_key,
    get_reranker,
    reranker_from_settings,
)
from duocthu.settings import Settings
from moto import mock_aws

QUESTION = "Uống paracetamol lúc đói có được không?"
DOCS = [
    "Dược lý và cơ chế tác dụng: ức chế tổng hợp prostaglandin.",
    "Liều lượng và cách dùng: có thể uống lúc no hoặc lúc đói.",
    "Thận trọng: người nghiện rượu.",
]
COHERE_REPLY = {
    "id": "r-1",
    "results": [{"index": 1, "relevance_score": 0.91}, {"index": 2, "relevance_score": 0.12}],
    "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}},
}


# -- the Cohere API through ClientV2 and a fake transport -------------------------------------


def cohere_client(handler: Callable[[httpx.Request], httpx.Response]) -> Any:
    return cohere.ClientV2(
        api_key="test-key",
        httpx_client=httpx.Client(transport=httpx.MockTransport(handler)),
        log_warning_experimental_features=False,
    )


def test_cohere_request_and_ranking() -> None:
    # Given a fake Cohere API that records what it is sent
    sent: list[httpx.Request] = []

    def api(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=COHERE_REPLY)

    reranker = CohereReranker(cohere_client(api), timeout_s=2.0)
    # When three documents are reranked to the top 2
    ranking = reranker.rerank(QUESTION, DOCS, 2, Deadline.after(10))
    # Then one POST to /v2/rerank with the model, query, documents and top_n, the key as a bearer
    (request,) = sent
    assert (request.method, request.url.path) == ("POST", "/v2/rerank")
    assert request.headers["authorization"] == "Bearer test-key"
    assert json.loads(request.content) == {
        "model": COHERE_RERANK_MODEL,
        "query": QUESTION,
        "documents": DOCS,
        "top_n": 2,
    }
    assert request.extensions["timeout"]["read"] == 2.0
    # And the ranking is the provider's, best first
    assert ranking == [Ranked(1, 0.91), Ranked(2, 0.12)]


def test_cohere_timeout_is_cut_to_the_deadline() -> None:
    timeouts: list[float] = []

    def api(request: httpx.Request) -> httpx.Response:
        timeouts.append(request.extensions["timeout"]["read"])
        return httpx.Response(200, json=COHERE_REPLY)

    CohereReranker(cohere_client(api), timeout_s=2.0).rerank(QUESTION, DOCS, 2, Deadline.after(0.7))
    assert 0.2 <= timeouts[0] <= 0.7


def test_cohere_with_no_time_left_makes_no_call() -> None:
    calls: list[httpx.Request] = []
    reranker = CohereReranker(cohere_client(lambda r: calls.append(r) or httpx.Response(200, json={})))
    with pytest.raises(ProviderUnavailable, match="deadline"):
        reranker.rerank(QUESTION, DOCS, 2, Deadline.after(0.05))
    assert calls == []


@pytest.mark.parametrize(
    "fault",
    [
        lambda r: (_ for _ in ()).throw(httpx.ReadTimeout("slow", request=r)),
        lambda r: (_ for _ in ()).throw(httpx.ConnectError("offline", request=r)),
        lambda r: httpx.Response(429, json={"message": "too many requests"}),
        lambda r: httpx.Response(500, json={"message": "boom"}),
        lambda r: httpx.Response(401, json={"message": "invalid api token"}),
    ],
    ids=["read-timeout", "connect-error", "429", "500", "401"],
)
def test_cohere_faults_are_one_attempt_then_unavailable(fault: Callable[[httpx.Request], Any]) -> None:
    calls: list[httpx.Request] = []

    def api(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return fault(request)  # type: ignore[no-any-return]

    with pytest.raises(ProviderUnavailable):
        CohereReranker(cohere_client(api)).rerank(QUESTION, DOCS, 2, Deadline.after(10))
    assert len(calls) == 1  # no retries: a slow reranker costs one timeout at most


@pytest.mark.parametrize(
    "results",
    [
        [],
        [{"index": 3, "relevance_score": 0.5}],  # not one of the three documents
        [{"index": -1, "relevance_score": 0.5}],
        [{"index": 0, "relevance_score": 0.5}, {"index": 0, "relevance_score": 0.4}],
    ],
    ids=["empty", "out-of-range", "negative", "duplicate"],
)
def test_cohere_malformed_rankings_are_refused(results: list[dict[str, Any]]) -> None:
    client = cohere_client(lambda r: httpx.Response(200, json={"id": "r", "results": results}))
    with pytest.raises(MalformedOutput):
        CohereReranker(client).rerank(QUESTION, DOCS, 2, Deadline.after(10))


def test_cohere_ranking_is_sorted_by_score_and_cut_to_top_n() -> None:
    results = [{"index": i, "relevance_score": s} for i, s in [(0, 0.2), (2, 0.9), (1, 0.5)]]
    client = cohere_client(lambda r: httpx.Response(200, json={"id": "r", "results": results}))
    assert CohereReranker(client).rerank(QUESTION, DOCS, 2, Deadline.after(10)) == [
        Ranked(2, 0.9),
        Ranked(1, 0.5),
    ]


@mock_aws
def test_cohere_key_from_secrets_manager(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    arn = boto3.client("secretsmanager").create_secret(Name="cohere", SecretString="co-s3cr3t")["ARN"]
    key = cohere_api_key(Settings.from_env({"COHERE_API_KEY_SECRET_ARN": arn}))
    assert callable(key) and key() == "co-s3cr3t"  # read when the client first needs it
    assert cohere_api_key(Settings.from_env({"COHERE_API_KEY": "env-key"})) == "env-key"
    no_key = cohere_api_key(Settings.from_env({"RERANK_PROVIDER": "cohere"}))
    assert callable(no_key)
    with pytest.raises(ProviderUnavailable):
        no_key()


# -- Bedrock through a Stubber ------------------------------------------------------------------


def bedrock_body(payload: Any) -> dict[str, Any]:
    raw = json.dumps(payload).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


@pytest.fixture
def bedrock() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1")


def test_bedrock_request_is_cohere_rerank_body_on_invoke_model(bedrock: Any) -> None:
    # Given a stubbed Bedrock Runtime that expects exactly this InvokeModel request
    reranker = BedrockReranker(lambda timeout: bedrock, timeout_s=2.0)
    body = {"query": QUESTION, "documents": DOCS, "top_n": 2, "api_version": 2}
    with Stubber(bedrock) as stub:
        stub.add_response(
            "invoke_model",
            bedrock_body({"id": "b-1", "results": COHERE_REPLY["results"]}),
            {
                "modelId": BEDROCK_RERANK_MODEL,
                "body": json.dumps(body, ensure_ascii=False),
                "contentType": "application/json",
                "accept": "application/json",
            },
        )
        # When reranked
        ranking = reranker.rerank(QUESTION, DOCS, 2, Deadline.after(10))
        stub.assert_no_pending_responses()
    # Then the ranking is read from the Cohere-shaped response
    assert ranking == [Ranked(1, 0.91), Ranked(2, 0.12)]


def test_bedrock_timeout_is_whole_seconds_inside_the_deadline(bedrock: Any) -> None:
    asked: list[int] = []

    def client_for(timeout: int) -> Any:
        asked.append(timeout)
        return bedrock

    reranker = BedrockReranker(client_for, timeout_s=2.0)
    with Stubber(bedrock) as stub:
        stub.add_response("invoke_model", bedrock_body({"results": COHERE_REPLY["results"]}))
        stub.add_response("invoke_model", bedrock_body({"results": COHERE_REPLY["results"]}))
        reranker.rerank(QUESTION, DOCS, 2, Deadline.after(10))
        reranker.rerank(QUESTION, DOCS, 2, Deadline.after(1.6))
    assert asked == [2, 1]  # rounded down: never past the deadline
    with pytest.raises(ProviderUnavailable, match="deadline"):
        reranker.rerank(QUESTION, DOCS, 2, Deadline.after(0.9))
    assert asked == [2, 1]  # less than a second left: no call


@pytest.mark.parametrize("code", ["ThrottlingException", "ModelTimeoutException", "AccessDeniedException"])
def test_bedrock_client_errors_are_unavailable(bedrock: Any, code: str) -> None:
    with Stubber(bedrock) as stub:
        stub.add_client_error("invoke_model", service_error_code=code, http_status_code=429)
        with pytest.raises(ProviderUnavailable, match=code):
            BedrockReranker(lambda t: bedrock).rerank(QUESTION, DOCS, 2, Deadline.after(10))


@pytest.mark.parametrize(
    "raw",
    [b"not json", b'{"message": "no results here"}', b'{"results": [{"index": 9, "relevance_score": 1}]}'],
    ids=["not-json", "no-results", "bad-index"],
)
def test_bedrock_malformed_responses_are_refused(bedrock: Any, raw: bytes) -> None:
    with Stubber(bedrock) as stub:
        response = {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}
        stub.add_response("invoke_model", response)
        with pytest.raises(MalformedOutput):
            BedrockReranker(lambda t: bedrock).rerank(QUESTION, DOCS, 2, Deadline.after(10))


# -- selection from settings -------------------------------------------------------------------


def test_off_unless_configured() -> None:
    assert Settings.from_env({}).rerank_backend == "off"
    assert reranker_from_settings(Settings.from_env({})) is None
    off = Settings.from_env({"RERANK_PROVIDER": "off", "COHERE_API_KEY": "k"})
    assert reranker_from_settings(off) is None


def test_a_cohere_key_selects_the_cohere_api() -> None:
    settings = Settings.from_env({"COHERE_API_KEY": "k", "RERANK_TIMEOUT_S": "1.5"})
    reranker = reranker_from_settings(settings)
    assert isinstance(reranker, CohereReranker)
    assert (reranker.model, reranker.timeout_s) == (COHERE_RERANK_MODEL, 1.5)
    assert get_reranker(settings) is get_reranker(settings)  # one client per container


def test_bedrock_is_one_attempt_on_the_shared_client_factory() -> None:
    settings = Settings.from_env(
        {"RERANK_PROVIDER": "bedrock", "AWS_REGION": "ap-southeast-1", "BEDROCK_MAX_ATTEMPTS": "3"}
    )
    reranker = reranker_from_settings(settings)
    assert isinstance(reranker, BedrockReranker) and reranker.model == BEDROCK_RERANK_MODEL
    config = reranker.client_for(2).meta.config
    assert config.retries["total_max_attempts"] == 1  # no retries, whatever understanding uses
    assert (config.read_timeout, config.region_name) == (2.0, "ap-southeast-1")
    assert config.connect_timeout <= settings.rerank_timeout_s
    custom = Settings.from_env({"RERANK_PROVIDER": "bedrock", "RERANK_MODEL_ID": "arn:aws:bedrock:x"})
    assert reranker_from_settings(custom).model == "arn:aws:bedrock:x"  # type: ignore[union-attr]


def test_bad_rerank_settings_fail_at_start_up() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Settings.from_env({"RERANK_PROVIDER": "openai"})
    with pytest.raises(ValidationError):
        Settings.from_env({"RERANK_TIMEOUT_S": "0"})
