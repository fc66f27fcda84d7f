"""The free-form route through the retrieve function (API Gateway HTTP API events and direct
invokes) over the sample formulary: lexical ordering offline, a configured reranker that answers
or times out, the token cap from the environment; and `duocthu eval free-form` end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from duocthu.api.runtime import get_runtime
from duocthu.api.services import retrieve as services
from duocthu.catalog.artifact import Catalog
from duocthu.core.ports import Reranker
from duocthu.providers.rerank import CohereReranker
from duocthu.settings import Settings, get_settings
from duocthu.store.edge import EdgeStore
from duocthu.tools.cli import main as cli

from tests.integration.test_handlers import LambdaContext, call, http_event, load_function
from tests.integration.test_handlers import env as env  # the fixture: sample index, Powertools env
from tests.unit.providers.test_rerank import cohere_client

pytestmark = pytest.mark.usefixtures("env")


@pytest.fixture(autouse=True)
def _shard_released(sample_index: tuple[EdgeStore, Catalog, Settings]) -> None:
    """Edge allows one open handle per shard folder: the session's sample store may still hold it
    (a test that read through it directly), and the function's runtime opens its own. Closing it is
    harmless: it reopens on its next read."""
    sample_index[0].close()


# A free-form question: it names no section ("lúc đói" is in warfarin's dosing text, never a heading).
QUESTION = "Warfarin uống lúc đói hay lúc no, vào giờ nào trong ngày?"
FRAME = {"turn_type": "drug_attribute", "drugs": ["warfarin"], "standalone_query": QUESTION}


def retrieve(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status, payload, _ = call(load_function("retrieve"), http_event("POST", "/v1/retrieve", body))
    return status, payload


def use_reranker(monkeypatch: pytest.MonkeyPatch, make: Callable[[Settings], Reranker | None]) -> None:
    """The reranker the settings would build, replaced (no network here)."""
    monkeypatch.setattr(services, "get_reranker", make)


def test_a_frame_without_attribute_is_ordered_lexically_offline() -> None:
    status, bundle = retrieve({"frame": FRAME})
    assert status == 200 and bundle["decision"] == "ANSWERABLE"
    assert bundle["ordering"] == "lexical:bm25; no reranker configured" and bundle["system_error"] is None
    sections = [e["section_key"] for e in bundle["evidence"]]
    assert sections[0] == "lieu_luong_va_cach_dung" and len(sections) <= 6
    assert sections[:1] != ["ten_chung_quoc_te"]  # not book order
    scores = [e["score"] for e in bundle["evidence"]]
    assert scores == sorted(scores, reverse=True)
    # the explicit form takes the same route, and a direct invoke answers the same as HTTP
    _, explicit = retrieve({"drug_id": "warfarin", "query": QUESTION})
    direct = load_function("retrieve").handler({"frame": FRAME}, LambdaContext())
    assert explicit["evidence"] == bundle["evidence"] and direct == bundle


def test_a_configured_reranker_orders_the_evidence(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a Cohere reranker (fake transport) that ranks the interaction part first
    sent: list[dict[str, Any]] = []
    candidates = get_runtime().store.find_by_drug("warfarin", chunk_kind="prose")
    first = next(i for i, c in enumerate(candidates) if c.section_key == "tuong_tac_thuoc")

    def api(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        results = [{"index": first, "relevance_score": 0.8}, {"index": 0, "relevance_score": 0.1}]
        return httpx.Response(200, json={"id": "r", "results": results})

    use_reranker(monkeypatch, lambda settings: CohereReranker(cohere_client(api)))
    # When a free-form frame is retrieved
    status, bundle = retrieve({"frame": FRAME})
    # Then the evidence is the reranker's, and the bundle names it
    assert status == 200 and bundle["ordering"] == "rerank:cohere:rerank-v3.5"
    assert [e["section_key"] for e in bundle["evidence"]] == ["tuong_tac_thuoc", candidates[0].section_key]
    assert sent[0]["top_n"] == 6 and len(sent[0]["documents"]) == len(candidates)


def test_a_reranker_timeout_is_answered_lexically_and_reported(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a configured reranker whose calls time out
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    use_reranker(monkeypatch, lambda settings: CohereReranker(cohere_client(slow)))
    capsys.readouterr()
    # When a free-form frame is retrieved
    status, bundle = retrieve({"frame": FRAME})
    # Then it is still answered, in lexical order, with the fault reported and counted
    assert status == 200 and bundle["decision"] == "ANSWERABLE"
    assert bundle["system_error"] == "rerank_unavailable"
    assert bundle["ordering"] == "lexical:bm25; rerank failed (ProviderUnavailable)"
    use_reranker(monkeypatch, lambda settings: None)
    _, offline = retrieve({"frame": FRAME})
    assert bundle["evidence"] == offline["evidence"]
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    names = {m["Name"] for blob in emitted for d in blob["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]}
    assert "SystemError_rerank_unavailable" in names


def test_the_token_cap_comes_from_the_environment_and_holds_when_rerank_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, full = retrieve({"frame": FRAME})
    assert len(full["evidence"]) > 2 and full["omitted_evidence_ids"] == []
    # Given a small budget and a reranker that refuses every call
    monkeypatch.setenv("EVIDENCE_MAX_CONTEXT_TOKENS", "400")
    get_settings.cache_clear()
    get_runtime.cache_clear()
    use_reranker(
        monkeypatch,
        lambda s: CohereReranker(cohere_client(lambda r: httpx.Response(503, json={"message": "x"}))),
    )
    status, capped = retrieve({"frame": FRAME})
    # Then the packed evidence is a prefix of the same lexical order, the rest listed by id
    assert status == 200 and capped["system_error"] == "rerank_unavailable"
    n = len(capped["evidence"])
    assert 0 < n < len(full["evidence"])
    assert capped["evidence"] == full["evidence"][:n]
    assert capped["omitted_evidence_ids"] == [e["id"] for e in full["evidence"][n:]]


def test_named_sections_and_overviews_are_not_free_form() -> None:
    _, section = retrieve({"frame": {**FRAME, "attribute": "chong_chi_dinh"}})
    assert {e["section_key"] for e in section["evidence"]} == {"chong_chi_dinh"} and section[
        "ordering"
    ] is None
    _, overview = retrieve({"frame": {**FRAME, "turn_type": "drug_overview"}})
    assert overview["ordering"] is None and overview["evidence"][0]["text"].startswith("【")


def test_the_eval_runs_from_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["eval", "free-form", "--split", "heldout"]) == 0
    out = capsys.readouterr().out
    assert "| lexical bm25 (default) |" in out and "| lexical matches |" in out
    assert "held-out recall@6" in out and "meets the target 0.9" in out
