"""A second engine's test book: the formulary typeset by typst (the `typst` wheel), not by the
renderer the converter was written against.

The layout is the printed book's (`data/typst_book.typ`): roman front matter, two columns on
mirrored margins, running heads naming the drug, printed page = PDF page + `OFFSET`, monographs
starting mid-column, justified text with long Latin names hyphenated, bold "Bảng N: …" captions
over ruled tables inside a column, headings in the printed book's spellings (variants, upper case,
numbered, trailing colon), a title with its synonym in parentheses, a brand index. Where every
section landed is read back from typst itself (`typst.query` of the marks the template places on
each section's first and last line), so the truth does not depend on the converter.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from duocthu.core.text import fold
from duocthu.ingest.pdf.render import IDENTITY, TRADE_NAMES, Truth, brands
from duocthu.models.source import Monograph

OFFSET = 84  # printed page = PDF page + 84 in the monographs (front matter: i-iv)
# How the printed book spells some headings (docs/pdf.md): every Nth monograph prints these.
VARIANTS = {
    "lieu_luong_va_cach_dung": ("Liều lượng và cách sử dụng", "Cách dùng và liều lượng"),
    "dang_thuoc_va_ham_luong": ("Dạng bào chế và hàm lượng",),
    "thoi_ky_mang_thai": ("Thời kì mang thai",),
    "thoi_ky_cho_con_bu": ("Thời kì cho con bú",),
    "do_on_dinh_va_bao_quan": ("Bảo quản",),
    "thong_tin_qui_che": ("Thông tin và quy chế",),
}
# Ways of setting a heading that a layout may use: as is, upper case, numbered, with a colon.
STYLES: tuple[Callable[[str, int], str], ...] = (
    lambda h, n: h,
    lambda h, n: h.upper(),
    lambda h, n: f"{n}. {h}",
    lambda h, n: f"{h}:",
)
FRONT = (
    "Bản dựng thử này dàn trang các chuyên luận mẫu của dự án theo cách trình bày của sách in: hai "
    "cột, lề đối xứng, đầu trang ghi tên thuốc và số trang.",
    "Dữ liệu mẫu do nhóm phát triển biên soạn để kiểm thử phần mềm, không dùng cho mục đích lâm sàng.",
)
ABBREVIATIONS = ("ADR: Tác dụng không mong muốn", "ATC: Phân loại giải phẫu - điều trị - hoá học")


def available() -> bool:
    try:
        import typst  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def _font() -> tuple[str, list[str]]:
    """Noto Serif from the pdf-render extra (covers Vietnamese)."""
    from duocthu.ingest.pdf.render_fonts import _font_source

    return "Noto Serif", [str(_font_source().parent)]


def _words(text: str) -> list[tuple[str, bool]]:
    """Words, each marked when it is a long Latin name typst may hyphenate."""
    return [(w, len(w) >= 9 and w.isascii() and w.isalpha()) for w in text.split()]


def _synonym(record: Monograph) -> str | None:
    """A one-word lower-case alias printed after the title in parentheses (every 4th monograph)."""
    names = [a for a in record.aliases if a.isalpha() and a.islower() and fold(a) != fold(record.title)]
    return names[0].capitalize() if names else None


def book_data(records: list[Monograph], columns: int = 2, mirrored: bool = True) -> dict[str, Any]:
    sample = next((r for r in records if r.sample_data), None)
    monographs: list[dict[str, Any]] = []
    for index, record in enumerate(records):
        sections = []
        number = 0
        for section in record.sections:
            if section.key in IDENTITY:
                text = " ".join(b.text for b in section.blocks)
                sections.append(
                    {
                        "key": section.key,
                        "heading": section.heading,
                        "identity": True,
                        "blocks": [{"kind": "prose", "words": _words(text)}],
                    }
                )
                continue
            number += 1
            variants = VARIANTS.get(section.key, ())
            heading = variants[index % len(variants)] if variants and index % 2 == 1 else section.heading
            heading = STYLES[index % len(STYLES)](heading, number)
            blocks: list[dict[str, Any]] = []
            for block in section.blocks:
                if block.kind == "table":
                    caption, *rows = block.text.split("\n")
                    blocks.append(
                        {
                            "kind": "table",
                            "caption": caption,
                            "rows": [[c.strip() for c in r.split("|")] for r in rows],
                        }
                    )
                else:
                    blocks += [{"kind": "prose", "words": _words(p)} for p in block.text.split("\n")]
            sections.append({"key": section.key, "heading": heading, "identity": False, "blocks": blocks})
        names = brands(record)
        if names:
            sections.append(
                {
                    "key": TRADE_NAMES,
                    "heading": STYLES[index % len(STYLES)]("Tên thương mại", number + 1),
                    "identity": False,
                    "blocks": [{"kind": "prose", "words": _words("; ".join(names) + ".")}],
                }
            )
        monographs.append(
            {
                "id": record.drug_id,
                "title": record.title.upper(),
                "running": record.title,
                "synonym": _synonym(record) if index % 4 == 2 else None,
                "sections": sections,
            }
        )
    tables = 0
    for mono in monographs:
        for part in mono["sections"]:
            for block in part["blocks"]:
                if block["kind"] == "table":
                    tables += 1
                    block["caption"] = f"Bảng {tables}: {block['caption']}"
    entries = sorted(
        ({"brand": n, "generic": r.title, "id": r.drug_id} for r in records for n in brands(r)),
        key=lambda e: fold(e["brand"]),
    )
    return {
        "title": "Dược thư (bản dựng thử, typst)",
        "subject": f"sample_data: {sample.notice or 'dữ liệu mẫu'}" if sample else "",
        "font": _font()[0],
        "offset": OFFSET,
        "columns": columns,
        "mirrored": mirrored,
        "front": FRONT,
        "abbreviations": ABBREVIATIONS,
        "monographs": monographs,
        "index": entries,
    }


def render_typst(records: list[Monograph], out: Path, columns: int = 2, mirrored: bool = True) -> Truth:
    """Typeset the records with typst into `out` (two columns on mirrored margins, or one column on
    centred ones); the truth comes from typst's own layout."""
    import typst

    template = resources.files("duocthu.ingest.pdf").joinpath("data").joinpath("typst_book.typ")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "book.typ").write_text(template.read_text(encoding="utf-8"), encoding="utf-8")
        (folder / "book.json").write_text(
            json.dumps(book_data(records, columns, mirrored), ensure_ascii=False), encoding="utf-8"
        )
        fonts = _font()[1]
        typst.compile(str(folder / "book.typ"), output=str(folder / "book.pdf"), font_paths=fonts)
        marks = json.loads(typst.query(str(folder / "book.typ"), "metadata", font_paths=fonts))
        shutil.copyfile(folder / "book.pdf", out)
    truth = Truth()
    for mark in marks:
        value = mark.get("value")
        if isinstance(value, dict) and "edge" in value:
            spot = (int(value["printed"]), int(value["page"]))
            truth.pages.setdefault((value["drug"], value["key"]), []).append(spot)
    return truth
