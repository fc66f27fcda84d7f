"""What a question asks its answer to say beyond its own words: the words a sentence answering
its focus is written with (data/answer_focus.tsv), read with the question when its lines are
ranked (`duocthu.retrieval.answering`)."""

from __future__ import annotations

from functools import cache

from duocthu.core.phrases import contains_any
from duocthu.core.tables import table_records
from duocthu.core.text import folded_words
from duocthu.store.lexical import line_terms


@cache
def _focus_rows() -> dict[str, tuple[list[str], list[str]]]:
    rows: dict[str, tuple[list[str], list[str]]] = {}
    for row in table_records("answer_focus.tsv"):
        rows.setdefault(row["focus"], ([], []))[row["side"] == "answered"].append(row["phrase"])
    return rows


def focus_terms(question: str) -> list[str]:
    """The words a sentence answering the question's focus is written with (data/answer_focus.tsv:
    "đổi sang thuốc nào" is answered by "chuyển sang", "lựa chọn"), as the store's pair terms: one
    word alone ("thể", "chọn") is too common to rank by."""
    return [
        pair
        for asked, answered in _focus_rows().values()
        if contains_any(question, asked)
        for phrase in answered
        for pair in line_terms(folded_words(phrase))[len(folded_words(phrase)) :]
    ]
