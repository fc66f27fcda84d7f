"""A sentence the reply quotes once is not quoted again: a later block of answering lines (another
ask of the message, the lines on the patient's state after the question's best lines) that holds
it says where it stands instead. Applied once, to every composed reply, before the reply budget."""

from __future__ import annotations

from duocthu.models.reply import AnswerLinesBlock, Block, Reply

QUOTED_ABOVE = "đã trích ở trên."


def quoted_once(reply: Reply) -> Reply:
    """The reply with each quoted sentence in its first block of answering lines only; a block left
    with no sentence of its own keeps its other lines and says its answer stands above."""
    seen: set[str] = set()
    blocks: list[Block] = []
    for block in reply.blocks:
        if isinstance(block, AnswerLinesBlock):
            block = _without_seen(block, seen)
            seen |= {quote.text for quote in block.quotes}
        blocks.append(block)
    if all(new is old for new, old in zip(blocks, reply.blocks, strict=True)):
        return reply
    return reply.model_copy(update={"blocks": tuple(blocks)})


def _without_seen(block: AnswerLinesBlock, seen: set[str]) -> AnswerLinesBlock:
    again = {quote.text for quote in block.quotes if quote.text in seen}
    if not again:
        return block
    quotes = tuple(quote for quote in block.quotes if quote.text not in again)
    lines = [line for line in block.lines if not any(f"“{text}”" in line for text in again)]
    if not quotes:
        # a heading that introduced the sentences now introduces none: it says they stand above
        headed = [f"{line} {QUOTED_ABOVE}" if line.endswith(":") else line for line in lines]
        lines = headed if headed != lines else [f"Câu trả lời: {QUOTED_ABOVE}", *lines]
    return block.model_copy(update={"quotes": quotes, "lines": tuple(lines)})
