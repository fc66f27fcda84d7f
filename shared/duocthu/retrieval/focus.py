"""What a question asks its answer to say beyond its own words: the words a sentence answering
its focus is written with (data/answer_focus.tsv), read with the question when its lines are
ranked (`duocthu.retrieval.answering`)."""

from __future__ import annotations

from functools import cache

from duocthu.core.answer_focus import answer_focus
from duocthu.core.phrases import contains_any
from duocthu.core.text import folded_words
from duocthu.store.lexical import line_terms


@cache
def _answered_pairs() -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Per focus, its asking phrases and its answering phrases as the store's pair terms (read once)."""
    out = []
    for focus in answer_focus().values():
        pairs = []
        for phrase in focus.answered:
            said = folded_words(phrase)
            pairs += line_terms(said)[len(said) :]
        out.append((focus.asked, tuple(pairs)))
    return tuple(out)


def focus_terms(question: str) -> list[str]:
    """The words a sentence answering the question's focus is written with (data/answer_focus.tsv:
    "đổi sang thuốc nào" is answered by "chuyển sang", "lựa chọn"), as the store's pair terms: one
    word alone ("thể", "chọn") is too common to rank by."""
    return [pair for asked, pairs in _answered_pairs() if contains_any(question, asked) for pair in pairs]
