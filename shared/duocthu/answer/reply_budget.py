"""One reply budget: a reply a clinician reads at the bedside holds at most REPLY_CHARS characters.

Applied once, to every composed reply (`answer.replies.compose`), whatever its kind. Past the
budget, sections quoted whole leave the reply, whole (never cut inside): background sections
first, then a section a prescribing decision reads whose answering lines the reply quotes (or
that the reply says does not address the question). Each section left out is named (drug,
section, pages) in one notice that carries their citations for the page, and is one quick reply
away; its sentences the question's ranking put first stay, quoted where it stood, as the room
left allows (`_kept_lines`). A contraindication or interaction section is never left out (a list
cut short, or missing, would read as complete), but for an interaction section whose every
sentence about the other drugs the turn asks about is quoted: the rest of its list answers
another question.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from duocthu.answer.blocks import notice
from duocthu.answer.lines import ranked_lines, says_section_follows
from duocthu.core.phrases import contains_phrase
from duocthu.core.sections import CONTRAINDICATION_SECTION, INTERACTION_SECTION, SECTION_HEADINGS
from duocthu.core.sentences import split_sentences
from duocthu.models.evidence import RankedLine
from duocthu.models.reply import (
    AnswerLinesBlock,
    Block,
    Citation,
    NoticeBlock,
    QuotedLine,
    Reply,
    SectionBlock,
    TableBlock,
    TextBlock,
)
from duocthu.retrieval.answering import DECISION_SECTIONS  # the other sections are background

REPLY_CHARS = 3000
KEPT_LINES = 2  # a section left out keeps this many of its best-ranked sentences
KEPT_WHOLE = frozenset({CONTRAINDICATION_SECTION, INTERACTION_SECTION})
# notices that close a reply; the notice naming what was left out stands before them
_CLOSING = frozenset({"source", "sample_data"})

Key = tuple[str, str]  # a drug and one of its sections
Names = Callable[[Sequence[str]], str]


def heading(section_key: str) -> str:
    return SECTION_HEADINGS.get(section_key, section_key)


def quoted_above(section_key: str, name: str) -> str:
    """The line a part says in place of a section an earlier part of the reply quotes."""
    return f"(Mục {heading(section_key)} của {name}: đã trích ở trên.)"


def whole_section_reply(key: Key, names: Names) -> str:
    """The quick reply that opens a section left out."""
    return f"Xem toàn mục {heading(key[1])} của {names([key[0]])}"


def section_of(block: Block) -> Key | None:
    if isinstance(block, SectionBlock | TableBlock):
        return block.drug_id, block.citation.section_key
    return None


def size_of(blocks: Sequence[Block]) -> int:
    """A reply's length in characters as the budget counts it (each line and its break)."""
    return sum(len(line) + 1 for block in blocks for line in block.lines)


def pairs_quoted(blocks: Sequence[Block], key: Key, together: Mapping[str, Sequence[str]]) -> bool:
    """Whether an interaction section's every sentence naming another drug the turn is about is
    quoted in the reply: then the section answers nothing more about them, and what it says of
    other drugs is no part of the question (it may leave, named, one tap away)."""
    drug, section = key
    others = [name for other, names in together.items() if other != drug for name in names]
    if section != INTERACTION_SECTION or not others:
        return False
    quoted = {q.text.strip() for b in blocks if isinstance(b, AnswerLinesBlock) for q in b.quotes}
    sentences = [
        sentence
        for b in blocks
        if isinstance(b, SectionBlock) and section_of(b) == key
        for paragraph in b.paragraphs
        for sentence in split_sentences(paragraph.text)
    ]
    naming = [s for s in sentences if any(contains_phrase(s, name) for name in others)]
    # a quote may carry the sentence after its own (`retrieval.continuations`)
    return bool(naming) and all(any(s.strip() in q for q in quoted) for s in naming)


def _order(
    blocks: Sequence[Block],
    asked: Collection[Key],
    together: Mapping[str, Sequence[str]],
    parts_asked: Collection[Key] = (),
) -> list[Key]:
    """The sections that may leave the reply, the first to go first, each group the longest first
    (the fewer leave, the more the reply quotes whole): background sections, then a decision
    section whose answering lines the reply quotes.
    A decision section no answering line is about stays: the lines picked by tests may have
    missed the one sentence for this patient (a dose in renal failure), and the section holds it.
    A section with a part to check against the print stays in view, as the check notice says; so
    does the section a one-ask turn routes to, the reply's subject (and what "Xem toàn mục" asks)."""
    answered = {
        key
        for block in blocks
        if isinstance(block, AnswerLinesBlock) and not block.not_said
        for key in ((q.drug_id, q.section_key) for q in block.quotes)
    }
    # a section read for the focus and said not to address it holds no missed sentence on it
    answered |= {(b.drug_id, b.section_key) for b in blocks if isinstance(b, AnswerLinesBlock) and b.not_said}
    stay = {*asked, *(section_of(b) for b in blocks if _flagged(b))}
    keys = [
        k for k in dict.fromkeys(map(section_of, blocks)) if k and k not in stay and k[1] not in KEPT_WHOLE
    ]
    size = {k: size_of([b for b in blocks if section_of(b) == k]) for k in keys}
    keys.sort(key=lambda k: -size[k])
    background = [k for k in keys if k[1] not in DECISION_SECTIONS]
    paired = [
        k
        for k in dict.fromkeys(map(section_of, blocks))
        if k and k not in stay and k[1] == INTERACTION_SECTION and pairs_quoted(blocks, k, together)
    ]
    order = background + [k for k in keys if k[1] in DECISION_SECTIONS and k in answered] + paired
    # the sections the parts of a turn of several asks route to leave last, the longest first:
    # each part keeps the section it asked while the budget allows, and a part quoting no line of
    # its own section's keeps it whatever the budget (the section is all it says of what it asks)
    leading = {
        (b.drug_id, b.section_key)
        for b in blocks
        if isinstance(b, AnswerLinesBlock)
        and any((q.drug_id, q.section_key) == (b.drug_id, b.section_key) for q in b.quotes)
    }
    return [k for k in order if k not in parts_asked] + [k for k in keys if k in parts_asked and k in leading]


def _flagged(block: Block) -> bool:
    """A part to check against the printed page: the reply's check notice points at it."""
    if isinstance(block, TableBlock):
        return block.needs_visual_check
    return isinstance(block, SectionBlock) and any(p.needs_visual_check for p in block.paragraphs)


def _left_citation(key: Key, blocks: Sequence[Block]) -> Citation:
    cited = [b.citation for b in blocks if isinstance(b, SectionBlock | TableBlock) and section_of(b) == key]
    first = cited[0]
    return first.model_copy(
        update={
            "page_start": min(c.page_start for c in cited),
            "page_end": max(c.page_end for c in cited),
        }
    )


def _pages(cited: Citation) -> str:
    if cited.page_start == cited.page_end:
        return f"tr. {cited.page_start}"
    return f"tr. {cited.page_start}–{cited.page_end}"


def _left_notice(left: Sequence[Citation], names: Names) -> NoticeBlock:
    """One line naming every section left out, by drug: "Losartan: Thận trọng (tr. 333–334), …"."""
    by_drug: dict[str, list[str]] = {}
    for c in left:
        by_drug.setdefault(c.drug_id, []).append(f"{heading(c.section_key)} ({_pages(c)})")
    named = "; ".join(f"{names([drug])}: {', '.join(parts)}" for drug, parts in by_drug.items())
    text = f"Không trích toàn văn để câu trả lời đủ ngắn (mở toàn mục: nút bên dưới): {named}."
    return notice("omitted", text, spaced=True).model_copy(update={"sections": tuple(left)})


def _without(blocks: Sequence[Block], key: Key, names: Names) -> list[Block]:
    """The reply without a section: its blocks gone, no line saying it is quoted below or above."""
    sections = (b for b in blocks if isinstance(b, SectionBlock) and section_of(b) == key)
    shown = next((b.display_name for b in sections), None)
    above = quoted_above(key[1], shown or names([key[0]]))
    kept: list[Block] = []
    for block in blocks:
        if section_of(block) == key:
            continue
        if isinstance(block, AnswerLinesBlock) and (block.drug_id, block.section_key) == key:
            said = tuple(x for x in block.lines if not says_section_follows(x))
            block = block.model_copy(update={"lines": said})
        if isinstance(block, TextBlock) and above in block.lines:
            block = block.model_copy(update={"lines": tuple(x for x in block.lines if x not in (above, ""))})
            if not block.lines:
                continue
        kept.append(block)
    return kept


def _kept_lines(blocks: Sequence[Block], key: Key, ranked: Sequence[RankedLine], names: Names) -> list[Block]:
    """What stays of a section leaving the reply: its sentences the ranking for the question put
    first (`ranked`: every ask's lines), those the reply does not quote already. A section left for
    length may hold the one sentence a question of several asks was after ("đau bụng kinh: 400
    mg …"): it is quoted, the rest one quick reply away."""
    quoted = " ".join(q.text for b in blocks if isinstance(b, AnswerLinesBlock) for q in b.quotes)
    own = [line for line in ranked if (line.drug_id, line.section_key) == key and line.text not in quoted]
    best = sorted(own, key=lambda line: -line.score)[:KEPT_LINES]
    found = ranked_lines(best, key[1]) if best else None
    if found is None:
        return []
    quotes = tuple(
        QuotedLine(text=x.text, drug_id=x.drug_id, section_key=x.section_key, citation=x.pages)
        for x in found.lines
    )
    head = f"Câu trong mục “{heading(key[1])}” của {names([key[0]])} gần nhất với câu hỏi:"
    lines = (head, *(f"- “{x.text}” ({x.pages})" for x in found.lines))
    return [AnswerLinesBlock(drug_id=key[0], section_key=key[1], quotes=quotes, lines=lines)]


# where a section left the reply: what stays of it goes there once the budget is known
_PLACE = TextBlock(lines=())


def _with_kept_lines(blocks: list[Block], kept: Sequence[list[Block]], notice_size: int) -> list[Block]:
    """Each section left's best sentences where it stood, those of the first to leave first, while
    the reply stays within the budget: never a reason for another section to leave."""
    room = REPLY_CHARS - size_of(blocks) - notice_size
    out = list(blocks)
    for lines in kept:
        at = next(i for i, b in enumerate(out) if b is _PLACE)
        fits = bool(lines) and size_of(lines) <= room
        room -= size_of(lines) if fits else 0
        out[at : at + 1] = lines if fits else []
    return out


def within_budget(
    reply: Reply,
    names: Names,
    asked: Collection[Key] = (),
    together: Mapping[str, Sequence[str]] | None = None,
    parts_asked: Collection[Key] = (),
    ranked: Sequence[RankedLine] = (),
) -> Reply:
    """The reply at most REPLY_CHARS characters long where leaving out whole sections can make it
    so; the sections left out named, and each a quick reply. `asked`: the sections the turn
    routes to, kept; `together`: the drugs the turn is about together, with their names (an
    interaction section whose sentences about them are all quoted may leave, last);
    `parts_asked`: the sections the parts of a turn of several asks route to (they leave last);
    `ranked`: every ask's ranked lines, of which a section leaving keeps its best."""
    blocks = list(reply.blocks)
    if size_of(blocks) <= REPLY_CHARS:
        return reply
    left: list[Citation] = []
    kept: list[list[Block]] = []  # what stays of each section left, in the order they left
    for key in _order(blocks, asked, together or {}, parts_asked):
        notice_size = size_of([_left_notice(left, names)]) if left else 0
        if size_of(blocks) + notice_size <= REPLY_CHARS:
            break
        left.append(_left_citation(key, blocks))
        at = next(i for i, b in enumerate(blocks) if section_of(b) == key)
        kept.append(_kept_lines(blocks, key, ranked, names))
        blocks = [*blocks[:at], _PLACE, *blocks[at:]]
        blocks = _without(blocks, key, names)
    if not left:
        return reply
    blocks = _with_kept_lines(blocks, kept, size_of([_left_notice(left, names)]))
    at = next(
        (i for i, b in enumerate(blocks) if isinstance(b, NoticeBlock) and b.kind in _CLOSING), len(blocks)
    )
    blocks.insert(at, _left_notice(left, names))
    opened = [whole_section_reply((c.drug_id, c.section_key), names) for c in left]
    replies = tuple(dict.fromkeys([*reply.quick_replies, *opened]))
    return reply.model_copy(update={"blocks": tuple(blocks), "quick_replies": replies})
