"""Reverse lookup through the retrieve function (API Gateway HTTP API v2 events and direct
invokes) over the sample formulary: condition_to_drug / symptom_to_drug / drug_to_condition frames,
the dense fallback's absence and faults, and the measurement commands of issue 8."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from duocthu.api.runtime import get_runtime
from duocthu.api.services import retrieve as services
from duocthu.core.deadline import Deadline
from duocthu.core.errors import DependencyUnavailable, EmbeddingUnavailable
from duocthu.core.text import folded_words
from duocthu.ingest.pipeline import ingest_records
from duocthu.models.source import Monograph
from duocthu.settings import Settings, get_settings
from duocthu.store.edge import EdgeStore
from duocthu.tools.cli import main as cli

from tests.conftest import ATC_CSV
from tests.integration.test_handlers import LambdaContext, call, http_event, load_function
from tests.integration.test_handlers import env as env  # the fixture: sample index, Powertools env

pytestmark = pytest.mark.usefixtures("env")

HYPERTENSION = {"amlodipin", "captopril", "enalapril", "furosemid", "losartan", "spironolacton"}


def retrieve(body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    return call(load_function("retrieve"), http_event("POST", "/v1/retrieve", body))


def test_condition_frame_ranks_the_drugs_indicated_for_it() -> None:
    # Given the frame understanding makes of "Thuốc nào điều trị tăng huyết áp?"
    frame = {
        "turn_type": "condition_to_drug",
        "indication": "tăng huyết áp",
        "condition_relation": "indication",
    }
    # When it is retrieved over HTTP
    status, bundle, _ = retrieve({"frame": frame})
    # Then the drugs whose chỉ định names it come back ranked, each with at most two chỉ định parts
    assert status == 200 and bundle["decision"] == "ANSWERABLE" and bundle["ordering"] == "keyword"
    ranked = [d["drug_id"] for d in bundle["ranked_drugs"]]
    assert set(ranked) >= HYPERTENSION and len(ranked) <= 8
    # the second-line uses ("Tăng huyết áp kháng trị", "thường phối hợp") after the direct ones,
    # each group by score
    direct, second_line = bundle["ranked_drugs"][:-2], bundle["ranked_drugs"][-2:]
    assert {d["drug_id"] for d in second_line} == {"spironolacton", "furosemid"}
    for group in (direct, second_line):
        assert [d["score"] for d in group] == sorted((d["score"] for d in group), reverse=True)
    assert {e["section_key"] for e in bundle["evidence"]} == {"chi_dinh"}
    assert all(1 <= len(d["evidence_ids"]) <= 2 for d in bundle["ranked_drugs"])
    ids = [i for d in bundle["ranked_drugs"] for i in d["evidence_ids"]]
    assert ids == [e["id"] for e in bundle["evidence"]]
    # And a direct invoke (the state machine) returns the same bundle
    assert load_function("retrieve").handler({"frame": frame}, LambdaContext()) == bundle


def test_symptom_frame_uses_its_normalised_condition() -> None:
    frame = {"turn_type": "symptom_to_drug", "condition": {"text": "nhức đầu", "normalized": "đau đầu"}}
    status, bundle, _ = retrieve({"frame": frame})
    assert status == 200
    assert {d["drug_id"] for d in bundle["ranked_drugs"]} == {
        "acid_acetylsalicylic",
        "ibuprofen",
        "paracetamol",
    }


def test_drug_to_condition_reads_the_drugs_chi_dinh() -> None:
    frame = {"turn_type": "drug_to_condition", "drugs": ["omeprazol"]}  # "omeprazol có tác dụng gì"
    status, bundle, _ = retrieve({"frame": frame})
    assert status == 200 and bundle["decision"] == "ANSWERABLE"
    assert {e["section_key"] for e in bundle["evidence"]} == {"chi_dinh"}
    assert [e["part_index"] for e in bundle["evidence"]] == list(range(len(bundle["evidence"])))


def test_no_keyword_hit_without_a_provider_says_the_dense_route_is_off() -> None:
    for phrase in ("khi của và những được", "máy tính chạy chậm", "cao huyết áp"):
        frame = {"turn_type": "condition_to_drug", "indication": phrase}
        status, bundle, _ = retrieve({"frame": frame})
        assert status == 200 and (bundle["decision"], bundle["reason"]) == (
            "ABSTAIN",
            "insufficient_retrieval_score",
        )
        assert bundle["system_error"] == "embedding_unavailable" and bundle["ranked_drugs"] == []
    status, bundle, _ = retrieve({"frame": {"turn_type": "condition_to_drug"}})
    assert status == 200 and bundle["reason"] == "needs_clarification"


# -- the dense fallback against an index with vectors -------------------------------------------


class HashEmbedder:
    """A fast deterministic stand-in model: folded words hashed into 64 dimensions."""

    model_id = "hash-test-64"

    def __init__(self, fail: bool = False, model_id: str | None = None):
        self.fail = fail
        self.model_id = model_id or HashEmbedder.model_id

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * 64
        for word in folded_words(text):
            vector[hashlib.blake2b(word.encode(), digest_size=1).digest()[0] % 64] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        return [x / norm for x in vector]

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str, deadline: Deadline) -> list[float]:
        if self.fail:
            raise EmbeddingUnavailable("ThrottlingException: rate exceeded")
        return self._vector(text)


@pytest.fixture(scope="module")
def dense_dir(tmp_path_factory: pytest.TempPathFactory, sample_records: list[Monograph]) -> Path:
    folder = tmp_path_factory.mktemp("dense-index")
    store = EdgeStore(folder)
    report = ingest_records(sample_records, store, Settings(data_dir=folder), embedder=HashEmbedder())
    manifest = store.active_manifest()
    assert report.calibration and manifest and manifest.embedding_model == HashEmbedder.model_id
    assert manifest.dense_dim == 64 and manifest.dense_threshold == report.calibration.threshold
    store.close()
    return folder


@pytest.fixture
def dense_env(env: None, dense_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DUOCTHU_DATA_DIR", str(dense_dir))
    get_settings.cache_clear()
    get_runtime.cache_clear()
    yield
    if get_runtime.cache_info().currsize:
        get_runtime().store.close()
    get_runtime.cache_clear()


def test_a_failing_provider_is_503_over_http_and_typed_on_direct_invoke(
    dense_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "get_embedder", lambda _: HashEmbedder(fail=True))
    body = {"frame": {"turn_type": "condition_to_drug", "indication": "cao huyết áp"}}
    status, payload, headers = retrieve(body)
    assert status == 503 and payload["error"] == "embedding_unavailable" and headers["Retry-After"] == "5"
    with pytest.raises(DependencyUnavailable) as raised:
        load_function("retrieve").handler(body, LambdaContext())
    assert raised.value.reason == "embedding_unavailable"
    # the keyword pass never needs the provider: a phrase the text holds still answers
    status, bundle, _ = retrieve({"frame": {"turn_type": "condition_to_drug", "indication": "tăng huyết áp"}})
    assert status == 200 and bundle["ordering"] == "keyword"


def test_the_dense_fallback_runs_with_the_indexs_model(
    dense_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "get_embedder", lambda _: HashEmbedder())
    status, bundle, _ = retrieve(
        {"frame": {"turn_type": "condition_to_drug", "indication": "bệnh huyết áp cao"}}
    )
    assert status == 200 and bundle["system_error"] is None
    if bundle["decision"] != "ABSTAIN":  # whatever clears the calibrated threshold is chỉ định prose
        assert bundle["ordering"] == "dense" and {e["section_key"] for e in bundle["evidence"]} == {
            "chi_dinh"
        }
    # another model than the manifest's is refused outright: a 503 that names it, as /health does
    monkeypatch.setattr(services, "get_embedder", lambda _: HashEmbedder(model_id="another-model"))
    status, body, headers = retrieve(
        {"frame": {"turn_type": "condition_to_drug", "indication": "bệnh huyết áp cao"}}
    )
    assert status == 503 and body["error"] == "embedding_model_mismatch" and headers["Retry-After"]


# -- the measurement commands ------------------------------------------------------------------


def test_eval_reverse_runs_from_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["eval", "reverse", "--split", "heldout", "--misses"]) == 0
    out = capsys.readouterr().out
    assert "| heldout | end to end | 24 |" in out and "| heldout | retrieval only | 24 |" in out
    assert "dense fallback off" in out
    # nonsense rejection is 1.0 for the keyword pass in both pipelines
    assert out.count("1.000 (6/6)") == 2


@pytest.mark.skipif(not ATC_CSV.is_file(), reason="the kit's ATC table is not beside the repository")
def test_bench_retrieval_times_the_reverse_keyword_pass_on_atc(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "retrieval", "--corpus", "atc", "--backend", "edge", "--n", "3", "--all-cores"]
    assert cli(args) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "reverse lookup" in line]
    assert len(rows) == 1 and "loai_thuoc" in rows[0] and rows[0].startswith("| atc | edge |")
