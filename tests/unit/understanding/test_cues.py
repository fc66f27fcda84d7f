"""The cue tables and their scanning (`understanding.cues`): the diacritics rule, gapped cues,
regional wordings, the words that end a finding."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.conditions import find_conditions
from duocthu.core.tables import table_records
from duocthu.understanding.cue_readings import section_matches, strongest_section
from duocthu.understanding.cues import (
    MAX_GAP,
    _cue_tables,
    gapped_forms,
    gapped_section_cues,
    scan_cues,
)
from duocthu.understanding.lexicon import formulary_wording
from duocthu.understanding.pipeline import understand_offline


def resolve_attribute(text: str) -> str | None:
    """The section the words of `text` ask for, as a turn's tags read it."""
    cues = scan_cues(text)
    return strongest_section(cues, section_matches(text, True, cues))


def test_cue_tables_load_and_match_under_the_diacritics_rule() -> None:
    assert len(_cue_tables().contiguous) > 300 and len(_cue_tables().gapped) > 100
    assert scan_cues("thuoc nao gay ho khan").first("reverse_relation") is not None
    assert scan_cues("thuốc nào gãy").first("reverse_relation") is None  # wrong marks: no match
    assert [c.normalized for c in find_conditions("bị ho khan và sốt cao")] == ["ho khan", "sốt"]
    assert resolve_attribute("Thuốc Agirenyl được dùng theo đường nào?") == "lieu_luong_va_cach_dung"
    # a tie between a section's name and a question form goes to the name
    assert resolve_attribute("không nên dùng thuốc khi cho con bú") == "thoi_ky_cho_con_bu"
    assert resolve_attribute("chông chỉ định của ibuprofen") is None  # ambiguous marks


def test_a_plural_determiner_is_skipped_in_rows_and_turns_alike() -> None:
    """A row holds no "các"/"những": the matcher skips them on both sides, wherever they stand,
    and a cue's span still covers the determiner inside it."""
    rows = {(r["kind"], r["phrase"], r.get("value") or "") for r in table_records("understanding_cues.tsv")}
    determiners = {"các", "những", "ghi", "nêu"}
    bare = {
        (kind, " ".join(t for t in phrase.split() if t not in determiners), value)
        for kind, phrase, value in rows
        if determiners & set(phrase.split())
    }
    assert not bare & rows  # no row repeats another with a determiner in front
    for question in ("Ai không được dùng X?", "Những ai không được dùng X?", "nhung ai khong duoc dung X?"):
        assert resolve_attribute(question) == "chong_chi_dinh", question
    cue = scan_cues("tránh những thuốc nào khi dùng X").first("reverse_relation")
    assert cue is not None and (cue.start, cue.length) == (0, 4)
    # a verb saying only that the book writes it is skipped too: the relation asked still reads
    written = scan_cues("thuốc nào có ghi tác dụng không mong muốn hạ natri máu").first("reverse_relation")
    assert written is not None and written.value == "adverse_effect"


def test_chat_spellings_and_abbreviations_are_read_in_the_formularys_words(
    resolver: CatalogDrugResolver,
) -> None:
    assert formulary_wording("Xài prednisolon lâu dài có hại gì cho người hông") == (
        "Dùng prednisolon lâu dài có hại gì cho người không"
    )
    assert formulary_wording("đau hông uống gì") == "đau hông uống gì"  # the hip stays the hip
    assert formulary_wording("liều bnhieu cho an toàn") == "liều bao nhiêu cho an toàn"
    assert formulary_wording("uống dc ko") == "uống được không"
    # the ward's words for haemodialysis are the book's "thẩm phân máu"
    assert formulary_wording("lọc máu có kéo được digoxin ra không").startswith("thẩm phân máu có kéo")
    assert formulary_wording("BN chạy thận nhân tạo") == "bệnh nhân thẩm phân máu"
    assert formulary_wording("muốn dừng thuốc") == "muốn ngừng thuốc"  # the book writes "ngừng"
    assert formulary_wording("truyền TM thì dùng sao") == "truyền tĩnh mạch thì dùng ra sao"
    assert formulary_wording("người Việt có cần xét nghiệm gen không") == (
        "người gốc châu Á có cần xét nghiệm alen HLA không"
    )
    assert (
        formulary_wording("BN THA, CCĐ ntn? INR 3")
        == "bệnh nhân tăng huyết áp, chống chỉ định như thế nào? INR 3"
    )
    frame = understand_offline("thuốc fluoxetin bệnh nào thì không được xài vậy", resolver)
    assert frame.attribute == "chong_chi_dinh"
    overdose = understand_offline("Uống lố liều warfarin thì sao, có thuốc giải hông", resolver)
    assert (overdose.attribute, overdose.standalone_query) == (
        "qua_lieu_va_xu_tri",
        "Uống lố liều warfarin thì sao, có thuốc giải hông",  # what the user wrote
    )


def test_a_gapped_relation_form_never_takes_a_section_question() -> None:
    # "chống chỉ định … thuốc … nào" needs the which-drug words; a section asked alone is no list
    for text in ("Chống chỉ định là gì?", "Thuốc này có chống chỉ định gì không?", "nên ăn gì, kiêng gì?"):
        assert not scan_cues(text).has("reverse_relation"), text
    relation = scan_cues("loét dạ dày thì chống chỉ định những thuốc gì").first("reverse_relation")
    assert relation is not None and relation.value == "contraindication"
    # the drug's own risk of a finding is what it may cause, "gây" said or not
    for text in ("thuốc nào có nguy cơ kéo dài QT", "thuốc nào có nguy cơ gây chảy máu"):
        risk = scan_cues(text).first("reverse_relation")
        assert risk is not None and risk.value == "adverse_effect", text
    dose = scan_cues("trẻ em dùng thuốc nào thì phải hiệu chỉnh liều").first("reverse_relation")
    assert dose is not None and dose.value == "unknown"


def test_gapped_cue_parts_must_be_close_and_in_order() -> None:
    gap = " ".join(["chữ"] * MAX_GAP)
    assert [m.value for m in gapped_section_cues(f"uống {gap} như thế nào")] == ["lieu_luong_va_cach_dung"]
    assert gapped_section_cues(f"uống {gap} thêm như thế nào") == ()
    assert gapped_section_cues("như thế nào thì uống") == ()
    longest = max(gapped_section_cues("uống Biginol Plus Forte như thế nào"), key=lambda m: m.length)
    assert (longest.start, longest.length) == (0, 4)  # it weighs the words it matched, not the gap


def test_nhung_gi_is_a_pronoun_not_a_plural() -> None:
    # "làm những gì" asks what things to do; "làm gì" alone is no caution form of its own
    assert scan_cues("Khi dùng X cần làm những gì?").first("modal_section") is not None
    assert scan_cues("Có thắc mắc về thuốc X thì nên làm gì?").first("modal_section") is None


def test_a_parenteral_mix_asks_compatibility_and_taking_together_an_interaction(
    resolver: CatalogDrugResolver,
) -> None:
    mixed = understand_offline("Lasix tiêm chạy chung dây với midazolam được không?", resolver)
    assert (mixed.drugs, mixed.attribute) == (("furosemid",), "tuong_ky")
    taken = understand_offline("Warfarin uống chung với aspirin được không?", resolver)
    assert taken.turn_type == "interaction"


def test_an_amount_asked_in_a_unit_of_dose_or_time_asks_the_dose() -> None:
    # how much or how long, in any unit a dose is given in or taken for; not an age, not what a
    # unit holds, not a time gone by
    for asked in ("Cozaar khởi đầu mấy mg?", "uống bao nhiêu viên một lần", "Flagyl dùng mấy ngày?"):
        assert resolve_attribute(asked) == "lieu_luong_va_cach_dung", asked
    for told in ("bé mấy tuổi", "viên là mấy mg", "ho khan mấy tuần nay"):
        assert resolve_attribute(told) != "lieu_luong_va_cach_dung", told


def test_nao_after_the_or_khi_asks_how_or_when_never_which() -> None:
    # "tư vấn tránh thai thế nào" is how to advise on contraception, not which drugs to avoid
    assert not gapped_forms("Có vấn đề gì không, tư vấn tránh thai thế nào?", "reverse_relation")
    assert gapped_forms("Bệnh nhân suy thận nên tránh những thuốc nào?", "reverse_relation")
