"""The words of a patient's list of medicines and of a stated clearance (data/medicine_lists.tsv):
where a list of medicines taken goes on, and a word between a clearance and its number."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from duocthu.catalog.names import foreign_word
from duocthu.catalog.ordinary_words import ordinary_word
from duocthu.catalog.resolver import DrugMatch
from duocthu.catalog.world_drugs import world_drug
from duocthu.core.tables import table_records
from duocthu.core.text import fold, segment_ids

MAX_LIST_GAP = 6  # words (a dose, a schedule, joiners) between two medicines of a list


def sentence_ids(text: str, tokens: Sequence[str], marks: str = ".;?!\n") -> list[int]:
    """For each word token of the text, the index of its sentence (split at `marks`); one for all
    of `tokens` if the two tokenisers disagree (exotic text)."""
    sentences = segment_ids(text, marks)
    return [0] * len(tokens) if len(sentences) != len(tokens) else sentences


@lru_cache(maxsize=1)
def _list_words() -> dict[str, frozenset[str]]:
    """data/medicine_lists.tsv: kind -> its words, folded."""
    kinds: dict[str, set[str]] = {}
    for row in table_records("medicine_lists.tsv"):
        kinds.setdefault(row["kind"], set()).add(fold(row["word"]))
    return {kind: frozenset(found) for kind, found in kinds.items()}


def _in_list(token: str, after: str = "") -> bool:
    """A word that may stand between two medicines of a list: a joiner, a dose, a number, or a
    medicine the catalogue lacks (an item of the list itself: `unnamed_in_list`)."""
    folded = fold(token)
    listed = any(ch.isdigit() for ch in folded) or folded in _list_words()["joiner"] | _list_words()["dose"]
    return listed or _unnamed_medicine(token, after)


def _unnamed_medicine(token: str, after: str) -> bool:
    """A real drug the catalogue lacks, or a word that cannot be Vietnamese and no word list holds
    written with its strength ("bisoprolol 2,5mg"): among a patient's medicines, a medicine."""
    strength = after[:1].isdigit()
    return world_drug(token) or (
        strength and foreign_word(token) and not ordinary_word(token) and token.isalpha()
    )


def unnamed_in_list(tokens: Sequence[str], start: int, end: int) -> list[str]:
    """The medicines the catalogue lacks ("bisoprolol") among a list's words from `start` to `end`."""
    return [
        tokens[i]
        for i in range(start, end)
        if _unnamed_medicine(tokens[i], tokens[i + 1] if i + 1 < len(tokens) else "")
    ]


def _a_list_gap(gap: Sequence[str], clause_break: bool) -> bool:
    """Only list words, a verb of taking after a joiner, or a reason for the medicine before ("vì
    rung nhĩ") closed by a joiner or a clause break."""
    words = _list_words()
    reason = joined = False
    for i, token in enumerate(gap):
        folded = fold(token)
        if folded in words["reason"]:
            reason = True
        elif folded in words["joiner"]:
            reason, joined = False, True
        elif folded in words["taking"] and joined:
            continue  # "và hay uống ibuprofen": taking again, after the joiner
        elif not (reason or _in_list(token, gap[i + 1] if i + 1 < len(gap) else "")):
            return False
    return not reason or clause_break


def listed_after(
    end: int,
    tokens: Sequence[str],
    starts: dict[int, DrugMatch],
    clauses: Sequence[int],
    sentences: Sequence[int],
) -> list[DrugMatch]:
    """The catalogue drugs that go on a list of medicines taken ending at `end`, in its sentence:
    the next drug joins when only list words stand before it, or it opens a clause with a joiner."""
    listed: list[DrugMatch] = []
    joiners = _list_words()["joiner"]
    while end < len(tokens):
        after = next((i for i in sorted(starts) if i >= end and sentences[i] == sentences[end - 1]), None)
        if after is None:
            break
        gap = range(end, after)
        opening = [i for i in gap if clauses[i] == clauses[after]]  # the words of its clause before it
        broken = clauses[after - 1] != clauses[after]
        close = len(gap) <= MAX_LIST_GAP and _a_list_gap([tokens[i] for i in gap], broken)
        opens_clause = (
            bool(opening)
            and clauses[opening[0] - 1] != clauses[after]
            and all(_in_list(tokens[i]) for i in opening)
            and any(fold(tokens[i]) in joiners for i in opening)
        )
        if not (close or opens_clause):
            break
        listed.append(starts[after])
        end = starts[after].end
    return listed
