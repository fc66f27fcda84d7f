"""The relation lookups over a real Edge shard: which drugs' ADR, chống chỉ định, thận trọng or
population section names a finding, the wider findings listed apart, and how one named drug's
section names what is asked."""

from __future__ import annotations

import json
from pathlib import Path

from duocthu.core.populations import population_wordings
from duocthu.models.frame import ConditionQuery, PatientContext, QueryFrame
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.retrieval.reverse.relation import (
    RelationSearch,
    relation_phrases,
    relation_searches,
    retrieve_by_relation,
    retrieve_for_relation,
    with_section_reading,
)
from duocthu.retrieval.reverse.wordings import wider_findings

from tests.conftest import ROOT
from tests.unit.retrieval.reverse.shards import chunk, shard


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


def test_a_wider_finding_lists_its_drugs_apart_and_quoted(tmp_path: Path) -> None:
    adr = "tac_dung_khong_mong_muon"
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
    # a finding that is a population's own wording and no more is that population; so is a stage of
    # pregnancy, searched by the pregnancy's wordings and kept to the stage (`reverse.stages`)
    assert {"mang thai", "có thai"} <= set(relation_phrases(avoid_question("thai kỳ", None)))
    assert {"mang thai", "thai kỳ"} <= set(relation_phrases(avoid_question("3 tháng cuối thai kỳ", None)))
    # asking no finding of a patient told pregnant ("3 tháng cuối thai kỳ thì CCĐ thuốc nào?"): the pregnancy
    told = QueryFrame(
        turn_type="condition_relation",
        condition_relation="contraindication",
        patient_context=PatientContext(pregnancy=True, pregnancy_stage="3 tháng cuối"),
    )
    assert {"mang thai", "thai kỳ"} <= set(relation_phrases(told))
    # so is a named drug's finding no table names: the population is its patient's, not what is asked
    named = QueryFrame(
        turn_type="drug_attribute",
        drugs=("furosemid",),
        condition_relation="adverse_effect",
        condition=ConditionQuery(text="lắng đọng calci ở thận"),
        population="tre_em",
    )
    assert relation_phrases(named) == ("lắng đọng calci ở thận",)
    # an age told apart from the finding is the patient's: the finding is searched ("Bé 5 tuổi …,
    # thuốc nào CCĐ ở trẻ thiếu G6PD?"); an age inside it is the band asked ("trẻ dưới 2 tuổi")
    child = avoid_question("ở trẻ thiếu g6pd", "tre_em").model_copy(update={"age_text": "5 tuổi"})
    assert relation_phrases(child) == ("trẻ thiếu g6pd",)
    band = avoid_question("trẻ dưới 2 tuổi", "tre_em").model_copy(update={"age_text": "2 tuổi"})
    assert relation_phrases(band) == population_wordings("tre_em")
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
    # a finding the ADR list leaves out may stand in Thận trọng or Dược lý as the drug's effect
    assert [s.section_key for s in relation_searches(adverse)] == [
        "tac_dung_khong_mong_muon",
        "than_trong",
        "duoc_ly_va_co_che_tac_dung",
    ]

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
        # the pregnancy section seconding thuoc_a's contraindication is its evidence too
        seconded = ("thuoc_a", "thoi_ky_mang_thai")
        assert {(e.drug_id, e.section_key) for e in bundle.evidence} == {*listed, seconded}
        assert bundle.ordering == "keyword:chong_chi_dinh+thoi_ky_mang_thai"
        # a few drugs asked among: each under every section that names it
        every = retrieve_by_relation(edge, searches, every_section=True)
        assert [(d.drug_id, d.section_key) for d in every.ranked_drugs] == [
            ("thuoc_a", "chong_chi_dinh"),
            ("thuoc_a", "thoi_ky_mang_thai"),
            ("thuoc_b", "thoi_ky_mang_thai"),
        ]


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


def test_the_relation_gold_names_sample_drugs_with_their_evidence() -> None:
    from duocthu.tools.evals.relation import load_gold

    rows = load_gold(ROOT / "tests" / "gold" / "relation/dev-and-held-out.jsonl")
    assert {r.split for r in rows} == {"dev", "heldout"} and len({r.id for r in rows}) == len(rows)
    sample = {path.stem for path in (ROOT / "shared" / "duocthu" / "sample_formulary").glob("*.json")}
    raw = [
        json.loads(line)
        for line in (ROOT / "tests" / "gold" / "relation/dev-and-held-out.jsonl")
        .read_text("utf-8")
        .splitlines()
    ]
    for row, data in zip(rows, raw, strict=True):
        assert set(row.expected_drugs) <= sample
        assert set(data["evidence"]) == set(row.expected_drugs)  # every drug counted says why


def test_a_which_drugs_cause_lookup_lists_a_drug_under_the_section_that_states_the_effect(
    tmp_path: Path,
) -> None:
    adr, caution, pharmacology = "tac_dung_khong_mong_muon", "than_trong", "duoc_ly_va_co_che_tac_dung"
    parts = [
        chunk("thuoc_a", 0, "Hiếm gặp: kéo dài khoảng QT, xoắn đỉnh.", adr),
        chunk("thuoc_a", 1, "Thuốc có thể kéo dài khoảng QT.", caution),
        chunk("thuoc_b", 0, "Thuốc có thể kéo dài khoảng QT và gây xoắn đỉnh.", caution),
        chunk(
            "thuoc_c",
            0,
            "Hậu quả là nhịp xoang chậm lại và khoảng QT kéo dài trên điện tâm đồ.",
            pharmacology,
        ),
        chunk("thuoc_d", 0, "Ở liều điều trị, thuốc không làm kéo dài khoảng QT.", pharmacology),
        chunk("thuoc_e", 0, "Thận trọng ở người có khoảng QT kéo dài bẩm sinh.", caution),
    ]
    frame = QueryFrame(
        turn_type="condition_relation",
        condition=ConditionQuery(text="kéo dài khoảng QT", normalized="kéo dài khoảng QT"),
        condition_relation="adverse_effect",
    )
    with shard(tmp_path, parts) as edge:
        bundle = retrieve_for_relation(edge, frame)
    found = {d.drug_id: d.section_key for d in (*bundle.ranked_drugs, *bundle.unlisted_drugs)}
    # each drug once, under the first section stating it: the ADR list, then Thận trọng, then Dược lý
    assert found == {"thuoc_a": adr, "thuoc_b": caution, "thuoc_c": pharmacology}


def test_a_which_drugs_question_naming_a_safety_section_is_read_in_that_section(tmp_path: Path) -> None:
    """ "thuốc nào cần thận trọng / tương tác với X": no relation word, the section named is the
    relation; a name without a monograph is the finding; who has an unnamed finding is not part
    of the phrase searched."""
    parts = [
        chunk("thuoc_a", 0, "Người bệnh nhược cơ không nên dùng thuốc này.", "chong_chi_dinh"),
        chunk("thuoc_b", 0, "Thận trọng ở người suy gan.", "than_trong"),
        chunk("thuoc_c", 0, "Clarithromycin làm tăng nồng độ thuốc.", "tuong_tac_thuoc"),
    ]
    unknown = QueryFrame(
        turn_type="condition_relation",
        condition=ConditionQuery(text="suy gan", normalized="suy gan"),
        condition_relation="unknown",
    )
    assert [s.section_key for s in relation_searches(unknown)] == []
    assert [s.section_key for s in relation_searches(unknown, candidates=("chi_dinh", "than_trong"))] == [
        "than_trong"
    ]
    # no finding, no name ("thuốc nào an toàn cho phụ nữ có thai"): no section lists what is asked
    safe_list = unknown.model_copy(update={"condition": None, "population": "phu_nu_co_thai"})
    assert relation_searches(safe_list, candidates=("thoi_ky_mang_thai",)) == ()
    unnamed = avoid_question("ở người nhược cơ", None)
    assert relation_phrases(unnamed) == ("nhược cơ",)
    named_drug = QueryFrame(turn_type="drug_attribute", attribute="tuong_tac_thuoc")
    with shard(tmp_path, parts) as edge:
        caution = retrieve_for_relation(edge, unknown, candidates=("than_trong",))
        assert [d.drug_id for d in caution.ranked_drugs] == ["thuoc_b"]
        assert [d.drug_id for d in retrieve_for_relation(edge, unnamed).ranked_drugs] == ["thuoc_a"]
        bundle = retrieve_for_relation(
            edge, named_drug, candidates=("tuong_tac_thuoc",), names=("clarithromycin",)
        )
        assert [(d.drug_id, d.section_key) for d in bundle.ranked_drugs] == [("thuoc_c", "tuong_tac_thuoc")]


def test_a_contraindication_its_population_section_seconds_is_listed_first(tmp_path: Path) -> None:
    """Among the drugs whose contraindications name the population, those whose own section
    also advises against use come first, the firmest wording of the data file first, whatever
    the contraindication lines score: the cap keeps them."""
    searches = relation_searches(avoid_question("phụ nữ có thai", "phu_nu_co_thai"))
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Phụ nữ mang thai.", section_key="chong_chi_dinh"),
            chunk("thuoc_b", 0, "Suy gan; phụ nữ mang thai khi dùng liều cao.", section_key="chong_chi_dinh"),
            chunk("thuoc_b", 1, "Chống chỉ định trong thời kỳ mang thai.", section_key="thoi_ky_mang_thai"),
            chunk("thuoc_c", 0, "Suy thận; phụ nữ mang thai.", section_key="chong_chi_dinh"),
            chunk("thuoc_c", 1, "Không nên dùng khi mang thai.", section_key="thoi_ky_mang_thai"),
        ],
    ) as edge:
        bundle = retrieve_by_relation(edge, searches)
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_b", "thuoc_c", "thuoc_a"]
        capped = retrieve_by_relation(edge, searches, EvidencePolicy(indication_candidate_limit=1))
        assert [d.drug_id for d in capped.ranked_drugs] == ["thuoc_b"]


def test_a_finding_asked_with_words_the_book_never_writes_beside_it_is_searched_as_the_book_writes_it(
    tmp_path: Path,
) -> None:
    # the longest run of the finding's words a section writes, the later of two as long; never a
    # run holding a section's name, never one word alone
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Bệnh nhược cơ; suy hô hấp nặng.", section_key="chong_chi_dinh"),
            chunk("thuoc_b", 0, "Thận trọng vì có thể làm nặng thêm bệnh.", section_key="than_trong"),
            chunk("thuoc_c", 0, "Suy gan nặng.", section_key="chong_chi_dinh"),
        ],
    ) as edge:
        bundle = retrieve_for_relation(
            edge, avoid_question("hoặc phải thận trọng vì làm nặng nhược cơ", None)
        )
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
        assert bundle.searched_as == "nhược cơ"
        # a finding the book writes as asked is searched as asked
        bundle = retrieve_for_relation(edge, avoid_question("suy gan nặng", None))
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_c"] and bundle.searched_as is None
        # no run of two words any section writes: nothing is listed
        bundle = retrieve_for_relation(edge, avoid_question("nặng quá mức", None))
        assert not bundle.ranked_drugs and bundle.searched_as is None
