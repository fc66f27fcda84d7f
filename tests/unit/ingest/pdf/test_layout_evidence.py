"""Structure from evidence every layout keeps: each test fails on the converter that trusted one
renderer's habits (a gutter at the page's middle, bold headings, a header band, bold titles)."""

from __future__ import annotations

from typing import Any

import pytest
from duocthu.ingest.pdf.columns import _gutter, _splits
from duocthu.ingest.pdf.convert import _by_name, _degrade, number_pages
from duocthu.ingest.pdf.layout import Line, PageRead, folio_candidates
from duocthu.ingest.pdf.read import Reader
from duocthu.ingest.pdf.repair import join_lines, resolve_breaks
from duocthu.ingest.pdf.structure import MonographDraft, _key_text, heading_keys, is_title


def _line(text: str, size: float = 9.0, bold: bool = False, indent: float = 0.0, page: int = 1) -> Line:
    return Line(page, None, "L", 50.0 + indent, 100.0, text, bold, size, indent=indent)


def _row(text: str, x0: float, top: float, size: float = 9.0, width: float = 4.5) -> list[dict[str, Any]]:
    return [
        {
            "text": ch,
            "fontname": "F",
            "size": size,
            "x0": x0 + i * width,
            "x1": x0 + (i + 1) * width,
            "top": top,
            "bottom": top + size,
            "matrix": (1, 0, 0, 1, x0 + i * width, 800 - top),
        }
        for i, ch in enumerate(text)
    ]


def test_gutter_found_off_centre_with_line_end_spaces_reaching_into_it() -> None:
    # Given a mirrored right-hand page: the text block sits 20 pt right of the page centre (297.6),
    # the left column ends at 305, the right starts at 320, and each left line ends in a space glyph
    width = 595.0
    rows = []
    for n in range(30):
        top = 100.0 + 12 * n
        rows.append(_row("x" * 57 + " ", 48.0, top) + _row("y" * 50, 320.0, top))
    # When the gutter is looked for
    gutter = _gutter(rows, width)
    # Then it is the gap between the columns, not the page's middle (which the left column covers)
    assert gutter is not None
    assert 305.0 <= gutter[2] <= 320.0


def test_one_column_page_has_no_gutter() -> None:
    rows = [_row("z" * 100, 60.0, 100.0 + 12 * n) for n in range(20)]
    assert _gutter(rows, 595.0) is None


def test_a_short_right_column_with_a_ragged_edge_is_one_column_not_two() -> None:
    # Given a page whose right column holds four lines, three of them ending short of the same
    # point and one running past it (no line has text of its own beyond that point)
    rows = [_row("x" * 55, 48.0, 100.0 + 12 * n) for n in range(30)]
    rows[:3] = [r + _row("y" * 20, 317.0, r[0]["top"]) for r in rows[:3]]
    rows[3] = rows[3] + _row("y" * 40, 307.0, rows[3][0]["top"])
    # Then the page has two columns: the gap beside the short lines is no third column's gutter
    assert len(_splits(rows, 595.0, (48.0, 560.0))) == 1


@pytest.mark.parametrize(
    ("printed", "key"),
    [
        ("CHỈ ĐỊNH", "chi_dinh"),
        ("3. Chống chỉ định", "chong_chi_dinh"),
        ("Thận trọng:", "than_trong"),
        ("Thoi ki mang thai", "thoi_ky_mang_thai"),  # accents lost, kì for kỳ
        ("Thông tin và quy chế", "thong_tin_qui_che"),
        ("Dạng bào chế và hàm lượng", "dang_thuoc_va_ham_luong"),
    ],
)
def test_heading_vocabulary_tolerates_case_numbering_colons_accents_and_variants(
    printed: str, key: str
) -> None:
    assert heading_keys().get(_key_text(printed)) == key


def test_heading_placed_by_vocabulary_without_bold_but_prose_is_not() -> None:
    # Given a monograph whose headings are set in the regular weight (a writer that fakes bold)
    reader = Reader(body_size=9.0)
    for line in (
        _line("AMOXICILIN", size=12.0),
        _line("Tên chung quốc tế: Amoxicillin."),
        _line("CHỈ ĐỊNH"),
        _line("Nhiễm khuẩn đường hô hấp.", indent=10.0),
        _line("chỉ định"),  # a lower-case line of running text is no heading
    ):
        reader.feed(line)
    # Then the heading opened its section and the prose went into it
    mono = reader.monographs[0]
    assert [s.key for s in mono.sections] == ["ten_chung_quoc_te", "chi_dinh"]
    assert "chỉ định" in mono.sections[-1].paragraph
    assert not reader.problems


def test_run_in_heading_is_a_bold_label_the_vocabulary_places() -> None:
    # Given headings set run-in ("Chỉ định: text" on one line), the label bold, the text regular
    reader = Reader(body_size=9.0)
    for line in (
        _line("AMOXICILIN", size=12.0),
        _line("Tên chung quốc tế: Amoxicillin."),
        Line(
            1, None, "L", 50.0, 100.0, "3. Chỉ định: Nhiễm khuẩn đường", False, 9.0, bold_lead="3. Chỉ định:"
        ),
        _line("hô hấp. Thận trọng: xem dưới."),  # a plain label in running text stays text
        Line(
            1, None, "L", 50.0, 100.0, "Tác dụng không mong muốn (ADR): Ban", False, 9.0, bold_lead="Tác dụng"
        ),
    ):
        reader.feed(line)
    # Then each bold label opened its section with the rest of the line as its first text
    mono = reader.monographs[0]
    assert [s.key for s in mono.sections] == ["ten_chung_quoc_te", "chi_dinh"]
    assert mono.sections[-1].paragraph.startswith("Nhiễm khuẩn đường hô hấp. Thận trọng: xem dưới.")
    # a label only partly bold is no run-in heading: its line stays text
    assert "Tác dụng không mong muốn (ADR): Ban" in mono.sections[-1].paragraph


def test_run_in_heading_in_the_texts_own_weight_opens_the_next_section_only() -> None:
    # Given run-in labels set regular, like their text (no weight to tell them by)
    reader = Reader(body_size=9.0)
    for line in (
        _line("AMOXICILIN", size=12.0),
        _line("Tên chung quốc tế: Amoxicillin."),
        _line("Chỉ định: Nhiễm khuẩn đường hô hấp."),  # unindented, after a finished sentence
        _line("Thận trọng: xem dưới."),  # the next section in the book's order
        _line("Chỉ định: đã nêu."),  # a section already read: running text
        _line("Quá liều và xử trí: xem", indent=12.0),  # an indented line starts a paragraph only
        _line("Tương tác thuốc: dùng"),  # after an open sentence: running text
    ):
        reader.feed(line)
    # Then a label opens its section only where a block starts and the book's order goes on
    mono = reader.monographs[0]
    assert [s.key for s in mono.sections] == ["ten_chung_quoc_te", "chi_dinh", "than_trong"]
    assert mono.sections[-1].paragraph.endswith("Tương tác thuốc: dùng")
    assert not reader.problems


def test_run_in_label_wrapped_over_two_lines_in_the_texts_weight() -> None:
    # Given a narrow column that wraps a run-in label set regular, like its text
    reader = Reader(body_size=9.0)
    for line in (
        _line("CIPROFLOXACIN", size=12.0),
        _line("Loại thuốc: Kháng sinh."),
        _line("DẠNG BÀO CHẾ VÀ HÀM"),
        _line("LƯỢNG: Viên nén 250 mg."),
        _line("Chỉ định đã nêu, và"),  # a block start whose next line's label does not complete it
        _line("Liều: xem dưới."),
    ):
        reader.feed(line)
    # Then the two lines are one label: the section opens, the line before is taken back
    mono = reader.monographs[0]
    assert [s.key for s in mono.sections] == ["loai_thuoc", "dang_thuoc_va_ham_luong"]
    assert [b["text"] for b in mono.sections[0].blocks] == ["Kháng sinh."]
    assert mono.sections[1].paragraph == "Viên nén 250 mg. Chỉ định đã nêu, và Liều: xem dưới."


def test_title_by_prominence_with_synonym_in_parentheses() -> None:
    # Given a title not bold, set larger than the 9 pt body, with a synonym
    title = _line("ACID ACETYLSALICYLIC (Aspirin)", size=12.0)
    assert is_title(title, 9.0)
    assert not is_title(_line("CHỈ ĐỊNH", size=9.0), 9.0)  # an upper-case heading at body size
    reader = Reader(body_size=9.0)
    reader.feed(title)
    reader.feed(_line("Tên chung quốc tế: Acetylsalicylic acid."))
    # Then the title is the part before the parenthesis and the synonym is kept
    assert reader.monographs[0].title == "Acid acetylsalicylic"
    assert reader.monographs[0].synonyms == ["Aspirin"]


def test_bold_caption_over_two_lines_is_a_caption_not_a_heading() -> None:
    reader = Reader(body_size=9.0)
    for line in (
        _line("PARACETAMOL", size=12.0),
        _line("Tên chung quốc tế: Paracetamol."),
        _line("Liều lượng và cách dùng", bold=True),
        _line("Bảng 1: Liều theo cân nặng cho trẻ em", bold=True),
        _line("(đường uống)", bold=True),
    ):
        reader.feed(line)
    table = Line(
        1,
        None,
        "L",
        50.0,
        200.0,
        "Cân nặng | Liều",
        False,
        0.0,
        rows=[["Cân nặng", "Liều"], ["10 kg", "150 mg"]],
    )
    reader.feed(table)
    assert not reader.problems
    block = reader.monographs[0].sections[-1].blocks[-1]
    assert block["kind"] == "table"
    assert str(block["text"]).startswith("Liều theo cân nặng cho trẻ em (đường uống)\n")


def test_hard_hyphen_at_line_end_is_kept() -> None:
    assert join_lines("hội chứng Stevens-", "Johnson") == "hội chứng Stevens-Johnson"
    # lower case: the book's own mid-line spellings decide
    joined = join_lines("nhóm beta-", "lactam và amoxi-") + " "
    joined = join_lines(joined.strip(), "cilin")
    assert resolve_breaks(joined, {"beta-lactam"}) == "nhóm beta-lactam và amoxicilin"
    # after a number the hyphen is a locant's: typesetters hyphenate between letters only
    assert join_lines("dẫn chất 4-", "hydroxycoumarin") == "dẫn chất 4-hydroxycoumarin"
    assert join_lines("thụ thể beta2-", "adrenergic") == "thụ thể beta2-adrenergic"


def _page(index: int, numbers: list[int], romans: list[str] = []) -> PageRead:  # noqa: B006
    return PageRead(index, [_line("x", page=index)], numbers, romans)


def test_printed_numbers_from_either_end_checked_to_increase_roman_front_matter() -> None:
    # Given roman front matter, then running heads printing "116 … DTQGVN 2" / "DTQGVN 2 … 117"
    # (both ends are numbers on a left-hand page), and a page printing none
    assert folio_candidates(["116", "Aciclovir", "DTQGVN", "2"]) == ([116, 2], [])
    assert folio_candidates(["iv"]) == ([], ["iv"])
    pages = [
        _page(1, [], ["iii"]),
        _page(2, [], ["iv"]),
        _page(3, [87]),
        _page(4, [88, 2]),
        _page(5, [2, 89]),
        _page(6, []),
        _page(7, [91, 2]),
    ]
    front, problems = number_pages(pages)
    assert front == {1, 2}
    assert [p.lines[0].printed for p in pages] == [None, None, 87, 88, 89, 90, 91]
    assert not problems


def test_an_empty_section_is_left_out_and_its_monograph_kept() -> None:
    draft = MonographDraft("Amoxicilin", _line("AMOXICILIN"))
    section = {
        "key": "chi_dinh",
        "heading": "Chỉ định",
        "pages": {"start": 1, "end": 1},
        "pdf_pages": {"start": 1, "end": 1},
        "blocks": [],
    }
    good = {
        **section,
        "key": "ten_chung_quoc_te",
        "heading": "Tên chung quốc tế",
        "blocks": [{"kind": "prose", "text": "Amoxicillin."}],
    }
    record = {
        "drug_id": "amoxicilin",
        "title": "Amoxicilin",
        "aliases": [],
        "brands": [],
        "atc_codes": [],
        "source": {"book": "b", "edition": "e"},
        "sample_data": True,
        "notice": "n",
        "sections": [good, section],
    }
    kept, problems = _degrade(draft, record)
    assert kept is not None and [s["key"] for s in kept["sections"]] == ["ten_chung_quoc_te"]
    assert len(problems) == 1 and "chi_dinh" in problems[0].message


def test_a_heading_word_that_ends_a_wrapped_sentence_is_running_text() -> None:
    # Given a paragraph whose wrapped last line reads like a heading ("… xem mục" / "Thận trọng.")
    reader = Reader(body_size=9.0)
    for line in (
        _line("PARACETAMOL", size=12.0),
        _line("Tên chung quốc tế: Paracetamol."),
        _line("Chỉ định"),
        _line("Giảm đau, hạ sốt; với người nghiện rượu xem mục", indent=10.0),
        _line("Thận trọng."),
        _line("Thận trọng"),
        _line("Người suy gan.", indent=10.0),
    ):
        reader.feed(line)
    # Then only the line that starts a block is a heading
    sections = reader.monographs[0].sections
    assert [s.key for s in sections] == ["ten_chung_quoc_te", "chi_dinh", "than_trong"]
    sections[1].close()
    assert str(sections[1].blocks[0]["text"]).endswith("xem mục Thận trọng.")
    assert not reader.problems


def test_an_in_column_table_continued_in_the_next_column_under_its_header_is_one_table() -> None:
    reader = Reader(body_size=9.0)
    for line in (
        _line("LOPERAMID", size=12.0),
        _line("Tên chung quốc tế: Loperamide."),
        _line("Liều lượng và cách dùng", bold=True),
        _line("Bảng 1: Liều ngày đầu cho trẻ em"),
    ):
        reader.feed(line)
    header = ["Tuổi", "Liều"]
    for column, row in (("L", ["2–5 tuổi", "1 mg"]), ("R", ["6–8 tuổi", "2 mg"])):
        reader.feed(Line(1, None, column, 50.0, 700.0, " | ".join(header), False, 0.0, rows=[header, row]))
    blocks = reader.monographs[0].sections[-1].blocks
    assert [b["kind"] for b in blocks] == ["table"]
    assert str(blocks[0]["text"]).endswith("2–5 tuổi | 1 mg\n6–8 tuổi | 2 mg")


def test_a_title_jutting_into_the_gutter_stays_in_its_column_a_centred_one_spans() -> None:
    from duocthu.ingest.pdf.layout import spans

    # Given a split at 297.5 between columns ending at 289 and starting at 306
    jutting = _row("DIETHYLPROPION (AMFEPRAMONE) 5", 48.0, 194.0, size=13.0, width=8.4)  # ends at 300
    beside = _row("Mã ATC: L03AB10", 307.0, 196.0)
    centred = _row("MỤC LỤC TRA CỨU", 224.0, 68.0, size=12.0, width=8.0)
    assert not spans(jutting + beside, 297.5)
    assert spans(centred, 297.5)
    assert spans(_row("x" * 100, 48.0, 300.0), 297.5)  # a full-width caption


def test_brand_index_generic_resolves_to_a_group_monographs_member() -> None:
    # Given a group monograph (one heading for a drug and its salt) and a plain one
    group = MonographDraft("Calci clorid và calci gluconat", _line("CALCI CLORID VÀ CALCI GLUCONAT"))
    plain = MonographDraft("Calci gluconat", _line("CALCI GLUCONAT"), synonyms=["Calcium"])
    names = _by_name([group, plain])
    # Then a member finds the group, a title wins over another monograph's member
    assert names["calci clorid"] is group
    assert names["calci gluconat"] is plain
    assert names["calcium"] is plain


def test_a_descriptor_line_under_a_title_is_part_of_its_title() -> None:
    # Given a title, then a parenthesis of the text's size wrapped over two lines, then identity lines
    reader = Reader(body_size=9.0)
    for line in (
        _line("BUDESONID", size=12.0),
        _line("(Dùng trong"),
        _line("hô hấp)"),
        _line("Tên chung quốc tế: Budesonide."),
    ):
        reader.feed(line)
    # Then the monograph is that form of the drug (its own title and id), with no problem
    mono = reader.monographs[0]
    assert (mono.title, mono.drug_id) == ("Budesonid (dùng trong hô hấp)", "budesonid_dung_trong_ho_hap")
    assert mono.synonyms == [] and not reader.problems


def _cells(*pieces: tuple[float, str], size: float = 7.5) -> Line:
    cells = tuple((x0, x0 + 4.0 * len(text), text) for x0, text in pieces)
    x0, x1 = cells[0][0], cells[-1][1]
    line = Line(1, None, "L", x0, 100.0, " ".join(t for _, t in pieces), False, size, x1=x1)
    line.cells = cells if len(cells) > 1 else ()
    return line


def test_a_table_without_rules_is_read_from_its_cells_alignment() -> None:
    # Given a caption, then lines whose pieces stand at the same column edges, wrapped cells, then
    # a run-in heading in the text's size
    reader = Reader(body_size=9.0)
    for line in (
        _line("AMOXICILIN", size=12.0),
        _line("Tên chung quốc tế: Amoxicillin."),
        _line("Liều lượng và cách dùng", bold=True),
        _line("Bảng 1: Liều theo tuổi"),
        _cells((50.0, "Tuổi"), (120.0, "Liều")),
        _cells((50.0, "2–5 tuổi"), (120.0, "1 mg/lần,")),
        _cells((120.0, "ngày 3 lần")),  # the second cell wrapped: the first column is empty
        _cells((50.0, "6–8 tuổi"), (120.0, "2 mg")),
        _cells((50.0, "8–12"), (120.0, "3 mg/")),
        _cells((50.0, "tuổi"), (120.0, "lần")),  # a cell goes on in lower case: the same row
        Line(1, None, "L", 50.0, 100.0, "Tương tác thuốc: Không rõ.", False, 9.0, x1=200.0),
    ):
        reader.feed(line)
    reader.finish()
    # Then one flagged table block under its caption, and the heading after it opens its section
    mono = reader.monographs[0]
    table = mono.sections[1].blocks[0]
    rows = ["Tuổi | Liều", "2–5 tuổi | 1 mg/lần, ngày 3 lần", "6–8 tuổi | 2 mg", "8–12 tuổi | 3 mg/lần"]
    assert table["text"] == "\n".join(["Liều theo tuổi", *rows])
    assert table["requires_visual_check"] is True
    assert [s.key for s in mono.sections][-1] == "tuong_tac_thuoc"
    assert not reader.problems


def test_running_text_that_wraps_at_a_read_headings_words_stays_text() -> None:
    # Given a heading, then (no weight, no indent) its first text line is the heading's own words
    reader = Reader(body_size=9.0)
    for line in (
        _line("COLCHICIN", size=12.0),
        _line("Tên chung quốc tế: Colchicine."),
        _line("Tác dụng không mong muốn", bold=True),
        _line("Tác dụng không mong muốn"),
        _line("thường gặp nhất là tiêu chảy."),
    ):
        reader.feed(line)
    # Then the line is the section's text, not the same heading a second time
    mono = reader.monographs[0]
    assert mono.sections[-1].paragraph == "Tác dụng không mong muốn thường gặp nhất là tiêu chảy."
    assert not reader.problems


def test_a_paragraph_opening_with_a_label_near_an_unplaced_heading_is_reported_in_place() -> None:
    # Given run-in labels: two the vocabulary places (bold, and in the text's weight), then ones it
    # does not place but that come close to a later section's heading (after a colon, in bold, in
    # another size), and labels of the section being read or of no heading at all
    reader = Reader(body_size=9.0)
    for line in (
        _line("AMOXICILIN", size=12.0),
        _line("Tên chung quốc tế: Amoxicillin."),
        Line(1, None, "L", 50.0, 100.0, "Chỉ định: Nhiễm khuẩn.", False, 9.0, bold_lead="Chỉ định:"),
        _line("Các chỉ định khác: viêm tai."),  # its own section's sub-label
        _line("Người lớn: 500 mg."),  # a label near no heading
        _line("Thận trọng: Dị ứng penicilin."),  # placed, next in the book's order: opens it
        _line("Tác dụng phụ: Ban da.", page=2),  # near "Tác dụng không mong muốn", not placed
        Line(3, None, "L", 50.0, 100.0, "Liều dùng Uống 500 mg.", False, 9.0, size_lead="Liều dùng"),
        _line("Liều lượng và cách dùng: Uống.", page=3),
        _line("Cách dùng: sau ăn.", page=3),  # the section being read: no problem
        Line(4, None, "L", 50.0, 100.0, "Tương tác Probenecid làm", False, 9.0, bold_lead="Tương tác"),
        _line("tăng nồng độ.", page=4),
        _line("Quá liều", size=10.0, page=4),  # a whole line set in another size
    ):
        reader.feed(line)
    # Then the placed labels opened their sections, each unplaced near-heading label is a problem
    # with its page, and its text stayed in the section being read
    mono = reader.monographs[0]
    assert [s.key for s in mono.sections] == [
        "ten_chung_quoc_te",
        "chi_dinh",
        "than_trong",
        "lieu_luong_va_cach_dung",
    ]
    found = [(p.page, p.message.split("'")[1]) for p in reader.problems]
    assert found == [(2, "Tác dụng phụ"), (3, "Liều dùng"), (4, "Tương tác"), (4, "Quá liều")]
    assert all("unrecognised heading?" in p.message for p in reader.problems)
    assert (
        mono.sections[2].blocks[0]["text"] == "Dị ứng penicilin. Tác dụng phụ: Ban da. Liều dùng Uống 500 mg."
    )
    assert (
        mono.sections[3].paragraph
        == "Uống. Cách dùng: sau ăn. Tương tác Probenecid làm tăng nồng độ. Quá liều"
    )
    assert (
        mono.sections[1].blocks[0]["text"] == "Nhiễm khuẩn. Các chỉ định khác: viêm tai. Người lớn: 500 mg."
    )


def test_a_table_without_rules_or_caption_is_found_by_its_alignment_alone() -> None:
    # Given a section with lines whose pieces start at the same two column edges, no caption
    # above them; then lines of two columns of running text that the page's split missed (long
    # pieces at the same edges); then only two lines in pieces
    reader = Reader(body_size=9.0)
    prose = ("Thuốc được hấp thu nhanh qua đường tiêu hóa", "và thải trừ chủ yếu qua thận dưới dạng")
    for line in (
        _line("AMOXICILIN", size=12.0),
        _line("Tên chung quốc tế: Amoxicillin."),
        _line("Liều lượng và cách dùng", bold=True),
        _line("Liều theo tuổi như sau."),
        _cells((50.0, "Tuổi"), (120.0, "Liều")),
        _cells((50.0, "2–5 tuổi"), (120.0, "1 mg/lần,")),
        _cells((120.0, "ngày 3 lần")),
        _cells((50.0, "6–8 tuổi"), (120.0, "2 mg")),
        Line(1, None, "L", 50.0, 100.0, "Uống sau ăn.", False, 9.0, x1=110.0),
        _cells((50.0, prose[0]), (250.0, prose[1]), size=9.0),
        _cells((50.0, prose[1]), (250.0, prose[0]), size=9.0),
        _cells((50.0, prose[0]), (250.0, prose[1]), size=9.0),
        _cells((50.0, "Trẻ em"), (120.0, "1 mg")),
        _cells((50.0, "Người lớn"), (120.0, "2 mg")),
        _line("Hết."),
    ):
        reader.feed(line)
    reader.finish()
    # Then the aligned short pieces are one flagged table, the rest stays text, with no problem
    blocks = reader.monographs[0].sections[-1].blocks
    assert [b["kind"] for b in blocks] == ["prose", "table", "prose"]
    assert blocks[1]["text"] == "Tuổi | Liều\n2–5 tuổi | 1 mg/lần, ngày 3 lần\n6–8 tuổi | 2 mg"
    assert blocks[1]["requires_visual_check"] is True
    assert blocks[2]["text"].startswith(f"Uống sau ăn. {prose[0]} {prose[1]}")
    assert blocks[2]["text"].endswith("Trẻ em 1 mg Người lớn 2 mg Hết.")
    assert not reader.problems
