"""The formulary source format that `duocthu ingest` reads: one monograph per record.

A source is a folder of `<drug_id>.json` files or a JSON-lines file of records. Every record is
validated before anything is written; a bad record is reported with its drug_id, field and reason.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from duocthu.core.sections import SECTION_ORDER
from duocthu.core.text import fold, nfc

_SLUG = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")
DEFAULT_BOOK = "Dược thư Quốc gia Việt Nam"


def slugify(title: str) -> str:
    """drug_id form of a monograph title: folded, words joined by '_' ("Acid acetylsalicylic")."""
    return "_".join(re.findall(r"[a-z0-9]+", fold(title)))


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Pages(_Model):
    start: int = Field(ge=1)
    end: int = Field(ge=1)

    @model_validator(mode="after")
    def _order(self) -> Pages:
        if self.end < self.start:
            raise ValueError("end page before start page")
        return self


class Block(_Model):
    kind: Literal["prose", "table", "figure"]
    text: str
    requires_visual_check: bool = False

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        value = nfc(value).strip()
        if not value:
            raise ValueError("empty text")
        return value


class Section(_Model):
    key: str
    heading: str
    pages: Pages  # as printed in the book
    pdf_pages: Pages | None = None  # the PDF's page indices (1-based), when read from a PDF
    blocks: tuple[Block, ...] = Field(min_length=1)
    quarantined: bool = False
    quarantine_reason: str | None = None

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        if value not in SECTION_ORDER:
            raise ValueError(f"unknown section key {value!r}")
        return value


class SourceInfo(_Model):
    book: str = DEFAULT_BOOK
    edition: str = "unspecified"


class Brand(_Model):
    """A trade name: from the monograph's "Tên thương mại" section, or the brand index (with the
    printed page the index cites)."""

    name: str = Field(min_length=1)
    page: int | None = Field(default=None, ge=1)


class Monograph(_Model):
    drug_id: str
    title: str
    aliases: tuple[str, ...] = ()
    brands: tuple[Brand, ...] = ()
    atc_codes: tuple[str, ...] = ()
    sections: tuple[Section, ...] = Field(min_length=1)
    source: SourceInfo = Field(default_factory=SourceInfo)
    sample_data: bool = False
    notice: str | None = None

    @field_validator("drug_id")
    @classmethod
    def _drug_id(cls, value: str) -> str:
        if not _SLUG.match(value):
            raise ValueError("must be a non-empty lower-case slug (letters, digits, '_')")
        return value

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        value = nfc(value).strip()
        if not value:
            raise ValueError("empty title")
        return value

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for a in (nfc(x).strip() for x in value) if a))

    @model_validator(mode="after")
    def _unique_sections(self) -> Monograph:
        keys = [s.key for s in self.sections]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            raise ValueError(f"duplicate section key(s): {', '.join(duplicates)}")
        return self

    def section(self, key: str) -> Section | None:
        return next((s for s in self.sections if s.key == key), None)
