"""The catalogue artifact (`catalog.json`, written by ingest beside the index version): every drug
with its title and aliases, the corpus hash of the index it was built with, and the resolver's
alias tables (`AliasIndex`), derived from the names when the artifact is made, so that a cold start
deserialises them instead of rebuilding them.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from duocthu.catalog.drug_class import drug_class
from duocthu.catalog.names import FUZZY_MIN_LETTERS, name_kind, rules_digest, stem_forms
from duocthu.catalog.shorthands import brand_names, prefix_names, shorthand_names
from duocthu.core.text import fold, raw_words, words
from duocthu.models.source import Monograph

log = logging.getLogger(__name__)


class CatalogDrug(BaseModel):
    model_config = ConfigDict(frozen=True)

    drug_id: str
    title: str
    aliases: tuple[str, ...] = ()
    atc_codes: tuple[str, ...] = ()
    section_keys: tuple[str, ...] = ()
    # the head of its "Loại thuốc" section (duocthu.catalog.drug_class): what a long list groups by
    drug_class: str | None = None

    def names(self) -> tuple[str, ...]:
        """Every name form: the title, the drug_id's own words, then the aliases."""
        own = self.drug_id.replace("_", " ")
        return tuple(dict.fromkeys((self.title, own, *self.aliases)))


# --- The artifact ----------------------------------------------------------------------------


def names_digest(drugs: Sequence[CatalogDrug]) -> str:
    """Identifies the drug list's names: an alias index derived from other names is not used."""
    text = "\x1f".join("\x1e".join((d.drug_id, *d.names())) for d in drugs)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class AliasIndex(BaseModel):
    """The resolver's tables, derived from the catalogue's names when the artifact is made.

    Re-deriving 10,000 names at every cold start (split, fold, classify each) costs 220-360 ms on
    these machines, over the 150 ms load budget, and nested JSON objects parse at half the speed of
    flat lists, so the tables are flat string lists that the resolver zips into dictionaries: `exact_rows[i]`
    holds the names whose folded tokens are `exact_keys[i]`, one "written tokens<TAB>drug_id<TAB>
    f|w" line each (f: the diacritics rule, w: as written only); `fuzzy_rows[i]` holds
    "drug_id<TAB>alias" lines for the folded, space-free name `fuzzy_keys[i]` (sorted).
    """

    model_config = ConfigDict(frozen=True)

    rules: str  # rules_digest() at derivation; another digest means re-derive
    names: str  # names_digest() of the drugs it was derived from
    max_len: int  # tokens in the longest indexed name
    exact_keys: tuple[str, ...]
    exact_rows: tuple[str, ...]
    acronyms: dict[str, tuple[str, ...]]  # "DAT" -> drug_ids, matched in the same capitals only
    fuzzy_keys: tuple[str, ...]
    fuzzy_rows: tuple[str, ...]
    stems: tuple[str, ...]  # folded words of real names, sorted: what an invented name is built on
    withheld: int  # aliases that are ordinary words, never matched

    def current_for(self, drugs: Sequence[CatalogDrug]) -> bool:
        return self.rules == rules_digest() and self.names == names_digest(drugs)

    @classmethod
    def build(cls, drugs: Sequence[CatalogDrug]) -> AliasIndex:
        exact: dict[str, dict[str, None]] = {}
        acronyms: dict[str, dict[str, None]] = {}
        fuzzy: dict[str, dict[str, str]] = {}
        stems: set[str] = set()
        withheld = max_len = 0
        named = {d.drug_id: d.names() for d in drugs}
        shorthands, brands = shorthand_names(named), brand_names(named)
        for drug in drugs:
            for name in (*drug.names(), *shorthands.get(drug.drug_id, ()), *brands.get(drug.drug_id, ())):
                written = words(name)
                folded = [fold(t) for t in written]
                kind = name_kind(written, folded) if written else "word"
                if kind == "word":
                    raw = raw_words(name)
                    if len(raw) == 1 and len(raw[0]) >= 2 and raw[0].isupper():
                        acronyms.setdefault(raw[0], {})[drug.drug_id] = None
                    else:
                        withheld += 1
                    continue
                row = f"{' '.join(written)}\t{drug.drug_id}\t{'f' if kind == 'folded' else 'w'}"
                exact.setdefault(" ".join(folded), {})[row] = None
                max_len = max(max_len, len(written))
                key = "".join(folded)
                if len(key) >= FUZZY_MIN_LETTERS:
                    fuzzy.setdefault(key, {}).setdefault(drug.drug_id, " ".join(name.split()))
                if kind == "folded":
                    stems.update(stem_forms(folded))
        for drug_id, prefixes in prefix_names(named).items():
            # ward shorthand ("amox"): matched exactly, never a fuzzy target or a stem
            for prefix in prefixes:
                exact.setdefault(prefix, {})[f"{prefix}\t{drug_id}\tf"] = None
        fuzzy_keys = sorted(fuzzy)
        return cls(
            rules=rules_digest(),
            names=names_digest(drugs),
            max_len=max_len,
            exact_keys=tuple(exact),
            exact_rows=tuple("\n".join(rows) for rows in exact.values()),
            acronyms={raw: tuple(ids) for raw, ids in acronyms.items()},
            fuzzy_keys=tuple(fuzzy_keys),
            fuzzy_rows=tuple("\n".join(f"{d}\t{a}" for d, a in fuzzy[k].items()) for k in fuzzy_keys),
            stems=tuple(sorted(stems)),
            withheld=withheld,
        )


class Catalog(BaseModel):
    model_config = ConfigDict(frozen=True)

    corpus_hash: str
    sample_data: bool = False
    drugs: tuple[CatalogDrug, ...]
    alias_index: AliasIndex | None = None  # derived from drugs; always present in a written artifact

    @classmethod
    def from_records(cls, records: list[Monograph], corpus_hash: str) -> Catalog:
        drugs = tuple(
            CatalogDrug(
                drug_id=r.drug_id,
                title=r.title,
                aliases=r.aliases,
                atc_codes=r.atc_codes,
                section_keys=tuple(s.key for s in r.sections),
                drug_class=drug_class(r),
            )
            for r in sorted(records, key=lambda r: r.drug_id)
        )
        return cls(
            corpus_hash=corpus_hash,
            sample_data=any(r.sample_data for r in records),
            drugs=drugs,
            alias_index=AliasIndex.build(drugs),
        )

    def with_alias_index(self) -> Catalog:
        """This catalogue with a current alias index (itself when it already has one)."""
        if self.alias_index is not None and self.alias_index.current_for(self.drugs):
            return self
        return self.model_copy(update={"alias_index": AliasIndex.build(self.drugs)})

    def write(self, path: Path) -> None:
        path.write_text(self.with_alias_index().model_dump_json(), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> Catalog:
        return cls.model_validate_json(path.read_bytes())
