"""The clinical lexicon (data/clinical_lexicon.tsv): clinicians' abbreviations, ward shorthand,
chat spellings and slang read as the formulary's own words, once, before understanding reads the
message. Every later step (drug names, cues, patient facts) sees the formulary's words, so no cue
table needs a row per abbreviation. Terms kept as written (INR, ClCr) are never drug names."""

from __future__ import annotations

import re
from functools import lru_cache

from duocthu.core.tables import table_records
from duocthu.core.text import nfc


@lru_cache(maxsize=1)
def _lexicon() -> tuple[re.Pattern[str], dict[str, str]]:
    table = {nfc(r["term"]).casefold(): nfc(r["formulary"]) for r in table_records("clinical_lexicon.tsv")}
    alternatives = "|".join(_alternative(t) for t in sorted(table, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE), table


def _alternative(term: str) -> str:
    """A term as matched: a word on its word boundaries; a symbol only between spaces, where it
    joins the words either side ("Tegretol + thuốc tránh thai"), never a result in brackets
    beside one word ("Chlamydia (+)")."""
    return re.escape(term) if re.search(r"\w", term) else rf"(?<=\s){re.escape(term)}(?=\s)"


@lru_cache(maxsize=1)
def _formulary_words() -> frozenset[str]:
    """The words the lexicon writes terms as: a message is read in them, and none names a drug."""
    return frozenset(w.casefold() for value in _lexicon()[1].values() for w in value.split())


def lexicon_term(token: str) -> bool:
    """A word of the lexicon, as written or as the formulary writes it: an abbreviation or a
    term, never a drug name."""
    folded = nfc(token).casefold()
    return folded in _lexicon()[1] or folded in _formulary_words()


@lru_cache(maxsize=1)
def _book_reference() -> re.Pattern[str]:
    """ "trong sách", "của Dược thư", "trong 40 thuốc này": where to look, inside a question; never
    after "có" ("X có trong Dược thư không?" asks it)."""
    book = [r["phrase"] for r in table_records("understanding_cues.tsv") if r["kind"] == "book"]
    names = "|".join(re.escape(name) for name in book)
    named = rf"(?:trong|của|theo)\s+(?:cuốn\s+|quyển\s+)?(?:{names})"
    counted = r"trong\s+\d+\s+thuốc(?:\s+(?:này|đó|trên))?"  # the book's drugs, counted
    return re.compile(rf"\s*(?<![\w-])(?<!có )(?<!co )(?:{named}|{counted})(?![\w-])", re.IGNORECASE)


def formulary_wording(text: str) -> str:
    """The message in the formulary's words: each lexicon term replaced, a capital kept; a
    reference to the book inside a question is read as nothing (every answer is from the book, and
    such words sat between the parts of the question's form: "thuốc nào trong sách có ADR …")."""
    pattern, table = _lexicon()

    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        said = table[found.casefold()]
        if not said:
            return found
        # "Ko" opening a sentence stays capitalised; an abbreviation in capitals ("THA") is words
        capital = found[:1].isupper() and not found.isupper()
        return said[:1].upper() + said[1:] if capital else said

    worded = pattern.sub(replace, nfc(text))
    read = _book_reference().sub("", worded)
    return read if read == worded else read.lstrip(" ,")
