"""Blocks from evidence: a section as its paragraphs, a table part as its rows, the notices every
reply may carry. How each block reads as text is fixed here, once."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.core.sections import SECTION_HEADINGS
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, SourceRef
from duocthu.models.reply import (
    Citation,
    NoticeBlock,
    NoticeKind,
    Paragraph,
    SectionBlock,
    Source,
    TableBlock,
    TextBlock,
)

SAMPLE_NOTICE = "Lưu ý: đây là DỮ LIỆU MẪU do nhóm phát triển biên soạn, không dùng cho lâm sàng."
VERIFY_NOTICE = (
    "⚠ CẦN ĐỐI CHIẾU BẢN IN/PDF: phần được đánh dấu dưới đây là bảng/hình hoặc nội dung đang bị cách ly; "
    "hãy kiểm tra trực tiếp các trang được trích dẫn trước khi dùng."
)
VISUAL_CHECK_FLAG = " [CẦN ĐỐI CHIẾU BẢN IN]"
_CELL = " | "


def notice(kind: NoticeKind, text: str, *, spaced: bool = False) -> NoticeBlock:
    """A notice; `spaced`: an empty line before it in the text."""
    return NoticeBlock(kind=kind, text=text, lines=("", text) if spaced else (text,))


def sample_notice() -> NoticeBlock:
    return notice("sample_data", SAMPLE_NOTICE, spaced=True)


def verify_notice() -> NoticeBlock:
    return notice("verify_pdf", VERIFY_NOTICE)


def text_block(lines: Sequence[str]) -> TextBlock:
    return TextBlock(lines=tuple(lines))


def source_notice(bundle: EvidenceBundle) -> NoticeBlock | None:
    """The book and edition the reply quotes, named once (each block names its section and pages)."""
    ref = next((ref for item in bundle.evidence for ref in item.source_refs), None)
    return notice("source", f"Nguồn: {ref.book_line()}.", spaced=True) if ref else None


def source_of(bundle: EvidenceBundle) -> Source | None:
    ref = next((ref for item in bundle.evidence for ref in item.source_refs), None)
    return Source(book=ref.book, edition=ref.edition, sample_data=ref.sample_data) if ref else None


def citation(item: EvidenceItem, ref: SourceRef | None = None) -> Citation:
    refs = [ref] if ref else list(item.source_refs)
    return Citation(
        drug_id=item.drug_id,
        section_key=item.section_key,
        heading=SECTION_HEADINGS.get(item.section_key, item.section_key),
        page_start=min((r.page_start for r in refs), default=1),
        page_end=max((r.page_end for r in refs), default=1),
    )


def _table(item: EvidenceItem, text: str) -> TableBlock | None:
    """A table part ("caption", then rows of cells split by " | ") as its rows; None for prose."""
    rows = text.split("\n")
    caption = rows[0] if rows and _CELL not in rows[0] else None
    body = [tuple(cell.strip() for cell in row.split(_CELL)) for row in rows[1 if caption else 0 :] if row]
    if item.chunk_kind != "block" or len(body) < 2 or any(len(r) != len(body[0]) for r in body):
        return None
    return TableBlock(
        drug_id=item.drug_id,
        citation=citation(item),
        caption=caption,
        header=body[0],
        rows=tuple(body[1:]),
        needs_visual_check=item.needs_visual_check,
    )


def section_blocks(first: EvidenceItem, items: Sequence[EvidenceItem]) -> list[SectionBlock | TableBlock]:
    """One drug's section: its heading and source, then its parts in order; a table part is a
    table block of its own, read in the text where it stands."""
    ref = first.source_refs[0]
    heading = SECTION_HEADINGS.get(first.section_key, first.section_key)
    head = ("", f"【{first.display_name}】 {heading} ({ref.pages()})")
    blocks: list[SectionBlock | TableBlock] = []
    paragraphs: list[Paragraph] = []
    lines: list[str] = list(head)

    def close() -> None:
        if paragraphs or lines:
            blocks.append(
                SectionBlock(
                    drug_id=first.drug_id,
                    display_name=first.display_name,
                    citation=citation(first, ref),
                    paragraphs=tuple(paragraphs),
                    lines=tuple(lines),
                )
            )

    for item in items:
        flag = VISUAL_CHECK_FLAG if item.needs_visual_check else ""
        # the overview's 【name】 label is for a model reading a pool; the section's head says it here
        text = item.text.removeprefix(f"【{item.display_name}】 ")
        table = _table(item, text)
        if table is not None:
            close()
            paragraphs, lines = [], []
            blocks.append(table.model_copy(update={"lines": (text + flag,)}))
            continue
        paragraphs.append(Paragraph(text=text, needs_visual_check=item.needs_visual_check))
        lines.append(text + flag)
    if paragraphs or len(blocks) == 0 or lines:
        close()
    return blocks
