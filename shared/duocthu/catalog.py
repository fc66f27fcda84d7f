"""The drug catalogue artifact and the alias lookup over it.

The artifact (`catalog.json`, written by ingest beside the index version) lists every drug with
its title and aliases and carries the corpus hash of the index it was built with. It is loaded
once per process (cold start) and never rebuilt per request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from duocthu.source import Monograph
from duocthu.text import PhraseIndex, longest_spans, words


class CatalogDrug(BaseModel):
    model_config = ConfigDict(frozen=True)

    drug_id: str
    title: str
    aliases: tuple[str, ...] = ()
    atc_codes: tuple[str, ...] = ()
    section_keys: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        """Every name form: the title, the drug_id's own words, then the aliases."""
        own = self.drug_id.replace("_", " ")
        return tuple(dict.fromkeys((self.title, own, *self.aliases)))


class Catalog(BaseModel):
    model_config = ConfigDict(frozen=True)

    corpus_hash: str
    sample_data: bool = False
    drugs: tuple[CatalogDrug, ...]

    @classmethod
    def from_records(cls, records: list[Monograph], corpus_hash: str) -> Catalog:
        drugs = tuple(
            CatalogDrug(
                drug_id=r.drug_id,
                title=r.title,
                aliases=r.aliases,
                atc_codes=r.atc_codes,
                section_keys=tuple(s.key for s in r.sections),
            )
            for r in sorted(records, key=lambda r: r.drug_id)
        )
        return cls(corpus_hash=corpus_hash, sample_data=any(r.sample_data for r in records), drugs=drugs)

    def write(self, path: Path) -> None:
        path.write_text(self.model_dump_json(), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> Catalog:
        return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))


@dataclass(frozen=True, slots=True)
class DrugMatch:
    drug_id: str
    matched_text: str  # the span of the query, as the user wrote it
    start: int  # token position


class CatalogDrugResolver:
    """Exact alias lookup on whole-token spans (built once; immutable afterwards)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.by_id = {d.drug_id: d for d in catalog.drugs}
        self._index: PhraseIndex[str] = PhraseIndex()
        for drug in catalog.drugs:
            for name in drug.names():
                self._index.add(name, drug.drug_id)

    @property
    def alias_count(self) -> int:
        return len(self._index)

    @lru_cache(maxsize=4096)  # noqa: B019 - the resolver lives for the whole process
    def resolve(self, text: str) -> tuple[DrugMatch, ...]:
        """Drugs named in `text`: longest non-overlapping alias spans, in query order."""
        tokens = words(text)
        out: dict[str, DrugMatch] = {}
        for match in longest_spans(self._index.matches(tokens)):
            span = " ".join(tokens[match.start : match.start + match.length])
            out.setdefault(match.value, DrugMatch(match.value, span, match.start))
        return tuple(out.values())

    def resolve_ids(self, text: str) -> tuple[str, ...]:
        return tuple(m.drug_id for m in self.resolve(text))
