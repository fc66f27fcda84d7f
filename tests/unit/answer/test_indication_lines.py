"""The compact which-drug reply's lines: per drug the chỉ định sentence naming the condition, with
its source, in the list's order, and why a drug ranks below the direct ones."""

from __future__ import annotations

from duocthu.answer.indication_lines import LINE_WINDOW, REPLY_TARGET, WhichDrugLines, clip, indication_line
from duocthu.answer.replies.relation_list import naming_line
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedDrug, SourceRef


def item(drug: str, part: int, text: str, page: int) -> EvidenceItem:
    ref = SourceRef(book="Dược thư", edition="3", section_heading="Chỉ định", page_start=page, page_end=page)
    return EvidenceItem(
        id=f"{drug}-{part}", drug_id=drug, display_name=drug.title(), section_key="chi_dinh", part_index=part,
        chunk_kind="prose", score=1.0, text=text, source_refs=(ref,),
    )  # fmt: skip


def bundle(*parts: EvidenceItem) -> EvidenceBundle:
    drugs = dict.fromkeys(p.drug_id for p in parts)
    ranked = tuple(
        RankedDrug(drug_id=d, display_name=d.title(), score=1.0,
                   evidence_ids=tuple(p.id for p in parts if p.drug_id == d))
        for d in drugs
    )  # fmt: skip
    return EvidenceBundle(
        decision="ANSWERABLE", reason="grounded_evidence_available", evidence=parts, ranked_drugs=ranked
    )


LINES = WhichDrugLines({"truc": "Trực", "khang": "Kháng"})


def test_each_drug_quotes_its_sentence_naming_the_condition_with_its_source() -> None:
    # Given a drug whose chỉ định is for hypertension and one that names it as a second-line use
    found = bundle(
        item(
            "truc", 0, "Đau thắt ngực. Tăng huyết áp: được chỉ định điều trị tăng huyết áp ở người lớn.", 319
        ),
        item("truc", 1, "Ở trẻ em, dùng trong tăng huyết áp khi có chỉ định.", 320),
        item("khang", 0, "Phù do xơ gan. Tăng huyết áp kháng trị, khi đã dùng đủ ba thuốc.", 379),
    )
    lines = LINES.lines(found, "tăng huyết áp")
    # Then one line per drug in the list's order, each part's sentence naming it, never the rest
    assert lines[2] == (
        "- Trực – Chỉ định – tr. 319, 320: “Tăng huyết áp: được chỉ định điều trị tăng huyết áp ở người lớn” "
        "“Ở trẻ em, dùng trong tăng huyết áp khi có chỉ định”"
    )
    assert lines[3].startswith("- Kháng – Chỉ định – tr. 379 (nêu như lựa chọn khi thuốc khác không phù hợp")
    assert "“Tăng huyết áp kháng trị, khi đã dùng đủ ba thuốc”" in lines[3]
    assert not any("Đau thắt ngực" in line or "Phù do xơ gan" in line for line in lines)
    # and the whole section is a quick reply away
    assert LINES.quick_replies(found) == ["Chỉ định của Trực", "Chỉ định của Kháng"]


def test_many_drugs_share_the_reply_target_and_each_keeps_a_line() -> None:
    long = "Điều trị " + "các bệnh khác, " * 30 + "tăng huyết áp, " + "các bệnh khác, " * 30 + "ở người lớn."
    found = bundle(*(item(f"thuoc_{n}", 0, long, 100 + n) for n in range(8)))
    lines = LINES.lines(found, "tăng huyết áp", used=900)
    assert len(lines) == 10 and all("tăng huyết áp" in line for line in lines[2:])
    assert 900 + sum(len(line) + 1 for line in lines) <= REPLY_TARGET
    assert all(len(line) > LINE_WINDOW for line in lines[2:])  # more than a table cell's, room allowing


def test_a_sentence_goes_on_after_an_abbreviated_genus() -> None:
    text = "Nhiễm khuẩn đường tiết niệu không biến chứng do chủng E. coli còn nhạy cảm. Câu sau."
    line = indication_line([item("x", 0, text, 1)], "nhiễm khuẩn đường tiết niệu", window=200)
    assert line == "“Nhiễm khuẩn đường tiết niệu không biến chứng do chủng E. coli còn nhạy cảm”"


def test_a_part_that_does_not_name_the_condition_shows_its_opening() -> None:
    found = bundle(item("truc", 0, "Điều trị cơn đau thắt ngực ổn định. Câu sau.", 319))
    assert LINES.lines(found, "tăng huyết áp")[2].endswith(
        "(không có câu nêu đúng tình trạng này; đầu đoạn:) “Điều trị cơn đau thắt ngực ổn định”"
    )


def test_a_clipped_line_opens_and_closes_at_word_edges() -> None:
    text = (
        "Do nguy cơ "
        + "tác dụng kéo dài, " * 10
        + "thuốc dùng cho nhiễm khuẩn nặng "
        + "khi khác, " * 10
        + "."
    )
    line = indication_line([item("x", 0, text, 1)], "nhiễm khuẩn")
    shown = line.removeprefix("“…").removesuffix("…”").split()
    opened, closed = shown[0], shown[-1]
    words = text.replace(",", " ").split()
    assert line.startswith("“…") and line.endswith("…”") and "nhiễm khuẩn" in line
    assert opened.rstrip(",") in words and closed.rstrip(",") in words


def test_a_drug_on_a_list_is_quoted_with_its_first_sentence_naming_it_in_book_order() -> None:
    ref = SourceRef(book="Dược thư", edition="3", section_heading="x", page_start=7, page_end=7)

    def part(index: int, text: str) -> EvidenceItem:
        return EvidenceItem(
            id=f"p{index}", drug_id="x", display_name="X", section_key="chong_chi_dinh", part_index=index,
            chunk_kind="prose", score=1.0 - index, text=text, source_refs=(ref,),
        )  # fmt: skip

    later = part(2, "Khi mất nước nặng dễ dẫn tới suy thận cấp.")
    item = part(1, "Vô niệu, suy thận cấp hoặc suy thận nặng.")
    assert naming_line([later, item], ["suy thận cấp"], 200) == "“Vô niệu, suy thận cấp hoặc suy thận nặng”"


def test_a_clipped_line_keeps_the_sentence_opening_when_the_wording_sits_early_in_the_window() -> None:
    text = "Chống chỉ định trong 3 tháng giữa và 3 tháng cuối của thai kỳ " + "vì độc tính, " * 20 + "."
    line = indication_line([item("x", 0, text, 1)], "thai kỳ", window=90)
    assert line.startswith("“Chống chỉ định trong 3 tháng giữa") and line.endswith("…”")


def test_the_line_shown_is_the_sentence_naming_the_condition_as_the_ranking_reads_it() -> None:
    # a part that first names the infection as one the patient does not have, then the drug's use in it
    part = item(
        "truc", 0,
        "Dự phòng loét tái phát ở người bệnh không nhiễm Helicobacter pylori. Phối hợp với hai kháng "
        "sinh trong phác đồ tiệt trừ Helicobacter pylori ở người bệnh loét dạ dày.", 246,
    )  # fmt: skip
    line = indication_line([part], "Helicobacter pylori")
    assert line.startswith("“Phối hợp với hai kháng sinh trong phác đồ tiệt trừ")


def test_a_line_clipped_around_advice_keeps_what_the_advice_is_about() -> None:
    sentence = "Vì gây hạ đường huyết ở trẻ bú mẹ, không dùng thuốc X trong thời kỳ cho con bú; có thể thay."
    assert "không dùng thuốc X trong thời kỳ cho con bú" in clip(sentence, ("không dùng",), 70, says=True)
    assert "thời kỳ cho con bú" not in clip(sentence, ("không dùng",), 70)
    # a list's heading stays: what the advice in it is about is the item itself
    listed = "Thuốc làm tăng nồng độ X: thuốc A, không dùng cùng thuốc C vì độc tính trên tim mạch rất cao."
    assert clip(listed, ("không dùng",), 70, says=True).startswith("“Thuốc làm tăng nồng độ X:")


def test_the_words_a_question_adds_to_the_condition_choose_the_part_and_sentence_quoted_first() -> None:
    # "tiêu chảy của khách du lịch": the part and sentence naming travellers lead the drug's line
    found = bundle(
        item("truc", 0, "Điều trị triệu chứng tiêu chảy mạn tính ở người lớn.", 282),
        item("truc", 1, "Tiêu chảy cấp ở trẻ em. Tiêu chảy của khách du lịch mức độ nhẹ ở người lớn.", 282),
    )
    lines = LINES.lines(found, "tiêu chảy", said="Thuốc nào có chỉ định tiêu chảy của khách du lịch?")
    assert "tr. 282: “Tiêu chảy của khách du lịch mức độ nhẹ ở người lớn” “Điều trị triệu chứng" in lines[2]
    # a word alone ("du" in "ví dụ"), or the section's own name ("chỉ định"), narrows nothing
    plain = LINES.lines(found, "tiêu chảy", said="Thuốc nào có chỉ định tiêu chảy?")
    assert "tr. 282: “Điều trị triệu chứng tiêu chảy mạn tính ở người lớn”" in plain[2]
