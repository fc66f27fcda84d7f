"""The formulary source format that `duocthu ingest` reads: one monograph per record.

A source is a folder of `<drug_id>.json` files or a JSON-lines file of records. Every record is
validated before anything is written; a bad record is reported with its drug_id, field and reason.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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
    pages: Pages
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


class Monograph(_Model):
    drug_id: str
    title: str
    aliases: tuple[str, ...] = ()
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


class SourceError(ValueError):
    """One or more records are invalid; nothing was written."""

    def __init__(self, problems: list[str]):
        super().__init__("invalid formulary source:\n  " + "\n  ".join(problems))
        self.problems = problems


def _describe(error: ValidationError, drug_id: str) -> list[str]:
    out = []
    for err in error.errors():
        field = ".".join(str(p) for p in err["loc"]) or "(record)"
        out.append(f"{drug_id or '(no drug_id)'}: {field}: {err['msg']}")
    return out


def _raw_records(path: Path) -> Iterable[tuple[str, object]]:
    if path.is_dir():
        for file in sorted(path.glob("*.json")):
            yield file.name, json.loads(file.read_text(encoding="utf-8"))
    else:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                yield f"{path.name}:{n}", json.loads(line)


def parse_records(raw: Iterable[tuple[str, object]]) -> list[Monograph]:
    """Validate every record; raise SourceError listing every problem if any record is bad."""
    problems: list[str] = []
    records: list[Monograph] = []
    seen: dict[str, str] = {}
    for where, data in raw:
        drug_id = str(data.get("drug_id", "")) if isinstance(data, dict) else ""
        try:
            record = Monograph.model_validate(data)
        except ValidationError as err:
            problems += [f"{where}: {p}" for p in _describe(err, drug_id)]
            continue
        if record.drug_id in seen:
            problems.append(f"{where}: {record.drug_id}: drug_id: duplicate (also in {seen[record.drug_id]})")
            continue
        seen[record.drug_id] = where
        records.append(record)
    if problems:
        raise SourceError(problems)
    return records


def load_source(path: Path) -> list[Monograph]:
    return parse_records(_raw_records(path))


def corpus_hash(records: Iterable[Monograph]) -> str:
    """Content hash of a validated corpus, independent of file layout and record order."""
    digest = hashlib.sha256()
    for record in sorted(records, key=lambda r: r.drug_id):
        digest.update(record.model_dump_json().encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def sample_formulary_path() -> Path:
    """The team-written sample formulary shipped with the package (sample data, not for clinical use)."""
    return Path(__file__).parent.parent / "sample_formulary"
