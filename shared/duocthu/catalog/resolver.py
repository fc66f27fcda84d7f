"""The drug catalogue artifact and the resolver over its names.

The artifact (`catalog.json`, written by ingest beside the index version) lists every drug with
its title and aliases, carries the corpus hash of the index it was built with, and carries the
resolver's alias tables (`AliasIndex`), derived from the names when the artifact is made. A
process loads it once at cold start (`load_resolver`, or `load_catalog_from_s3` when the layer does
not ship it): loading is deserialisation, not a rebuild. Checking the corpus hash against the index
manifest is `load_active_catalog`'s job.

The resolver bounds which drugs a language model may name (reference 08, F-04): `resolve` gives the
drugs a text names exactly, `suggest` the few names it plausibly misspelt. Nothing else the text
mentions can become a catalogue drug.
"""

from __future__ import annotations

import bisect
import hashlib
import logging
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict
from rapidfuzz import process
from rapidfuzz.distance import OSA

from duocthu.core.phrases import PhraseMatch, longest_spans
from duocthu.core.tables import data_lines
from duocthu.core.text import fold, has_diacritics, raw_words, token_matches, words
from duocthu.models.source import Monograph

if TYPE_CHECKING:
    from duocthu.settings import Settings
    from duocthu.store import Manifest, VectorStore

log = logging.getLogger(__name__)

_INDEX_FORMAT = 1  # bump when AliasIndex's layout or derivation changes


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


# --- Which aliases may match how -------------------------------------------------------------

AliasKind = Literal["folded", "as_written", "word"]


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """data/common_words.txt: words (NFC, case-folded, with marks) no alias may stand for."""
    return frozenset(" ".join(words(line)) for line in data_lines("common_words.txt"))


@lru_cache(maxsize=1)
def _common_folded() -> frozenset[str]:
    return frozenset(fold(w) for w in common_words())


# The shape of one Vietnamese syllable with its marks stripped: onset, then a vowel nucleus with an
# optional final consonant, or a gliding vowel cluster. Brand lists hold single-syllable names a user
# types for ordinary words without marks (Theo for "theo", Thia for "thìa", DAT for "đặt").
_ONSET = "(?:ngh|ng|gh|gi|kh|nh|ph|qu|th|tr|ch|[bcdghklmnprstvx])?"
_NUCLEUS = "(?:uye|uy|ue|uo|ua|oa|oe|oo|ie|ye|[aeiouy])(?:ch|ng|nh|[cmnpt])?"
_GLIDE = "(?:oai|oay|oao|oeo|uay|uoi|uou|uya|uyu|ieu|yeu|ai|ao|au|ay|eo|eu|ia|iu|oi|ui|uu)"
_SYLLABLE = re.compile(f"{_ONSET}(?:{_NUCLEUS}|{_GLIDE})")


def is_vietnamese_syllable(token: str) -> bool:
    """True when the token, marks stripped, has the shape of a single Vietnamese syllable."""
    return _SYLLABLE.fullmatch(fold(token)) is not None


@lru_cache(maxsize=65536)
def _plain_word(token: str) -> bool:
    """A single case-folded token that is an ordinary word, as written or typed without marks."""
    if token in common_words():
        return True
    return not has_diacritics(token) and (token in _common_folded() or is_vietnamese_syllable(token))


@lru_cache(maxsize=65536)
def alias_kind(alias: str) -> AliasKind:
    """How an alias may match a query.

    folded      the diacritics rule: a query token with marks must match them, one without marks
                matches the alias's folded form;
    as_written  only the alias's own letters and marks, case-insensitive (three letters or fewer,
                or a syllable written with marks: folding "Sắt" would also match "sát", "sạt");
    word        the alias is an ordinary word ("Oxy"), or one typed without marks ("DAT"): never
                matched in running text; an all-capitals acronym still matches where the query
                writes it in the same capitals.
    """
    written = words(alias)
    return _kind(written, [fold(t) for t in written])


def _kind(written: list[str], folded: list[str]) -> AliasKind:
    """alias_kind for a name already split (case-folded tokens) and folded token by token."""
    if len(written) == 1:
        if _plain_word(written[0]):
            return "word"
    else:
        phrase = " ".join(written)
        if phrase in common_words() or (written == folded and phrase in _common_folded()):
            return "word"
    if sum(map(len, written)) <= 3:
        return "as_written"
    if len(written) == 1 and written != folded and _SYLLABLE.fullmatch(folded[0]):
        return "as_written"
    return "folded"


# --- Fuzzy scoring ---------------------------------------------------------------------------

# An invented name is a real name with a short suffix or prefix (aspirin+ol, es+omeprazol). Extras
# of 2-3 letters make a different-looking word; one letter is a typo or an English/French ending
# (amoxicillin+e), and "um" is the Latin form (paracetamolum).
_INVENTED_EXTRA = (2, 3)
_VARIANT_ENDINGS = frozenset({"um"})
_STEM_SIBLINGS = 64  # longer real words checked per stem (acid... has dozens)
_FUZZY_MIN_LETTERS = 4  # a shorter span sits within two edits of hundreds of names
_FUZZY_MAX_SPAN = 3  # tokens per span: multi-word names ("acid acetylsalicylic") typed with a typo


def fuzzy_score(similarity: float) -> float:
    """Map OSA similarity (1 − edits/longer length) to the suggest score: 2·similarity − 1.

    Each edit costs twice its share of the name, so the default min_score 0.55 admits about one
    edit (a transposition counts as one) per 4.5 letters: paracetamon → paracetamol 0.82,
    amoxicilline → amoxicilin 0.67, while an unrelated word two or three edits from a short brand
    (bacteria → Bactrim 0.5) stays below it.
    """
    return max(0.0, 2.0 * similarity - 1.0)


def _similarity_cutoff(min_score: float) -> float:
    """The OSA similarity a name needs for `min_score` (scores stop at 0, similarity 0.5)."""
    return min(1.0, max(0.5, (1.0 + min_score) / 2.0))


@lru_cache(maxsize=1)
def rules_digest() -> str:
    """Identifies the rules an AliasIndex was derived under (format, word list, syllable shape)."""
    digest = hashlib.sha256(f"{_INDEX_FORMAT}|{_SYLLABLE.pattern}|{_FUZZY_MIN_LETTERS}|".encode())
    digest.update("\n".join(data_lines("common_words.txt")).encode("utf-8"))
    return digest.hexdigest()[:16]


# --- The artifact ----------------------------------------------------------------------------


def names_digest(drugs: Sequence[CatalogDrug]) -> str:
    """Identifies the drug list's names: an alias index derived from other names is not used."""
    text = "\x1f".join("\x1e".join((d.drug_id, *d.names())) for d in drugs)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _stem_forms(folded: list[str]) -> Iterator[str]:
    """The words of a real name an invented one may be built on, with the Vietnamese form of an
    English or French INN (omeprazole -> omeprazol)."""
    for token in folded:
        if len(token) >= _FUZZY_MIN_LETTERS and not _plain_word(token):
            yield token
            if token.endswith("e") and len(token) > _FUZZY_MIN_LETTERS:
                yield token[:-1]


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
        for drug in drugs:
            for name in drug.names():
                written = words(name)
                folded = [fold(t) for t in written]
                kind = _kind(written, folded) if written else "word"
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
                if len(key) >= _FUZZY_MIN_LETTERS:
                    fuzzy.setdefault(key, {}).setdefault(drug.drug_id, " ".join(name.split()))
                if kind == "folded":
                    stems.update(_stem_forms(folded))
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


# --- The resolver ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DrugMatch:
    drug_id: str
    matched_text: str  # the span of the query, as the user wrote it
    start: int  # token position

    @property
    def end(self) -> int:
        """The token position after the match."""
        return self.start + len(words(self.matched_text))


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A catalogue name the text plausibly misspelt: a candidate to show, never a resolved drug."""

    drug_id: str
    matched_text: str  # the span of the query (case-folded tokens)
    alias: str  # the catalogue name it resembles, as the catalogue writes it
    score: float  # 1.0 identical; see CatalogDrugResolver.suggest


class CatalogDrugResolver:
    """Drug names in a text: exact alias spans (`resolve`) and fuzzy candidates (`suggest`).

    Built once per process from a catalogue and immutable afterwards; both lookups are cached.
    """

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.by_id = {d.drug_id: d for d in catalog.drugs}
        index = catalog.alias_index
        if index is None:
            log.info("catalogue without an alias index (an older artifact): deriving it")
            index = AliasIndex.build(catalog.drugs)
        elif not index.current_for(catalog.drugs):
            log.warning("catalogue alias index derived under other rules or names: re-deriving it")
            index = AliasIndex.build(catalog.drugs)
        self._index = index
        self._exact = dict(zip(index.exact_keys, index.exact_rows, strict=True))
        self._fuzzy = dict(zip(index.fuzzy_keys, index.fuzzy_rows, strict=True))
        self._stems = frozenset(index.stems)
        self._names = frozenset(index.fuzzy_keys)
        by_length: dict[int, list[str]] = {}
        for key in index.fuzzy_keys:
            by_length.setdefault(len(key), []).append(key)
        self._fuzzy_by_length = by_length

    @property
    def alias_count(self) -> int:
        """Name forms matched exactly (acronyms included, withheld words not)."""
        rows = sum(r.count("\n") + 1 for r in self._index.exact_rows)
        return rows + sum(len(ids) for ids in self._index.acronyms.values())

    @property
    def withheld_count(self) -> int:
        """Aliases that are ordinary words ("Oxy") and are never matched."""
        return self._index.withheld

    @property
    def fuzzy_name_count(self) -> int:
        return len(self._index.fuzzy_keys)

    # --- exact ------------------------------------------------------------------------------

    @lru_cache(maxsize=4096)  # noqa: B019 - the resolver lives for the whole process
    def resolve(self, text: str) -> tuple[DrugMatch, ...]:
        """Drugs named in `text`: longest non-overlapping alias spans, in query order.

        One dictionary probe per contiguous span, O(q·L) for q tokens and names of up to L tokens,
        whatever the catalogue's size. Word boundaries always (whole tokens only); a name shared
        by several drugs yields all of them.
        """
        tokens = words(text)
        found = self._exact_matches(tokens)
        if self._index.acronyms:
            found.extend(self._acronym_matches(text, len(tokens)))
        out: dict[str, DrugMatch] = {}
        for match in longest_spans(found):
            span = " ".join(tokens[match.start : match.start + match.length])
            out.setdefault(match.value, DrugMatch(match.value, span, match.start))
        return tuple(out.values())

    def _exact_matches(self, tokens: list[str]) -> list[PhraseMatch[str]]:
        """Every (span, drug) whose name matches the span under the diacritics rule: the lookup of
        duocthu.core.text.PhraseIndex, over the deserialised table."""
        folded = [fold(t) for t in tokens]
        found: list[PhraseMatch[str]] = []
        for start in range(len(tokens)):
            key = ""
            for length in range(1, min(self._index.max_len, len(tokens) - start) + 1):
                key = f"{key} {folded[start + length - 1]}" if key else folded[start]
                rows = self._exact.get(key)
                if rows is None:
                    continue
                span = tokens[start : start + length]
                for row in rows.split("\n"):
                    written, drug_id, rule = row.split("\t")
                    target = written.split(" ")
                    if all(map(token_matches, span, target)) if rule == "f" else span == target:
                        found.append(PhraseMatch(start, length, drug_id))
        return found

    def _acronym_matches(self, text: str, n_tokens: int) -> Iterator[PhraseMatch[str]]:
        raw = raw_words(text)
        if len(raw) != n_tokens:
            return  # case folding changed the tokens: no case information to trust
        lettered = [i for i, t in enumerate(raw) if any(c.isalpha() for c in t)]
        for i, token in enumerate(raw):
            drug_ids = self._index.acronyms.get(token)
            if not drug_ids:
                continue
            others = [raw[j] for j in lettered if j != i]
            if others and all(t.isupper() for t in others):
                continue  # typed in capitals throughout: "DAT TRUC TRANG" is "đặt trực tràng"
            yield from (PhraseMatch(i, 1, drug_id) for drug_id in drug_ids)

    def resolve_ids(self, text: str) -> tuple[str, ...]:
        return tuple(m.drug_id for m in self.resolve(text))

    # --- fuzzy ------------------------------------------------------------------------------

    @lru_cache(maxsize=4096)  # noqa: B019 - the resolver lives for the whole process
    def suggest(self, text: str, k: int = 5, min_score: float = 0.55) -> tuple[Suggestion, ...]:
        """Catalogue names the text plausibly misspelt, best first, one per drug, at most k.

        Only words `resolve` left unmatched are considered, and only words that could be a drug
        name: no marks (a word typed with marks is Vietnamese text, and the diacritics rule gives
        it exact matches only), no digits, four letters or more, not a common word or a bare
        syllable, and not an invented name, a real name plus a 2-3 letter suffix or prefix
        (aspirinol; esomeprazol where only omeprazol exists), unless it begins a real name
        (typing stopped early). Spans of up to three such words are compared whole.

        Score: OSA similarity between the folded span and a folded name, spaces removed, mapped
        by `fuzzy_score`. RapidFuzz scans only the names whose length can reach min_score.
        """
        tokens = words(text)
        exact = self.resolve(text)
        covered = {m.start + i for m in exact for i in range(len(m.matched_text.split()))}
        resolved = {m.drug_id for m in exact}
        usable = [i not in covered and self._could_be_drug_name(t) for i, t in enumerate(tokens)]
        cutoff = _similarity_cutoff(min_score)
        best: dict[str, Suggestion] = {}
        for start in range(len(tokens)):
            for length in range(1, _FUZZY_MAX_SPAN + 1):
                if start + length > len(tokens) or not usable[start + length - 1]:
                    break
                span = tokens[start : start + length]
                for key, similarity in self._nearest("".join(fold(t) for t in span), cutoff):
                    score = round(fuzzy_score(similarity), 3)
                    for row in self._fuzzy[key].split("\n"):
                        drug_id, alias = row.split("\t")
                        held = best.get(drug_id)
                        if drug_id not in resolved and (held is None or score > held.score):
                            best[drug_id] = Suggestion(drug_id, " ".join(span), alias, score)
        ranked = sorted(best.values(), key=lambda s: (-s.score, s.drug_id))
        return tuple(ranked[:k])

    def _could_be_drug_name(self, token: str) -> bool:
        if len(token) < _FUZZY_MIN_LETTERS or has_diacritics(token) or not token.isalpha():
            return False
        return not _plain_word(token) and not self._invented(fold(token))

    def _invented(self, token: str) -> bool:
        """A real word with a short suffix added (aspirin+ol), or a whole real name with a short
        prefix (es+omeprazol), unless the token starts a real name (typing stopped early) or is one
        edit from a longer real word with the same start (abacavin is a slip for abacavir, not the
        brand Abacav plus "in")."""
        names = self._index.fuzzy_keys
        at = bisect.bisect_left(names, token)
        if at < len(names) and names[at].startswith(token):
            return False
        for extra in _INVENTED_EXTRA:
            if len(token) - extra < _FUZZY_MIN_LETTERS:
                break
            stem = token[:-extra]
            suffixed = stem in self._stems and token[-extra:] not in _VARIANT_ENDINGS
            if suffixed and not self._slip_of_longer_word(token, stem):
                return True
            if token[extra:] in self._names:  # a whole name only: oxy+toxin is a slip for oxytocin
                return True
        return False

    def _slip_of_longer_word(self, token: str, stem: str) -> bool:
        """One edit from a real word that extends `stem` by two letters or more (one more letter
        is the same word's other spelling: metformine does not excuse metforminex)."""
        real_words = self._index.stems  # sorted
        at = bisect.bisect_right(real_words, stem)
        for word in real_words[at : at + _STEM_SIBLINGS]:
            if not word.startswith(stem):
                break
            if len(word) - len(stem) >= 2 and OSA.distance(token, word, score_cutoff=1) <= 1:
                return True
        return False

    def _nearest(self, query: str, cutoff: float) -> Iterator[tuple[str, float]]:
        """Names with OSA similarity >= cutoff. Only lengths within reach are scanned: similarity
        c needs c·|query| <= |name| <= |query|/c."""
        if len(query) < _FUZZY_MIN_LETTERS:
            return
        shortest = max(_FUZZY_MIN_LETTERS, math.ceil(len(query) * cutoff - 1e-9))
        for length in range(shortest, math.floor(len(query) / cutoff + 1e-9) + 1):
            keys = self._fuzzy_by_length.get(length)
            if keys:
                for key, similarity, _ in process.extract(
                    query, keys, scorer=OSA.normalized_similarity, score_cutoff=cutoff, limit=None
                ):
                    yield key, similarity

    # --- names for prompts ------------------------------------------------------------------

    @lru_cache(maxsize=4096)  # noqa: B019 - the resolver lives for the whole process
    def catalog_names(self, drug_id: str, limit: int = 4) -> tuple[str, ...]:
        """Names to show a model for drug_id: its own name form first, then recognisable aliases.

        Reference 08: shown the alphabetically first aliases of paracetamol (0Frezefev, ABAB, ...),
        the model took a plain "paracetamol" for an unknown drug. Catalogue order keeps the
        source's INN synonyms and main brands first; ordinary words, names of three letters or
        fewer, entries of more than four words and names with digits (0Frezefev, Ace kid 80: pack
        and strength codes) are skipped.
        """
        drug = self.by_id[drug_id]
        own = drug.drug_id.replace("_", " ")
        first = drug.title if _folded_words(drug.title) == _folded_words(own) else own
        names = [first]
        seen = {_folded_words(first)}
        for alias in (drug.title, *drug.aliases):
            if len(names) >= limit:
                break
            key = _folded_words(alias)
            if key in seen or not _recognisable(alias):
                continue
            seen.add(key)
            names.append(alias)
        return tuple(names)


def _folded_words(text: str) -> tuple[str, ...]:
    return tuple(fold(t) for t in words(text))


def _recognisable(alias: str) -> bool:
    tokens = words(alias)
    return (
        alias_kind(alias) != "word"
        and sum(map(len, tokens)) > 3
        and len(tokens) <= 4
        and not any(c.isdigit() for c in alias)
    )


# --- Cold start ------------------------------------------------------------------------------


def load_resolver(path: Path) -> CatalogDrugResolver:
    """The resolver for the catalogue artifact at `path` (deserialised, not re-derived)."""
    return CatalogDrugResolver(Catalog.read(path))


def load_catalog_from_s3(uri: str) -> Catalog:
    """The catalogue artifact at s3://bucket/key (CATALOG_S3_URI), for a layer that does not ship it."""
    bucket, _, key = uri.removeprefix("s3://").partition("/")
    if not uri.startswith("s3://") or not bucket or not key:
        raise ValueError(f"not an s3://bucket/key URI: {uri!r}")
    body = _s3_client().get_object(Bucket=bucket, Key=key)["Body"].read()
    catalog = Catalog.model_validate_json(body)
    log.info("catalogue from %s: %d drugs, corpus %s", uri, len(catalog.drugs), catalog.corpus_hash[:12])
    return catalog


@lru_cache(maxsize=1)
def _s3_client() -> Any:
    import boto3  # only when the catalogue comes from S3: a cold start from the layer skips it

    return boto3.client("s3")


CATALOG_FILE = "catalog.json"


def catalog_path(settings: Settings, version: str) -> Path:
    return settings.data_dir / "versions" / version / CATALOG_FILE


def load_active_catalog(store: VectorStore, settings: Settings) -> tuple[Manifest, Catalog]:
    """The active manifest and its catalogue; raises when they were built from different corpora."""
    manifest = store.active_manifest()
    if manifest is None:
        raise FileNotFoundError("no index: run `duocthu ingest`")
    if settings.catalog_s3_uri:  # a layer that does not ship the artifact reads it from S3
        catalog = load_catalog_from_s3(settings.catalog_s3_uri)
    else:
        catalog = Catalog.read(catalog_path(settings, manifest.version))
    if catalog.corpus_hash != manifest.corpus_hash:
        raise CatalogMismatch(manifest.corpus_hash, catalog.corpus_hash)
    return manifest, catalog


class CatalogMismatch(RuntimeError):
    def __init__(self, index_hash: str, catalog_hash: str):
        super().__init__(f"catalogue corpus hash {catalog_hash[:12]} != index corpus hash {index_hash[:12]}")
