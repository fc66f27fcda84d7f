"""A sentence the reply quotes once is not quoted again (answer.quoted_once)."""

from __future__ import annotations

from duocthu.answer.quoted_once import QUOTED_ABOVE, quoted_once
from duocthu.models.reply import AnswerLinesBlock, QuotedLine, Reply, TextBlock

DOSE = "Khi bắt đầu amiodaron, giảm liều digoxin khoảng một nửa."
LEVEL = "Lấy mẫu ít nhất 6 giờ sau liều."


def _block(head: str, *texts: str) -> AnswerLinesBlock:
    quotes = tuple(
        QuotedLine(text=t, drug_id="digoxin", section_key="than_trong", citation="tr. 1") for t in texts
    )
    return AnswerLinesBlock(
        drug_id="digoxin",
        section_key="than_trong",
        quotes=quotes,
        lines=(head, *(f"- “{t}” (tr. 1)" for t in texts), "Toàn văn mục được trích dưới đây."),
    )


def test_a_later_block_quotes_only_what_is_not_above() -> None:
    first, second = _block("Câu trả lời:", DOSE), _block("Câu hỏi 2:", DOSE, LEVEL)
    reply = quoted_once(Reply(blocks=(first, TextBlock(lines=("▸ Câu hỏi 2",)), second)))
    later = reply.blocks[2]
    assert isinstance(later, AnswerLinesBlock) and [q.text for q in later.quotes] == [LEVEL]
    assert reply.text.count(DOSE) == 1 and LEVEL in reply.text


def test_a_block_left_with_nothing_of_its_own_says_its_answer_stands_above() -> None:
    reply = quoted_once(Reply(blocks=(_block("Câu trả lời:", DOSE), _block("Mục “Thận trọng” nêu:", DOSE))))
    assert reply.blocks[1].lines == (
        f"Mục “Thận trọng” nêu: {QUOTED_ABOVE}",
        "Toàn văn mục được trích dưới đây.",
    )


def test_a_reply_quoting_each_sentence_once_is_left_as_it_is() -> None:
    reply = Reply(blocks=(_block("Câu trả lời:", DOSE), _block("Câu hỏi 2:", LEVEL)))
    assert quoted_once(reply) is reply
