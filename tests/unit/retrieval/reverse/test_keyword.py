"""The keyword pass (reference 09 §5) over a real Edge shard of hand-made parts: the phrase
rules, the score formula, and how each section reads a mention (negations, leads, another
condition's name, the formulary's wordings)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from duocthu.core.text import words
from duocthu.models.chunk import Chunk
from duocthu.models.evidence import EvidenceItem
from duocthu.retrieval.reverse.keyword import find_by_indication, indication_score
from duocthu.store.edge import EdgeStore

from tests.unit.retrieval.reverse.shards import chunk, drugs, shard

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


def test_a_finding_is_searched_in_the_formularys_wordings_too(tmp_path: Path) -> None:
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
