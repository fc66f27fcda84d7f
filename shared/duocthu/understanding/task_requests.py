"""The tasks a message asks the assistant to carry out (data/task_requests.tsv): a verb of a task
with a word of asking a favour ("giúp", "giùm", "hộ") after it in its clause, or right before it
with the one asked for ("giúp em soạn …"). One mechanism for every task verb, in place of a cue
row per verb and particle."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from duocthu.core.tables import table_records
from duocthu.core.text import nfc, token_matches, typed_with_marks, words

_FAVOUR = ("giúp", "giùm", "hộ")
_AMBIGUOUS_UNMARKED = frozenset({"hộ"})  # typed "ho": a cough as often
# Who the favour is for, between the word of asking it and the verb ("giúp em soạn")
_FOR_WHOM = ("em", "e", "tôi", "mình", "chị", "anh", "con", "cháu", "tớ", "t")
# The words after the verb the favour may stand at ("tính ClCr Cockcroft-Gault giùm")
FAVOUR_WITHIN = 4


@cache
def _tasks() -> tuple[tuple[tuple[str, ...], str], ...]:
    rows = ((tuple(words(r["verb"])), r["kind"]) for r in table_records("task_requests.tsv"))
    return tuple(sorted(rows, key=lambda row: -len(row[0])))  # "quy đổi" before "đổi"


def _is(token: str, choices: Sequence[str], marked: bool) -> bool:
    """In a message typed with marks a word is as written ("ho" is a cough, never "hộ"); without
    marks, a word that folds to another word too is none of them ("ho")."""
    if marked:
        return token in choices
    return any(token_matches(token, c) for c in choices if c not in _AMBIGUOUS_UNMARKED)


def tasks_requested(tokens: Sequence[str], clauses: Sequence[int]) -> list[tuple[int, int, str]]:
    """Each task asked, as (its verb's first word, the verb's length in words, the kind of task):
    `tokens` the message's words, `clauses` each word's clause."""
    found: list[tuple[int, int, str]] = []
    marked = typed_with_marks(tokens)
    if not any(_is(token, _FAVOUR, marked) for token in tokens):
        return found  # most texts ask no favour (the book's sentences, read for their route, never)
    for i in range(len(tokens)):
        for verb, kind in _tasks():
            end = i + len(verb)
            if end > len(tokens) or not all(
                token_matches(t, v) for t, v in zip(tokens[i:end], verb, strict=True)
            ):
                continue
            after = range(end, min(end + FAVOUR_WITHIN + 1, len(tokens)))
            asked_after = any(clauses[j] == clauses[i] and _is(tokens[j], _FAVOUR, marked) for j in after)
            before = tokens[max(0, i - 2) : i]
            for_whom = len(before) == 2 and _is(before[1], _FOR_WHOM, marked)
            asked_before = bool(before) and _is(before[-2 if for_whom else -1], _FAVOUR, marked)
            if asked_after or asked_before:
                found.append((i, len(verb), kind))
            break
    return found


# A strength stated per unit of a form ("siro 250mg/5ml", "viên 5mg", "giọt 10mg/ml"): an amount of
# that form asked beside it ("mấy viên", "bao nhiêu ml") is the dose converted into the form,
# arithmetic the book leaves to the prescriber, as a conversion asked in words is
_STRENGTH_PER_FORM = re.compile(
    r"\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|g)\s*/\s*\d*\s*(?:ml|viên)\b"
    r"|\b(?:viên|ống|gói|siro|giọt)\s+\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|g)\b",
    re.IGNORECASE,
)
_FORM_UNITS = frozenset({"vien", "ml", "giot", "ong", "goi"})


def conversions_asked(
    text: str, folded: Sequence[str], amounts: Sequence[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """Of the amounts a message asks (`amounts`: where each stands and its length in words, its
    unit last, as `cues` reads them), each in a form's unit beside a strength of that form, as
    `tasks_requested` gives a task ("compute")."""
    found = [(at, length, "compute") for at, length in amounts if folded[at + length - 1] in _FORM_UNITS]
    return found if found and _STRENGTH_PER_FORM.search(nfc(text)) else []
