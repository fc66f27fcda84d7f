"""RetrievalService over a real Edge shard of hand-made parts: the section route, bounded pooling,
the overview, and the abstentions (reference 09). Lexical scores are counted by hand below."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from duocthu.core.sections import INTRO_SECTIONS, SECTION_ORDER
from duocthu.models.chunk import Chunk
from duocthu.models.evidence import EvidenceItem
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.service import RetrievalService
from duocthu.store.edge import EdgeStore

from tests.factories import make_chunk, publish

LONG = 300  # past Qdrant's default scroll page of 256

# The pooling question: after stop words, its words are
# than trong p loet da day ta trang xuat huyet. Matches per section of thuoc_p are noted.
QUESTION = "Thận trọng gì khi dùng thuốc P cho người loét dạ dày tá tràng xuất huyết?"
POOL_DRUG = {
    "than_trong": ["Theo dõi chức năng gan định kỳ.", "Người cao tuổi cần giảm liều."],
    "chong_chi_dinh": ["Loét dạ dày tá tràng tiến triển."],  # 5: loét dạ dày tá tràng
    # 7, the highest, but the known attractor: never pooled
    "duoc_ly_va_co_che_tac_dung": ["Giảm prostaglandin gây loét dạ dày tá tràng, xuất huyết."],
    "tac_dung_khong_mong_muon": ["Loét dạ dày, xuất huyết tiêu hóa."],  # 5: loét dạ dày xuất huyết
    # 7: loét dạ dày tá tràng xuất huyết
    "tuong_tac_thuoc": ["Phối hợp với chống đông làm tăng nguy cơ loét dạ dày tá tràng, xuất huyết."],
    "lieu_luong_va_cach_dung": ["Uống sau ăn để giảm loét dạ dày tá."],  # 4: below the threshold
}

CONTRAINDICATED_DRUG = {
    "chong_chi_dinh": ["Quá mẫn với thuốc C.", "Người động kinh chưa kiểm soát.", "Trẻ dưới 2 tuổi."],
    "than_trong": ["Người động kinh cần theo dõi cơn co giật."],
    "lieu_luong_va_cach_dung": ["Người lớn uống 1 viên mỗi ngày."],
}


def corpus() -> list[Chunk]:
    chunks = [make_chunk("thuoc_l", "chong_chi_dinh", i, f"Chống chỉ định mục {i}.") for i in range(LONG)]
    for key, texts in POOL_DRUG.items():
        chunks += [make_chunk("thuoc_p", key, i, text) for i, text in enumerate(texts)]
    # the same drug shape, quarantined adverse reactions: pooled only when the cap admits them
    for key, texts in POOL_DRUG.items():
        quarantined = key == "tac_dung_khong_mong_muon"
        chunks += [make_chunk("thuoc_v", key, i, t, quarantined=quarantined) for i, t in enumerate(texts)]
    # another drug whose interaction text matches the question on every word: never pooled into P
    chunks.append(make_chunk("thuoc_q", "tuong_tac_thuoc", 0, QUESTION))
    # a drug without than_trong, although its contraindications match strongly
    chunks.append(make_chunk("thuoc_r", "chong_chi_dinh", 0, POOL_DRUG["tuong_tac_thuoc"][0]))
    # the overview drug: intro and other sections, a table block inside chi_dinh
    chunks += [
        make_chunk("thuoc_o", "lieu_luong_va_cach_dung", 0, "Người lớn: 1 viên."),
        make_chunk("thuoc_o", "chi_dinh", 2, "Đau nửa đầu."),
        make_chunk("thuoc_o", "chi_dinh", 1, "Bảng liều theo chỉ định.", kind="block"),
        make_chunk("thuoc_o", "chi_dinh", 0, "Đau nhẹ và vừa."),
        make_chunk("thuoc_o", "duoc_ly_va_co_che_tac_dung", 1, "Hạ sốt."),
        make_chunk("thuoc_o", "duoc_ly_va_co_che_tac_dung", 0, "Ức chế COX."),
        make_chunk("thuoc_o", "chong_chi_dinh", 0, "Quá mẫn."),
        make_chunk("thuoc_o", "loai_thuoc", 0, "Giảm đau."),
        make_chunk("thuoc_o", "ten_chung_quoc_te", 0, "Thuốc O."),
    ]
    chunks.append(make_chunk("thuoc_t", "chi_dinh", 0, "Chỉ có bảng.", kind="block"))
    # a free-form question whose words find one contraindication among three
    for key, texts in CONTRAINDICATED_DRUG.items():
        chunks += [make_chunk("thuoc_c", key, i, text) for i, text in enumerate(texts)]
    random.Random(6).shuffle(chunks)  # insertion order must not matter
    return chunks


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    edge = EdgeStore(Path(tmp_path_factory.mktemp("retrieval")))
    chunks = corpus()
    publish(edge, chunks)
    yield edge
    edge.close()


def sections_of(evidence: Sequence[EvidenceItem]) -> list[tuple[str, int]]:
    return [(e.section_key, e.part_index) for e in evidence]


# -- section route ---------------------------------------------------------------------------


def test_section_route_reads_past_one_page_in_part_order_without_limit(store: EdgeStore) -> None:
    # Given a 300-part section inserted in random order and a policy whose evidence_limit is 3
    service = RetrievalService(store, EvidencePolicy(evidence_limit=3))
    # When the section is asked for
    bundle = service.by_section("thuoc_l", "chong_chi_dinh")
    # Then every part comes back, in part order, each scored 1.0 (an exact match, not a similarity)
    assert bundle.decision == "ANSWERABLE"
    assert [e.part_index for e in bundle.evidence] == list(range(LONG))
    assert {e.score for e in bundle.evidence} == {1.0}


def test_a_missing_section_abstains_section_absent(store: EdgeStore) -> None:
    service = RetrievalService(store)
    absent = service.by_section("thuoc_p", "thoi_ky_mang_thai")
    assert (absent.decision, absent.reason, absent.evidence) == ("ABSTAIN", "section_absent", ())
    # pooled text never stands in for a missing section, however well it matches
    no_precautions = service.by_section("thuoc_r", "than_trong", QUESTION)
    assert (no_precautions.decision, no_precautions.reason) == ("ABSTAIN", "section_absent")


# -- bounded pooling -------------------------------------------------------------------------


def test_pooling_adds_the_two_best_other_sections_of_the_same_drug(store: EdgeStore) -> None:
    # When a precaution question is routed to than_trong with the default policy
    bundle = RetrievalService(store).by_section("thuoc_p", "than_trong", QUESTION)
    # Then the section comes first, whole, then the pooled parts, best section first:
    # tuong_tac (7), then chong_chi_dinh (5, ahead of tac_dung's 5 in book order); the cap stops
    # there, the attractor (7) is excluded, lieu_luong (4) is under the threshold, thuoc_q is
    # another drug.
    assert sections_of(bundle.evidence) == [
        ("than_trong", 0),
        ("than_trong", 1),
        ("tuong_tac_thuoc", 0),
        ("chong_chi_dinh", 0),
    ]
    assert [e.score for e in bundle.evidence] == [1.0, 1.0, 7.0, 5.0]
    assert {e.drug_id for e in bundle.evidence} == {"thuoc_p"}
    assert bundle.decision == "ANSWERABLE"


def test_the_attractor_is_excluded_outright(store: EdgeStore) -> None:
    # With no exclusion it would be pooled: it scores 7, as high as the true neighbour
    open_policy = EvidencePolicy(lexical_pool_excluded_sections=frozenset())
    pooled = RetrievalService(store, open_policy).pooled_neighbours("thuoc_p", "than_trong", QUESTION)
    assert "duoc_ly_va_co_che_tac_dung" in {e.section_key for e in pooled}
    default = RetrievalService(store).pooled_neighbours("thuoc_p", "than_trong", QUESTION)
    assert "duoc_ly_va_co_che_tac_dung" not in {e.section_key for e in default}


def test_the_threshold_is_at_least_five_matched_words(store: EdgeStore) -> None:
    wide = EvidencePolicy(max_lexical_pooled_sections=10)
    pooled = RetrievalService(store, wide).pooled_neighbours("thuoc_p", "than_trong", QUESTION)
    # 7 and both 5s are in (5 is enough), lieu_luong's 4 is out
    assert [(e.section_key, e.score) for e in pooled] == [
        ("tuong_tac_thuoc", 7.0),
        ("chong_chi_dinh", 5.0),
        ("tac_dung_khong_mong_muon", 5.0),
    ]
    lower = EvidencePolicy(max_lexical_pooled_sections=10, lexical_pool_min_score=4.0)
    with_four = RetrievalService(store, lower).pooled_neighbours("thuoc_p", "than_trong", QUESTION)
    assert "lieu_luong_va_cach_dung" in {e.section_key for e in with_four}


def test_at_most_two_sections_are_pooled(store: EdgeStore) -> None:
    # Given three sections over the threshold, one of them quarantined (thuoc_v)
    capped = RetrievalService(store).by_section("thuoc_v", "than_trong", QUESTION)
    uncapped = RetrievalService(store, EvidencePolicy(max_lexical_pooled_sections=3)).by_section(
        "thuoc_v", "than_trong", QUESTION
    )
    # Then the cap of 2 leaves the third out; admitted, its quarantine makes the answer VERIFY_PDF
    assert len({e.section_key for e in capped.evidence}) == 3 and capped.decision == "ANSWERABLE"
    assert len({e.section_key for e in uncapped.evidence}) == 4
    assert (uncapped.decision, uncapped.reason) == ("VERIFY_PDF", "visual_verification_required")


def test_pooling_is_off_outside_its_routes_and_without_a_question(store: EdgeStore) -> None:
    service = RetrievalService(store)
    # another route with the same question: the section alone
    other = service.by_section("thuoc_p", "chong_chi_dinh", QUESTION)
    assert sections_of(other.evidence) == [("chong_chi_dinh", 0)]
    # the pooled route without a question
    bare = service.by_section("thuoc_p", "than_trong")
    assert sections_of(bare.evidence) == [("than_trong", 0), ("than_trong", 1)]
    # pooling switched off by policy
    off = RetrievalService(store, EvidencePolicy(lexical_pool_sections=frozenset()))
    assert len(off.by_section("thuoc_p", "than_trong", QUESTION).evidence) == 2
    zero = RetrievalService(store, EvidencePolicy(max_lexical_pooled_sections=0))
    assert len(zero.by_section("thuoc_p", "than_trong", QUESTION).evidence) == 2


# -- overview --------------------------------------------------------------------------------


def test_overview_keeps_intro_prose_in_book_order_with_section_labels(store: EdgeStore) -> None:
    bundle = RetrievalService(store).overview("thuoc_o")
    assert sections_of(bundle.evidence) == [
        ("ten_chung_quoc_te", 0),
        ("loai_thuoc", 0),
        ("duoc_ly_va_co_che_tac_dung", 0),
        ("duoc_ly_va_co_che_tac_dung", 1),
        ("chi_dinh", 0),
        ("chi_dinh", 2),  # part 1 is a table block: descriptors stay out of a text answer
    ]
    assert {e.section_key for e in bundle.evidence} <= INTRO_SECTIONS
    texts = [e.text for e in bundle.evidence]
    assert texts == [
        "【THUOC_O】 Thuốc O.",
        "【THUOC_O】 Giảm đau.",
        "【THUOC_O】 Ức chế COX.",
        "Hạ sốt.",
        "【THUOC_O】 Đau nhẹ và vừa.",
        "Đau nửa đầu.",
    ]
    assert bundle.decision == "ANSWERABLE"


def test_overview_of_the_whole_monograph_when_not_a_drug_overview_turn(store: EdgeStore) -> None:
    bundle = RetrievalService(store).overview("thuoc_o", intro_only=False)
    keys = [e.section_key for e in bundle.evidence]
    assert keys == sorted(keys, key=SECTION_ORDER.__getitem__)
    assert {"chong_chi_dinh", "lieu_luong_va_cach_dung"} <= set(keys)
    assert all(e.chunk_kind == "prose" for e in bundle.evidence)
    assert sum(e.text.startswith("【") for e in bundle.evidence) == len(set(keys))


def test_overview_without_prose_abstains(store: EdgeStore) -> None:
    for drug in ("thuoc_t", "khong_ton_tai"):
        bundle = RetrievalService(store).overview(drug, intro_only=False)
        assert (bundle.decision, bundle.reason) == ("ABSTAIN", "insufficient_retrieval_score")


def test_retrieve_framed_routes(store: EdgeStore) -> None:
    service = RetrievalService(store)
    assert service.retrieve_framed("thuoc_p", "than_trong", QUESTION) == service.by_section(
        "thuoc_p", "than_trong", QUESTION
    )
    assert service.retrieve_framed("thuoc_o", None) == service.overview("thuoc_o")  # callers' old form
    assert service.retrieve_framed("thuoc_o", None, is_overview=False) == service.overview(
        "thuoc_o", intro_only=False
    )


def test_a_contraindication_part_ordered_in_brings_its_whole_section(store: EdgeStore) -> None:
    # one of three contraindications shares the question's words: quoted alone under the
    # section's heading it would read as the whole list, so the section comes whole, where it stood
    bundle = RetrievalService(store).free_form("thuoc_c", "Người động kinh dùng thuốc C được không?")
    found = sections_of(bundle.evidence)
    whole = [("chong_chi_dinh", 0), ("chong_chi_dinh", 1), ("chong_chi_dinh", 2)]
    at = found.index(whole[0])
    assert found[at : at + 3] == whole and found.count(whole[0]) == 1
    assert ("than_trong", 0) in found
