"""The resolver over the catalogue's names (reference 08, F-04): it bounds which drugs a language
model may name. `resolve` gives the drugs a text names exactly, `suggest` the few names it plausibly
misspelt; nothing else the text mentions can become a catalogue drug. A process loads it once at
cold start (`load_resolver`): loading is deserialisation, not a rebuild.
"""

from __future__ import annotations

import bisect
import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rapidfuzz import process
from rapidfuzz.distance import OSA

from duocthu.catalog.artifact import AliasIndex, Catalog
from duocthu.catalog.names import (
    FUZZY_MAX_SPAN,
    FUZZY_MIN_LETTERS,
    INVENTED_EXTRA,
    STEM_SIBLINGS,
    VARIANT_ENDINGS,
    alias_kind,
    fuzzy_score,
    plain_word,
    similarity_cutoff,
)
from duocthu.catalog.world_drugs import spelling_key, world_drug
from duocthu.core.caching import text_cache
from duocthu.core.phrases import PhraseMatch, longest_spans
from duocthu.core.text import fold, has_diacritics, raw_words, token_matches, words

log = logging.getLogger(__name__)


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


def first_of_each(mentions: Sequence[DrugMatch]) -> tuple[DrugMatch, ...]:
    """Each drug once, at its first mention."""
    out: dict[str, DrugMatch] = {}
    for match in mentions:
        out.setdefault(match.drug_id, match)
    return tuple(out.values())


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
        self._spellings = frozenset(spelling_key(key) for key in index.fuzzy_keys)
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

    @text_cache(maxsize=4096)  # the resolver lives for the whole process
    def resolve(self, text: str) -> tuple[DrugMatch, ...]:
        """Drugs named in `text`: longest non-overlapping alias spans, in query order.

        One dictionary probe per contiguous span, O(q·L) for q tokens and names of up to L tokens,
        whatever the catalogue's size. Word boundaries always (whole tokens only); a name shared
        by several drugs yields all of them.
        """
        return first_of_each(self.mentions(text))

    def mentions(self, text: str) -> tuple[DrugMatch, ...]:
        """Every span of `text` naming a catalogue drug, in query order: a drug named twice
        ("esomeprazol … Nexium") at each place, so no name of it is ever read as another."""
        tokens = words(text)
        found = self._exact_matches(tokens)
        if self._index.acronyms:
            found.extend(self._acronym_matches(text, len(tokens)))
        spans = longest_spans(found)
        named = [DrugMatch(m.value, " ".join(tokens[m.start : m.start + m.length]), m.start) for m in spans]
        return tuple(sorted([*named, *self._short_forms(tokens, named)], key=lambda m: m.start))

    def _short_forms(self, tokens: Sequence[str], named: Sequence[DrugMatch]) -> list[DrugMatch]:
        """A word the message writes as the start of a drug it names in full ("prednisolon … liều
        pred"): that drug, whatever other drug outside the catalogue the word may begin too. Four
        letters or more, no marks, no common word."""
        covered = {m.start + i for m in named for i in range(len(words(m.matched_text)))}
        names = {
            d: [fold(n) for n in self.by_id[d].names() if " " not in n.strip()]
            for d in dict.fromkeys(m.drug_id for m in named)
            if d in self.by_id
        }
        out = []
        for at, token in enumerate(tokens):
            short = fold(token)
            if (
                at in covered
                or len(short) < FUZZY_MIN_LETTERS
                or not token.isalpha()
                or has_diacritics(token)
            ):
                continue
            if plain_word(token):
                continue
            owners = [d for d, own in names.items() if any(n.startswith(short) and n != short for n in own)]
            if len(owners) == 1:
                out.append(DrugMatch(owners[0], token, at))
        return out

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

    # --- fuzzy ------------------------------------------------------------------------------

    @text_cache(maxsize=4096)  # the resolver lives for the whole process
    def suggest(self, text: str, k: int = 5, min_score: float = 0.55) -> tuple[Suggestion, ...]:
        """Catalogue names the text plausibly misspelt, best first, one per drug, at most k.

        Only words `resolve` left unmatched are considered, and only words that could be a drug
        name: no marks (a word typed with marks is Vietnamese text, and the diacritics rule gives
        it exact matches only), no digits, four letters or more, not a common word or a bare
        syllable, and not an invented name, a real name plus a 2-3 letter suffix or prefix
        (aspirinol; esomeprazol where only omeprazol exists), not a real drug outside the catalogue
        (`world_drugs`: pantoprazole is never "corrected" to omeprazol), unless it begins a real name
        (typing stopped early). Spans of up to three such words are compared whole.

        Score: OSA similarity between the folded span and a folded name, spaces removed, mapped
        by `fuzzy_score`. RapidFuzz scans only the names whose length can reach min_score.
        """
        tokens = words(text)
        exact = self.resolve(text)
        covered = {m.start + i for m in exact for i in range(len(m.matched_text.split()))}
        resolved = {m.drug_id for m in exact}
        usable = [i not in covered and self._could_be_drug_name(t) for i, t in enumerate(tokens)]
        cutoff = similarity_cutoff(min_score)
        best: dict[str, Suggestion] = {}
        for start in range(len(tokens)):
            for length in range(1, FUZZY_MAX_SPAN + 1):
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
        if len(token) < FUZZY_MIN_LETTERS or has_diacritics(token) or not token.isalpha():
            return False
        # a real drug outside the catalogue is not in this formulary, never a misspelt other drug
        # (amoxicilline is the catalogue's amoxicilin in another spelling: that one is offered)
        outside = world_drug(token) and spelling_key(token) not in self._spellings
        return not plain_word(token) and not outside and not self._invented(fold(token))

    def _invented(self, token: str) -> bool:
        """A real word with a short suffix added (aspirin+ol), or a whole real name with a short
        prefix (es+omeprazol), unless the token starts a real name (typing stopped early) or is one
        edit from a longer real word with the same start (abacavin is a slip for abacavir, not the
        brand Abacav plus "in")."""
        names = self._index.fuzzy_keys
        at = bisect.bisect_left(names, token)
        if at < len(names) and names[at].startswith(token):
            return False
        for extra in INVENTED_EXTRA:
            if len(token) - extra < FUZZY_MIN_LETTERS:
                break
            stem = token[:-extra]
            suffixed = stem in self._stems and token[-extra:] not in VARIANT_ENDINGS
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
        for word in real_words[at : at + STEM_SIBLINGS]:
            if not word.startswith(stem):
                break
            if len(word) - len(stem) >= 2 and OSA.distance(token, word, score_cutoff=1) <= 1:
                return True
        return False

    def _nearest(self, query: str, cutoff: float) -> Iterator[tuple[str, float]]:
        """Names with OSA similarity >= cutoff. Only lengths within reach are scanned: similarity
        c needs c·|query| <= |name| <= |query|/c."""
        if len(query) < FUZZY_MIN_LETTERS:
            return
        shortest = max(FUZZY_MIN_LETTERS, math.ceil(len(query) * cutoff - 1e-9))
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
