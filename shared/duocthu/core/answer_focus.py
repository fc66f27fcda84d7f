"""What a question may ask its answer to say beyond its own words (data/answer_focus.tsv): per
focus (a maximum, what to use instead), the phrases that ask it and the phrases a sentence
answering it is written with. Read once per process; understanding, retrieval and the answer
layer read it here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from duocthu.core.tables import table_records


@dataclass(frozen=True)
class Focus:
    asked: tuple[str, ...]  # the question's words that ask it
    answered: tuple[str, ...]  # the words of a sentence that answers it


@cache
def answer_focus() -> Mapping[str, Focus]:
    rows: dict[str, tuple[list[str], list[str]]] = {}
    for row in table_records("answer_focus.tsv"):
        rows.setdefault(row["focus"], ([], []))[row["side"] == "answered"].append(row["phrase"])
    return {focus: Focus(tuple(asked), tuple(answered)) for focus, (asked, answered) in rows.items()}
