"""The one reply budget: past REPLY_CHARS whole sections leave the reply, background first, each
named with its pages in a notice that carries its citation and one quick reply away; never a
contraindication or interaction section, a decision section no answering line is about, a section
to check against the print, or the section the turn asked for."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.answer.blocks import notice, sample_notice, text_block
from duocthu.answer.reply_budget import REPLY_CHARS, quoted_above, within_budget
from duocthu.models.evidence import RankedLine, SourceRef
from duocthu.models.reply import (
    AnswerLinesBlock,
    Block,
    Citation,
    NoticeBlock,
    Paragraph,
    QuotedLine,
    Reply,
    SectionBlock,
)

DOSE, BARRED, PAIRS, CAUTION = "lieu_luong_va_cach_dung", "chong_chi_dinh", "tuong_tac_thuoc", "than_trong"
KINETICS = "duoc_dong_hoc"
LONG = "x " * (REPLY_CHARS // 2)


def names(drug_ids: Sequence[str]) -> str:
    return ", ".join(d.title() for d in drug_ids)


def section(key: str, text: str = LONG, *, drug: str = "thuoc", flagged: bool = False) -> SectionBlock:
    cite = Citation(drug_id=drug, section_key=key, heading=key, page_start=3, page_end=4)
    paragraph = Paragraph(text=text, needs_visual_check=flagged)
    return SectionBlock(
        drug_id=drug, display_name=drug.title(), citation=cite, paragraphs=(paragraph,), lines=("", text)
    )


def answering(key: str) -> AnswerLinesBlock:
    quote = QuotedLine(text="Người lớn: 500 mg.", drug_id="thuoc", section_key=key, citation="tr. 3")
    lines = ("- “Người lớn: 500 mg.”", "Toàn văn mục được trích dưới đây.")
    return AnswerLinesBlock(drug_id="thuoc", section_key=key, quotes=(quote,), lines=lines)


def reply(*blocks: Block) -> Reply:
    closing = (notice("source", "Nguồn: Dược thư.", spaced=True), sample_notice())
    return Reply(blocks=(*blocks, *closing), quick_replies=("Khác",))


def left_out(fitted: Reply) -> NoticeBlock:
    return next(b for b in fitted.blocks if isinstance(b, NoticeBlock) and b.kind == "omitted")


def test_a_short_reply_is_the_same_reply() -> None:
    short = reply(answering(DOSE), section(DOSE, "Người lớn: 500 mg."))
    assert within_budget(short, names) is short


def test_an_answered_section_leaves_named_with_its_pages_and_a_quick_reply_never_a_contraindication() -> None:
    fitted = within_budget(reply(answering(DOSE), section(DOSE), section(BARRED, "Mẫn cảm " + LONG)), names)
    text = fitted.text
    assert text.count(LONG.strip()) == 1  # the contraindication list whole, however long
    assert "Mẫn cảm" in text and "Người lớn: 500 mg" in text
    assert "Toàn văn mục được trích dưới đây." not in text  # the section no longer follows
    said = left_out(fitted)
    assert "Thuoc: Liều lượng và cách dùng (tr. 3–4)." in said.text
    assert [c.section_key for c in said.sections] == [DOSE]  # the page reads the citation
    assert fitted.quick_replies == ("Khác", "Xem toàn mục Liều lượng và cách dùng của Thuoc")
    assert fitted.blocks[-2].kind == "source"  # type: ignore[union-attr]  # the notice before the closing ones


def test_background_leaves_first_and_a_decision_section_no_line_is_about_stays() -> None:
    fitted = within_budget(reply(answering(DOSE), section(CAUTION), section(KINETICS), section(DOSE)), names)
    assert [c.section_key for c in left_out(fitted).sections] == [KINETICS, DOSE]
    kept = {b.citation.section_key for b in fitted.blocks if isinstance(b, SectionBlock)}
    assert CAUTION in kept  # unanswered: it may hold the sentence for this patient


def test_a_section_said_not_to_address_the_question_may_leave() -> None:
    silent = AnswerLinesBlock(drug_id="thuoc", section_key=DOSE, not_said=True, lines=("Mục … không nêu.",))
    fitted = within_budget(reply(silent, section(DOSE), section(CAUTION)), names)
    assert [c.section_key for c in left_out(fitted).sections] == [DOSE]


def test_interaction_flagged_and_asked_sections_stay_however_long() -> None:
    long = reply(answering(DOSE), section(DOSE), section(PAIRS), section(KINETICS, flagged=True))
    assert within_budget(long, names, asked={("thuoc", DOSE)}) == long


def test_a_later_part_saying_the_section_stands_above_no_longer_says_so() -> None:
    above = text_block(["", quoted_above(DOSE, "Thuoc")])
    fitted = within_budget(reply(answering(DOSE), section(DOSE), section(BARRED), above), names)
    assert "đã trích ở trên" not in fitted.text


def test_the_longest_section_leaves_first_so_the_most_stay_whole() -> None:
    short = "Sinh khả dụng khoảng 90%."
    fitted = within_budget(
        reply(
            answering(DOSE),
            section(KINETICS, drug="a"),
            section(KINETICS, "Nửa đời 6 giờ. " + LONG, drug="b"),
            section(KINETICS, short, drug="c"),
        ),
        names,
    )
    assert [c.drug_id for c in left_out(fitted).sections] == ["b", "a"]
    assert short in fitted.text


def test_an_interaction_section_leaves_only_when_every_sentence_on_the_drugs_asked_is_quoted() -> None:
    pair = "Amiodaron làm tăng INR khi dùng cùng warfarin."
    other = "Aspirin làm tăng nguy cơ chảy máu."
    quote = QuotedLine(text=pair, drug_id="warfarin", section_key=PAIRS, citation="tr. 3")
    lines = AnswerLinesBlock(drug_id="warfarin", section_key=PAIRS, quotes=(quote,), lines=(f"- “{pair}”",))
    together = {"warfarin": ("warfarin",), "amiodaron": ("amiodaron", "Cordarone")}
    text = f"{pair} {other} " + LONG
    fitted = within_budget(reply(lines, section(PAIRS, text, drug="warfarin")), names, (), together)
    assert [c.section_key for c in left_out(fitted).sections] == [PAIRS] and pair in fitted.text
    unquoted = f"{pair} Cordarone còn làm tăng tác dụng chống đông. " + LONG
    kept = within_budget(reply(lines, section(PAIRS, unquoted, drug="warfarin")), names, (), together)
    assert "Cordarone còn làm tăng tác dụng chống đông" in kept.text  # a sentence on the pair not quoted


def test_the_sections_the_parts_of_several_asks_route_to_leave_last() -> None:
    # a short section a part asked stays while a background one leaves, whatever their groups
    short = "Không trộn với thuốc khác. " * 20
    blocks = (answering(DOSE), section(KINETICS), section("tuong_ky", short), section(DOSE))
    fitted = within_budget(reply(*blocks), names, parts_asked={("thuoc", "tuong_ky"), ("thuoc", DOSE)})
    assert [c.section_key for c in left_out(fitted).sections] == [KINETICS, DOSE]
    assert "Không trộn với thuốc khác." in fitted.text


def test_a_part_quoting_no_line_of_its_own_section_keeps_it_past_the_budget() -> None:
    # two asks: the pregnancy part's only line is a dose line; each part keeps its section, since
    # either leaving would leave a part with nothing of what it asked
    pregnancy = "thoi_ky_mang_thai"
    dose_line = answering(DOSE).model_copy(update={"section_key": pregnancy})
    blocks = (dose_line, section(pregnancy), section(DOSE))
    fitted = within_budget(reply(*blocks), names, parts_asked={("thuoc", pregnancy), ("thuoc", DOSE)})
    assert not any(isinstance(b, NoticeBlock) and b.kind == "omitted" for b in fitted.blocks)
    # a part whose own section's line is quoted may leave its section, named and a tap away
    blocks = (answering(DOSE), section(pregnancy), section(DOSE))
    fitted = within_budget(reply(*blocks), names, parts_asked={("thuoc", pregnancy), ("thuoc", DOSE)})
    assert [c.section_key for c in left_out(fitted).sections] == [DOSE]


def _ranked(text: str, key: str, score: float) -> RankedLine:
    ref = SourceRef(book="DTQG", edition="3", section_heading=key, page_start=3, page_end=4)
    return RankedLine(
        text=text, drug_id="thuoc", display_name="Thuoc", section_key=key, part_id="p",
        part_index=0, line_index=0, score=score, source_refs=(ref,),
    )  # fmt: skip


def test_a_section_leaving_for_length_keeps_its_best_ranked_sentences_where_it_stood() -> None:
    # two asks: the dose section leaves for length; its sentence the ranking put first for the
    # question ("đau bụng kinh liều bao nhiêu") is what that ask was after, and stays quoted
    asked = _ranked("Đau bụng kinh: 400 mg mỗi 4 – 6 giờ khi cần.", DOSE, 30.0)
    weaker = _ranked("Trẻ em: 5 – 10 mg/kg mỗi lần.", DOSE, 20.0)
    other = _ranked("Sinh khả dụng khoảng 90%.", KINETICS, 40.0)  # another section's: not kept here
    said = _ranked("Người lớn: 500 mg.", DOSE, 50.0)  # quoted already by the answering lines
    long = reply(answering(DOSE), section(DOSE), section(BARRED, "Mẫn cảm " + "x " * (REPLY_CHARS // 4)))
    fitted = within_budget(long, names, ranked=[weaker, other, asked, said])
    text = fitted.text
    assert [c.section_key for c in left_out(fitted).sections] == [DOSE]
    kept = "Câu trong mục “Liều lượng và cách dùng” của Thuoc gần nhất với câu hỏi:"
    assert kept in text and text.index(kept) < text.index("Mẫn cảm")  # where the section stood
    assert "- “Đau bụng kinh: 400 mg mỗi 4 – 6 giờ khi cần.” (tr. 3–4)" in text
    assert text.index("Đau bụng kinh") < text.index("Trẻ em: 5 – 10")  # the best first
    assert "Sinh khả dụng" not in text and text.count("Người lớn: 500 mg.") == 1
    # without ranked lines the section leaves whole, as before; and what stays never takes the
    # reply past the budget (a contraindication list as long as the budget leaves it no room)
    assert "gần nhất với câu hỏi" not in within_budget(long, names).text
    full = reply(answering(DOSE), section(DOSE), section(BARRED, "Mẫn cảm " + LONG))
    assert "gần nhất với câu hỏi" not in within_budget(full, names, ranked=[asked]).text
