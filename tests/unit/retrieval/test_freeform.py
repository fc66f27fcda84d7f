"""The free-form route (reference 09 §4) over a real Edge shard of hand-made parts: lexical ordering
offline (never book order), rerank success reordering, rerank failure or timeout falling back to
lexical order with `rerank_unavailable` reported, and the packing cap whatever the ordering. The
gold files of `duocthu eval free-form` are checked at the end."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest
from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput, ProviderUnavailable
from duocthu.core.ports import Ranked
from duocthu.core.sections import resolve_section
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.chunk import Chunk
from duocthu.models.evidence import EvidenceBundle, EvidenceItem
from duocthu.providers.rerank import CohereReranker
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.freeform import free_form, lexical_order, question_terms, scored_text
from duocthu.retrieval.packing import block_tokens
from duocthu.retrieval.service import RetrievalService
from duocthu.store.edge import EdgeStore
from duocthu.tools.evals.free_form import default_gold, load_gold

from tests import goldsets
from tests.factories import make_chunk, publish
from tests.unit.providers.test_rerank import cohere_client

# zeta: a monograph whose first prose section in book order is the pharmacology attractor.
ZETA = {
    "duoc_ly_va_co_che_tac_dung": [
        "Zeta ức chế cyclooxygenase, giảm tổng hợp prostaglandin ở niêm mạc và ở thận; hạ sốt, giảm đau.",
        "Zeta có tác dụng chống viêm ở liều cao.",
    ],
    "chi_dinh": ["Đau nhẹ và vừa, sốt."],
    "than_trong": ["Người suy thận nặng phải giảm liều và theo dõi creatinin."],
    "tac_dung_khong_mong_muon": ["Buồn nôn, khó tiêu, đau bụng."],
    "lieu_luong_va_cach_dung": ["Uống Zeta sau bữa ăn, không uống lúc đói.", "Người lớn: 400 mg mỗi lần."],
    "tuong_tac_thuoc": ["Rượu làm tăng độc tính của Zeta trên gan."],
}
EMPTY_STOMACH = "Uống zeta lúc đói được không?"  # after stop words and the name: uong luc doi
# beta: "giảm" is in three of five parts, "đau" in one, "dạ dày" in one.
BETA = {
    "duoc_ly_va_co_che_tac_dung": ["Beta làm giảm đau và giảm sốt nhanh."],
    "chong_chi_dinh": ["Loét dạ dày tiến triển."],
    "than_trong": ["Giảm liều ở người suy gan."],
    "lieu_luong_va_cach_dung": ["Dùng ngày hai lần."],
    "tuong_tac_thuoc": ["Kháng acid làm giảm hấp thu beta."],
}
BETA_QUESTION = "Beta giảm đau dạ dày không?"


def chunk(
    drug_id: str, key: str, part: int, text: str, kind: str = "prose", quarantined: bool = False
) -> Chunk:
    return make_chunk(
        drug_id,
        key,
        part,
        text,
        kind=kind,
        quarantined=quarantined,
        display_name=drug_id.capitalize(),
        page=3,
    )


def corpus() -> list[Chunk]:
    chunks = [chunk("zeta", k, i, t) for k, texts in ZETA.items() for i, t in enumerate(texts)]
    # a table block that matches the question on every word: blocks are never free-form candidates
    chunks.append(chunk("zeta", "lieu_luong_va_cach_dung", 2, "Bảng: uống lúc đói, lúc no.", kind="block"))
    chunks += [chunk("beta", k, i, t) for k, texts in BETA.items() for i, t in enumerate(texts)]
    # eta: zeta's shape, its dosing section quarantined
    chunks += [
        chunk("eta", k, i, t.replace("Zeta", "Eta"), quarantined=k == "lieu_luong_va_cach_dung")
        for k, texts in ZETA.items()
        for i, t in enumerate(texts)
    ]
    chunks.append(chunk("table_only", "chi_dinh", 0, "Bảng chỉ định.", kind="block"))
    random.Random(7).shuffle(chunks)
    return chunks


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    edge = EdgeStore(Path(tmp_path_factory.mktemp("freeform")))
    chunks = corpus()
    publish(edge, chunks)
    yield edge
    edge.close()


def keys(evidence: Sequence[EvidenceItem]) -> list[tuple[str, int]]:
    return [(e.section_key, e.part_index) for e in evidence]


class FakeReranker:
    """Records what it is sent; returns a fixed ranking or raises."""

    name = "cohere"
    model = "fake-rerank"

    def __init__(self, ranking: Sequence[Ranked] = (), error: Exception | None = None):
        self.ranking, self.error = list(ranking), error
        self.calls: list[tuple[str, list[str], int]] = []

    def rerank(self, query: str, documents: Sequence[str], top_n: int, deadline: Deadline) -> list[Ranked]:
        self.calls.append((query, list(documents), top_n))
        if self.error:
            raise self.error
        return self.ranking


def offline(
    store: EdgeStore, drug: str = "zeta", question: str = EMPTY_STOMACH, **policy: int
) -> EvidenceBundle:
    return free_form(store, drug, question, EvidencePolicy(**policy))


# -- lexical ordering, the offline default ----------------------------------------------------


def test_offline_ordering_is_lexical_never_book_order(store: EdgeStore) -> None:
    # Given a monograph whose book order starts with the pharmacology section
    assert store.find_by_drug("zeta", chunk_kind="prose")[0].section_key == "duoc_ly_va_co_che_tac_dung"
    # When a question about taking it on an empty stomach is asked, with no reranker
    bundle = offline(store)
    # Then the dosing part that says so comes first, the attractor not at all (no shared word)
    assert keys(bundle.evidence)[0] == ("lieu_luong_va_cach_dung", 0)
    assert "duoc_ly_va_co_che_tac_dung" not in {e.section_key for e in bundle.evidence}
    scores = [e.score for e in bundle.evidence]
    assert scores == sorted(scores, reverse=True) and min(scores) > 0
    # And the bundle says how it was ordered, with no fault
    assert bundle.ordering == "lexical:bm25; no reranker configured"
    assert (bundle.decision, bundle.system_error, bundle.omitted_evidence_ids) == ("ANSWERABLE", None, ())
    assert all(e.chunk_kind == "prose" for e in bundle.evidence)  # the matching table block is out


def test_bm25_weighs_rare_words_where_the_match_count_ties_into_book_order(store: EdgeStore) -> None:
    candidates = store.find_by_drug("beta", chunk_kind="prose")
    # "giảm" + "đau" (pharmacology) and "dạ" + "dày" (contraindications) both match two words
    matches = lexical_order(store, BETA_QUESTION, candidates, "matches")
    assert [(e.section_key, e.score) for e in matches[:2]] == [
        ("duoc_ly_va_co_che_tac_dung", 2.0),  # the tie goes to book order
        ("chong_chi_dinh", 2.0),
    ]
    # BM25's IDF over the book's sentences: "giảm" is in many, "dạ" and "dày" in few
    bm25 = lexical_order(store, BETA_QUESTION, candidates, "bm25")
    assert bm25[0].section_key == "chong_chi_dinh" and bm25[0].score > bm25[1].score


def test_the_drug_name_orders_nothing(store: EdgeStore) -> None:
    # "Zeta" is in four parts, but every candidate is zeta's: its name says nothing
    for scoring in ("bm25", "matches"):
        assert (
            lexical_order(store, "Zeta thì sao?", store.find_by_drug("zeta", chunk_kind="prose"), scoring)
            == []
        )
    bundle = offline(store, question="Zeta thì sao?")
    assert (bundle.decision, bundle.reason) == ("ABSTAIN", "insufficient_retrieval_score")
    assert bundle.ordering == "lexical:bm25; no reranker configured; no part shares a word with the question"


def test_a_number_in_the_question_orders_nothing(tmp_path: Path) -> None:
    # "80 tuổi" is the patient's age: it must not pick the part that prints "80 mg"
    edge = EdgeStore(tmp_path)
    publish(
        edge,
        [
            make_chunk("eta", "dang_thuoc_va_ham_luong", 0, "Viên nén 80 mg."),
            make_chunk("eta", "than_trong", 0, "Người cao tuổi suy thận cần giảm liều."),
        ],
    )
    try:
        candidates = edge.find_by_drug("eta", chunk_kind="prose")
        question = "Người 80 tuổi dùng eta được không?"
        assert "80" not in question_terms(question, candidates)
        assert [i.section_key for i in lexical_order(edge, question, candidates, "bm25")] == ["than_trong"]
    finally:
        edge.close()


def test_the_ordering_keeps_the_top_k(store: EdgeStore) -> None:
    wide = offline(store, question="Người lớn uống zeta lúc đói, suy thận, buồn nôn, rượu?")
    assert len(wide.evidence) == 6
    assert (
        len(offline(store, question="Người lớn uống zeta lúc đói, suy thận?", rerank_top_k=2).evidence) == 2
    )


def test_a_quarantined_part_in_the_shortlist_makes_it_verify_pdf(store: EdgeStore) -> None:
    bundle = offline(store, drug="eta", question="Uống eta lúc đói được không?")
    assert bundle.evidence[0].has_quarantined_content
    assert (bundle.decision, bundle.reason) == ("VERIFY_PDF", "visual_verification_required")


def test_no_prose_abstains(store: EdgeStore) -> None:
    for drug in ("table_only", "khong_ton_tai"):
        bundle = offline(store, drug=drug)
        assert (bundle.decision, bundle.reason, bundle.evidence) == (
            "ABSTAIN",
            "insufficient_retrieval_score",
            (),
        )


# -- rerank ------------------------------------------------------------------------------------


def test_rerank_success_reorders(store: EdgeStore) -> None:
    # Given a reranker that prefers the interaction part, then the precaution part
    candidates = store.find_by_drug("zeta", chunk_kind="prose")
    position = {(c.section_key, c.part_index): i for i, c in enumerate(candidates)}
    fake = FakeReranker(
        [Ranked(position[("tuong_tac_thuoc", 0)], 0.93), Ranked(position[("than_trong", 0)], 0.4)]
    )
    # When the free-form route runs with it
    bundle = free_form(store, "zeta", EMPTY_STOMACH, EvidencePolicy(), reranker=fake)
    # Then the evidence is in the reranker's order, with its scores, and the bundle says so
    assert keys(bundle.evidence) == [("tuong_tac_thuoc", 0), ("than_trong", 0)]
    assert [e.score for e in bundle.evidence] == [0.93, 0.4]
    assert (bundle.ordering, bundle.system_error) == ("rerank:cohere:fake-rerank", None)
    # And the reranker saw every prose part (heading + text, book order) and the policy's top_k
    ((query, documents, top_n),) = fake.calls
    assert (query, top_n) == (EMPTY_STOMACH, 6)
    assert documents == [scored_text(c) for c in candidates]
    assert documents[0].startswith("Dược lý và cơ chế tác dụng: Zeta")


@pytest.mark.parametrize(
    "error",
    [
        ProviderUnavailable("ReadTimeout: timed out"),
        MalformedOutput("rerank result index 40 is not one of 9 documents"),
        RuntimeError("anything at all"),
    ],
    ids=["unavailable", "malformed", "unexpected"],
)
def test_any_rerank_failure_falls_back_to_lexical_order_and_is_reported(
    store: EdgeStore, error: Exception
) -> None:
    bundle = free_form(store, "zeta", EMPTY_STOMACH, EvidencePolicy(), reranker=FakeReranker(error=error))
    assert bundle.evidence == offline(store).evidence
    assert bundle.system_error == "rerank_unavailable"
    assert bundle.ordering == f"lexical:bm25; rerank failed ({type(error).__name__})"
    assert bundle.decision == "ANSWERABLE"


def test_a_cohere_timeout_falls_back_within_one_attempt(store: EdgeStore) -> None:
    calls: list[httpx.Request] = []

    def slow(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ReadTimeout("timed out", request=request)

    reranker = CohereReranker(cohere_client(slow), timeout_s=0.5)
    bundle = free_form(store, "zeta", EMPTY_STOMACH, EvidencePolicy(), reranker, Deadline.after(5))
    assert len(calls) == 1 and calls[0].extensions["timeout"]["read"] == 0.5
    assert (bundle.system_error, bundle.ordering) == (
        "rerank_unavailable",
        "lexical:bm25; rerank failed (ProviderUnavailable)",
    )
    assert bundle.evidence == offline(store).evidence


def test_no_rerank_call_once_the_deadline_has_passed(store: EdgeStore) -> None:
    calls: list[httpx.Request] = []
    reranker = CohereReranker(cohere_client(lambda r: calls.append(r) or httpx.Response(200, json={})))
    bundle = free_form(store, "zeta", EMPTY_STOMACH, EvidencePolicy(), reranker, Deadline.after(0))
    assert calls == [] and bundle.system_error == "rerank_unavailable"
    assert bundle.evidence == offline(store).evidence


# -- the packing cap, whatever the ordering -----------------------------------------------------


@pytest.mark.parametrize("state", ["off", "failing", "succeeding"])
def test_the_token_cap_applies_whether_rerank_ran_was_off_or_failed(store: EdgeStore, state: str) -> None:
    candidates = store.find_by_drug("zeta", chunk_kind="prose")
    reranker = {
        "off": None,
        "failing": FakeReranker(error=ProviderUnavailable("timed out")),
        "succeeding": FakeReranker([Ranked(i, 1 - i / 10) for i in range(len(candidates))][:6]),
    }[state]
    question = "Người lớn uống zeta lúc đói, suy thận, buồn nôn, rượu?"
    uncapped = free_form(store, "zeta", question, EvidencePolicy(), reranker=reranker)
    assert len(uncapped.evidence) == 6 and not uncapped.omitted_evidence_ids
    # A budget that holds the first two blocks of the ordering and not the third
    budget = sum(block_tokens(e) for e in uncapped.evidence[:3]) - 1
    capped = free_form(store, "zeta", question, EvidencePolicy(max_context_tokens=budget), reranker=reranker)
    assert capped.evidence == uncapped.evidence[:2]  # whole blocks, a prefix of the same ordering
    assert capped.omitted_evidence_ids == tuple(e.id for e in uncapped.evidence[2:])
    assert sum(block_tokens(e) for e in capped.evidence) <= budget
    assert capped.system_error == ("rerank_unavailable" if state == "failing" else None)
    assert capped.ordering == uncapped.ordering


def test_a_best_part_over_the_whole_budget_abstains_rather_than_being_cut(store: EdgeStore) -> None:
    bundle = offline(store, max_context_tokens=10)
    assert (bundle.decision, bundle.reason, bundle.evidence) == (
        "ABSTAIN",
        "insufficient_retrieval_score",
        (),
    )
    assert bundle.omitted_evidence_ids and bundle.ordering == "lexical:bm25; no reranker configured"


# -- the service's entry point ------------------------------------------------------------------


def test_retrieve_framed_takes_the_free_form_route_for_a_question_without_section(store: EdgeStore) -> None:
    fake = FakeReranker(error=ProviderUnavailable("down"))
    service = RetrievalService(store, reranker=fake)
    framed = service.retrieve_framed("zeta", None, EMPTY_STOMACH, is_overview=False)
    assert framed == service.free_form("zeta", EMPTY_STOMACH)
    assert framed.system_error == "rerank_unavailable" and len(fake.calls) == 2
    # A named section, an overview, or no question to order by: the other routes, unchanged
    assert service.retrieve_framed("zeta", "than_trong", EMPTY_STOMACH, is_overview=False).ordering is None
    assert service.retrieve_framed("zeta", None, EMPTY_STOMACH) == service.overview("zeta")
    assert service.retrieve_framed("zeta", None, None, is_overview=False) == service.overview("zeta", False)
    assert service.retrieve_framed("zeta", None, "  ", is_overview=False) == service.overview("zeta", False)
    assert len(fake.calls) == 2


# -- the gold files of `duocthu eval free-form` ---------------------------------------------------

# Written first, before any ordering code ran; pinned (tests/gold/manifest.tsv) so that it is never tuned on.
HELD_OUT = "free-form/held-out.jsonl"


def test_the_held_out_questions_are_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    pin = next(row.sha256 for row in goldsets.held_out() if row.file == HELD_OUT)
    assert hashlib.sha256(goldsets.path(HELD_OUT).read_bytes()).hexdigest() == pin
    monkeypatch.setenv("DUOCTHU_GOLD_DIR", str(goldsets.GOLD))  # the eval's files are the manifest's
    assert default_gold() == [goldsets.path("free-form/dev.jsonl"), goldsets.path(HELD_OUT)]


def test_gold_questions_are_free_form_about_real_sections() -> None:
    rows = load_gold(list(goldsets.splits("free-form").values()))
    assert {r.split for r in rows} == {"dev", "heldout"} and len({r.id for r in rows}) == len(rows)
    assert len({r.question for r in rows}) == len(rows)
    sections = {m.drug_id: {s.key for s in m.sections} for m in load_source(sample_formulary_path())}
    for row in rows:
        # no question names a section: they are the questions the free-form route receives
        assert resolve_section(row.question) is None, row
        # and each answering section is one the drug's monograph has
        assert set(row.sections) <= sections[row.drug_id], row
    for split, path in goldsets.splits("free-form").items():
        assert {json.loads(line)["split"] for line in path.read_text(encoding="utf-8").splitlines()} == {
            split.replace("-", "")
        }
