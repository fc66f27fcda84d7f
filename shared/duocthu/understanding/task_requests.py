"""The tasks a message asks the assistant to carry out (data/task_requests.tsv): a verb of a task
with a word of asking a favour ("giúp", "giùm", "hộ") after it in its clause, or right before it
with the one asked for ("giúp em soạn …"). One mechanism for every task verb, in place of a cue
row per verb and particle."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from duocthu.core.tables import table_records
from duocthu.core.text import token_matches, typed_with_marks, words

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
