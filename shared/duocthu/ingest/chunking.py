"""Monograph sections -> ordered parts (chunks) with the payload every route filters on."""

from __future__ import annotations

import re
from collections.abc import Iterator

from duocthu.models.chunk import BLOCK, PROSE, Chunk, point_id
from duocthu.models.evidence import SourceRef
from duocthu.models.source import Block, Monograph, Section

# ~200 tokens: a part is one or two paragraphs, so a long section (contraindications, dosing)
# becomes several parts and the 6000-token packing budget holds a whole monograph's worth.
PART_CHAR_BUDGET = 800
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def _split_long(text: str, budget: int) -> list[str]:
    """Split one paragraph on sentence ends so that no piece exceeds the budget (a sentence
    longer than the budget stays whole: clinical text is never cut mid-sentence)."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        if current and len(current) + 1 + len(sentence) > budget:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        pieces.append(current)
    return pieces


def split_section(
    blocks: tuple[Block, ...], budget: int = PART_CHAR_BUDGET
) -> list[tuple[str, Block | None]]:
    """Ordered parts of a section: prose paragraphs packed up to the budget, each table or figure
    its own part (returned with its block, whose flags the part carries)."""
    parts: list[tuple[str, Block | None]] = []
    current = ""
    for block in blocks:
        if block.kind != "prose":
            if current:
                parts.append((current, None))
                current = ""
            parts.append((block.text, block))
            continue
        for piece in _split_long(block.text, budget):
            if current and len(current) + 2 + len(piece) > budget:
                parts.append((current, None))
                current = piece
            else:
                current = f"{current}\n\n{piece}" if current else piece
    if current:
        parts.append((current, None))
    return parts


def _section_chunks(record: Monograph, section: Section) -> Iterator[Chunk]:
    ref = SourceRef(
        book=record.source.book,
        edition=record.source.edition,
        section_heading=section.heading,
        page_start=section.pages.start,
        page_end=section.pages.end,
        sample_data=record.sample_data,
    )
    for index, (text, block) in enumerate(split_section(section.blocks)):
        yield Chunk(
            id=point_id(record.drug_id, section.key, index),
            drug_id=record.drug_id,
            display_name=record.title,
            section_key=section.key,
            section_heading=section.heading,
            part_index=index,
            chunk_kind=PROSE if block is None else BLOCK,
            text=text,
            source_ref=ref,
            requires_visual_check=bool(block and block.requires_visual_check),
            has_quarantined_content=section.quarantined,
            atc_codes=record.atc_codes,
        )


def chunk_monograph(record: Monograph) -> list[Chunk]:
    return [chunk for section in record.sections for chunk in _section_chunks(record, section)]
