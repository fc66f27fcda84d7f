"""The retrieve function through API Gateway HTTP API (v2) events and direct invokes, over the
sample formulary; the measurement commands of issue 6 run end to end."""

from __future__ import annotations

import json
from typing import Any

import pytest
from duocthu.api.runtime import get_runtime
from duocthu.core.errors import DependencyUnavailable
from duocthu.settings import get_settings
from duocthu.store import NoIndex, StoreUnavailable
from duocthu.tools.cli import main as cli

from tests.integration.test_handlers import LambdaContext, call, http_event, load_function
from tests.integration.test_handlers import env as env  # the fixture: sample index, Powertools env

pytestmark = pytest.mark.usefixtures("env")

# The motivating case of pooling: ibuprofen files peptic ulcer under contraindications only.
ULCER = "Thận trọng khi dùng ibuprofen cho người có tiền sử loét dạ dày tá tràng?"


def retrieve(body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    return call(load_function("retrieve"), http_event("POST", "/v1/retrieve", body))


def test_frame_than_trong_pools_the_contraindication() -> None:
    # Given the frame understanding makes of a precaution question about an ulcer
    frame = {
        "turn_type": "drug_attribute",
        "drugs": ["ibuprofen"],
        "attribute": "than_trong",
        "standalone_query": ULCER,
    }
    # When it is retrieved over HTTP
    status, bundle, _ = retrieve({"frame": frame})
    # Then the whole than_trong section comes first, then the pooled contraindication part
    assert status == 200 and bundle["decision"] == "ANSWERABLE"
    keys = [e["section_key"] for e in bundle["evidence"]]
    first_other = next(i for i, k in enumerate(keys) if k != "than_trong")
    assert set(keys[:first_other]) == {"than_trong"}
    assert "chong_chi_dinh" in keys[first_other:]
    assert len(set(keys) - {"than_trong"}) <= 2 and "duoc_ly_va_co_che_tac_dung" not in keys
    ulcer = next(e for e in bundle["evidence"] if e["section_key"] == "chong_chi_dinh")
    assert "Loét dạ dày tá tràng" in ulcer["text"] and ulcer["score"] >= 5


def test_pooling_can_be_switched_off_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVIDENCE_MAX_LEXICAL_POOLED_SECTIONS", "0")
    get_settings.cache_clear()
    get_runtime.cache_clear()
    status, bundle, _ = retrieve({"drug_id": "ibuprofen", "section_key": "than_trong", "query": ULCER})
    assert status == 200 and {e["section_key"] for e in bundle["evidence"]} == {"than_trong"}


def test_explicit_overview_is_intro_prose_with_labels() -> None:
    status, bundle, _ = retrieve({"drug_id": "paracetamol", "is_overview": True})
    assert status == 200 and bundle["decision"] in ("ANSWERABLE", "VERIFY_PDF")
    keys = [e["section_key"] for e in bundle["evidence"]]
    assert set(keys) == {"ten_chung_quoc_te", "loai_thuoc", "duoc_ly_va_co_che_tac_dung", "chi_dinh"}
    assert all(e["chunk_kind"] == "prose" for e in bundle["evidence"])
    assert sum(e["text"].startswith("【") for e in bundle["evidence"]) == 4
    assert bundle["evidence"][0]["text"].startswith(f"【{bundle['evidence'][0]['display_name']}】")


def test_drug_overview_frame_ignores_its_attribute_and_direct_invoke_matches_http() -> None:
    frame = {"turn_type": "drug_overview", "drugs": ["omeprazol"], "attribute": "tuong_ky"}
    status, over_http, _ = retrieve({"frame": frame})
    direct = load_function("retrieve").handler({"frame": frame}, LambdaContext())
    assert status == 200 and direct == over_http
    assert "tuong_ky" not in {e["section_key"] for e in direct["evidence"]}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"drug_id": "khong_ton_tai", "section_key": "chi_dinh"}, "unknown_drug"),
        ({"frame": {"turn_type": "drug_attribute", "attribute": "chi_dinh"}}, "unknown_drug"),
        ({"drug_id": "ibuprofen", "section_key": "muc_khong_co"}, "section_absent"),
    ],
)
def test_abstentions_are_answers_not_errors(body: dict[str, Any], reason: str) -> None:
    status, bundle, _ = retrieve(body)
    assert status == 200 and (bundle["decision"], bundle["reason"]) == ("ABSTAIN", reason)
    assert bundle["evidence"] == []


def test_decision_and_reason_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    retrieve({"drug_id": "ibuprofen", "section_key": "muc_khong_co"})
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    names = {m["Name"] for blob in emitted for d in blob["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]}
    assert {"Decision_ABSTAIN", "Reason_section_absent"} <= names


@pytest.mark.parametrize("fault", [StoreUnavailable("connection refused"), NoIndex("pointer gone")])
def test_store_down_is_503_over_http_and_typed_on_direct_invoke(
    monkeypatch: pytest.MonkeyPatch, fault: Exception
) -> None:
    # Given a store whose lexical search (the pooling step) fails mid-request
    function = load_function("retrieve")

    def down(*_: Any, **__: Any) -> Any:
        raise fault

    monkeypatch.setattr(get_runtime().store, "search_lexical", down)
    body = {"drug_id": "ibuprofen", "section_key": "than_trong", "query": ULCER}
    # Then HTTP answers 503 with a reason and Retry-After, never a partial bundle
    status, payload, headers = call(function, http_event("POST", "/v1/retrieve", body))
    assert status == 503 and payload["error"] in ("store_unavailable", "index_unavailable")
    assert headers["Retry-After"] == "5"
    # And a direct invoke raises the typed error the state machine retries, then catches
    with pytest.raises(DependencyUnavailable) as raised:
        function.handler(body, LambdaContext())
    assert raised.value.reason == "store_unavailable"


def test_the_measurements_run_from_their_commands(capsys: pytest.CaptureFixture[str]) -> None:
    # `duocthu eval routing` over the committed gold file (it builds its own sample index)
    assert cli(["eval", "routing", "--split", "heldout"]) == 0
    out = capsys.readouterr().out
    assert "| **overall** |" in out and "routed held-out hit@1" in out
    # `duocthu bench retrieval`, a few calls on the sample only (no timing is asserted)
    assert cli(["bench", "retrieval", "--corpus", "sample", "--n", "3", "--n-local", "1", "--all-cores"]) == 0
    out = capsys.readouterr().out
    assert out.count("| sample |") == 8
