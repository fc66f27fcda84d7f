"""Which catalogue names may match a text how: an alias's kind (matched folded, only as written,
or never: an ordinary word), the shape of a Vietnamese syllable, the fuzzy score of a misspelling,
and the digest of these rules (an alias index derived under other rules is re-derived).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

from duocthu.core.caching import text_cache
from duocthu.core.tables import data_lines
from duocthu.core.text import fold, has_diacritics, words

INDEX_FORMAT = 2  # bump when AliasIndex's layout or derivation changes

# --- Which aliases may match how -------------------------------------------------------------

AliasKind = Literal["folded", "as_written", "word"]


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """data/common_words.txt: words (NFC, case-folded, with marks) no alias may stand for."""
    return frozenset(" ".join(words(line)) for line in data_lines("common_words.txt"))


@lru_cache(maxsize=1)
def common_folded() -> frozenset[str]:
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


@text_cache(maxsize=65536, max_text=64)
def plain_word(token: str) -> bool:
    """A single case-folded token that is an ordinary word, as written or typed without marks."""
    if token in common_words():
        return True
    return not has_diacritics(token) and (token in common_folded() or is_vietnamese_syllable(token))


@text_cache(maxsize=65536, max_text=64)
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
    return name_kind(written, [fold(t) for t in written])


def name_kind(written: list[str], folded: list[str]) -> AliasKind:
    """alias_kind for a name already split (case-folded tokens) and folded token by token."""
    if len(written) == 1:
        if plain_word(written[0]):
            return "word"
    else:
        phrase = " ".join(written)
        if phrase in common_words() or (written == folded and phrase in common_folded()):
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
INVENTED_EXTRA = (2, 3)
VARIANT_ENDINGS = frozenset({"um"})
STEM_SIBLINGS = 64  # longer real words checked per stem (acid... has dozens)
FUZZY_MIN_LETTERS = 4  # a shorter span sits within two edits of hundreds of names
FUZZY_MAX_SPAN = 3  # tokens per span: multi-word names ("acid acetylsalicylic") typed with a typo


def fuzzy_score(similarity: float) -> float:
    """Map OSA similarity (1 − edits/longer length) to the suggest score: 2·similarity − 1.

    Each edit costs twice its share of the name, so the default min_score 0.55 admits about one
    edit (a transposition counts as one) per 4.5 letters: paracetamon → paracetamol 0.82,
    amoxicilline → amoxicilin 0.67, while an unrelated word two or three edits from a short brand
    (bacteria → Bactrim 0.5) stays below it.
    """
    return max(0.0, 2.0 * similarity - 1.0)


def similarity_cutoff(min_score: float) -> float:
    """The OSA similarity a name needs for `min_score` (scores stop at 0, similarity 0.5)."""
    return min(1.0, max(0.5, (1.0 + min_score) / 2.0))


@lru_cache(maxsize=1)
def rules_digest() -> str:
    """Identifies the rules an AliasIndex was derived under (format, word list, syllable shape)."""
    digest = hashlib.sha256(f"{INDEX_FORMAT}|{_SYLLABLE.pattern}|{FUZZY_MIN_LETTERS}|".encode())
    digest.update("\n".join(data_lines("common_words.txt")).encode("utf-8"))
    digest.update("\n".join(data_lines("drug_shorthands.tsv")).encode("utf-8"))
    digest.update("\n".join(data_lines("world_drugs.txt")).encode("utf-8"))  # ward shorthand
    digest.update("\n".join(data_lines("world_brands.tsv")).encode("utf-8"))
    return digest.hexdigest()[:16]


def stem_forms(folded: list[str]) -> Iterator[str]:
    """The words of a real name an invented one may be built on, with the Vietnamese form of an
    English or French INN (omeprazole -> omeprazol)."""
    for token in folded:
        if len(token) >= FUZZY_MIN_LETTERS and not plain_word(token):
            yield token
            if token.endswith("e") and len(token) > FUZZY_MIN_LETTERS:
                yield token[:-1]


def foreign_word(token: str) -> bool:
    """A word that cannot be Vietnamese: three letters or more, not one syllable's shape, not listed."""
    folded = fold(token)
    if len(folded) < 3 or not folded.isalpha() or token.casefold() in common_words():
        return False
    return not is_vietnamese_syllable(folded)
