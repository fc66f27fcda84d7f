"""A scale source for tests and benchmarks, converted from the public ATC table in the team kit
(`atc-dataset-v2.csv`: 2,903 rows, 1,729 generic names). Its licence is unknown and its text is
condensed, machine-like prose, not formulary wording: it is never shipped, never ingested by
default and never shown as formulary content.

Rows repeat a name with differing text (712 names): they are merged by folded name, their
distinct texts kept as separate paragraphs. Slugs that still collide get a numeric suffix.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from duocthu.core.sections import SECTION_HEADINGS
from duocthu.core.text import fold, nfc
from duocthu.ingest.source import parse_records
from duocthu.models.source import Monograph, slugify

BOOK = "atc-dataset-v2 (dữ liệu kiểm thử, không phải Dược thư)"
# CSV column -> section key, in book order
COLUMNS = {
    "Tên chung quốc tế": "ten_chung_quoc_te",
    "Mã ATC": "ma_atc",
    "Loại thuốc": "loai_thuoc",
    "Dạng thuốc và hàm lượng": "dang_thuoc_va_ham_luong",
    "Chống chỉ định": "chong_chi_dinh",
    "Tương tác thuốc": "tuong_tac_thuoc",
}
BRANDS = "Tên (Chế phẩm/Biệt dược)"
_SPLIT = re.compile(r"[;,]")


def _title(name: str) -> str:
    name = " ".join(nfc(name).split())
    return name[:1].upper() + name[1:].lower()


def _brands(cell: str) -> list[str]:
    return [b.strip(" .") for b in _SPLIT.split(nfc(cell)) if b.strip(" .")]


def convert_rows(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        name = row["Tên chung quốc tế"].strip()
        if name:
            groups.setdefault(" ".join(fold(name).split()), []).append(row)
    records: list[dict[str, Any]] = []
    used: set[str] = set()
    page = 1
    for group in groups.values():
        title = _title(group[0]["Tên chung quốc tế"])
        slug = base = slugify(title) or "drug"
        n = 2
        while slug in used:
            slug, n = f"{base}_{n}", n + 1
        used.add(slug)
        sections = []
        for column, key in COLUMNS.items():
            texts = list(dict.fromkeys(nfc(r[column]).strip() for r in group if r[column].strip()))
            if not texts:
                continue  # a real monograph may lack a section
            sections.append(
                {
                    "key": key,
                    "heading": SECTION_HEADINGS[key],
                    "pages": {"start": page, "end": page},
                    "blocks": [{"kind": "prose", "text": t} for t in texts],
                }
            )
        page += 1
        aliases = list(dict.fromkeys(b for r in group for b in _brands(r[BRANDS])))
        codes = list(dict.fromkeys(c.strip() for r in group for c in _SPLIT.split(r["Mã ATC"]) if c.strip()))
        records.append(
            {
                "drug_id": slug,
                "title": title,
                "aliases": aliases,
                "atc_codes": codes,
                "sections": sections,
                "source": {"book": BOOK, "edition": "v2"},
            }
        )
    return records


def read_atc_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def atc_monographs(path: Path) -> list[Monograph]:
    records = convert_rows(read_atc_csv(path))
    return parse_records((r["drug_id"], r) for r in records)


def iter_jsonl(records: list[Monograph]) -> Iterator[str]:
    for record in records:
        yield record.model_dump_json(exclude_defaults=True)
