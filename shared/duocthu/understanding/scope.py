"""Subject scope: is this question about a person, or about an animal?

The formulary describes medicines for people, so a veterinary question has nothing to be answered
from; the turn is answered as out of scope (`non_human_subject`). This is a fixed keyword rule on
the text, deliberately not a model call: it runs on every request, must work while a model
provider is down, and must be auditable. It checks corpus coverage only; it must never grow into
rules about what a professional may ask.

A caller may claim a scope (the web client sends one), but the claim can only narrow: the result
is the more conservative of the claim and the scan, so a client that always sends "human" cannot
widen a question about a dog.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from duocthu.core.phrases import PhraseIndex
from duocthu.core.tables import table_records
from duocthu.core.text import typed_with_marks, words
from duocthu.core.vocabulary import SubjectScope


@lru_cache(maxsize=2)
def _scope_tables(marked: bool = False) -> tuple[PhraseIndex[SubjectScope], PhraseIndex[bool]]:
    """(the animal phrases and their human exceptions, the phrases saying it is about a person);
    `marked`: for a message typed with marks, every phrase matched as written only."""
    index: PhraseIndex[SubjectScope] = PhraseIndex()
    person: PhraseIndex[bool] = PhraseIndex()
    for row in table_records("subject_scope.tsv"):
        scope, folded = row["scope"], row["match"] == "folded" and not marked
        if scope == "person":
            person.add(row["phrase"], True, allow_folded=folded)
        else:
            index.add(row["phrase"], "human" if scope == "human" else "non_human", allow_folded=folded)
    return index, person


def says_person(text: str) -> bool:
    """Whether the text says its question is about a person ("tôi hỏi cho tôi", "người lớn")."""
    return bool(_scope_tables()[1].matches(words(text)))


def scan_scope(text: str) -> SubjectScope:
    """non_human when the text names an animal as the subject. An animal word inside a phrase about
    a person ("bị chó cắn", "dị ứng lông mèo") does not count."""
    tokens = words(text)
    # "con cho uống" in a message typed with marks is a child giving, never "con chó"
    found = _scope_tables(typed_with_marks(tokens))[0].matches(tokens)
    personal = {m.start + i for m in found if m.value == "human" for i in range(m.length)}
    for match in found:
        if match.value == "non_human" and personal.isdisjoint(range(match.start, match.start + match.length)):
            return "non_human"
    return "human"


def resolve_subject_scope(query: str, claimed: SubjectScope | None = None) -> SubjectScope:
    """The more conservative of the caller's claim and the keyword scan (non_human wins)."""
    if claimed == "non_human":
        return "non_human"
    return scan_scope(query)


def kept_non_human(history: Sequence[str], prior_scope: SubjectScope | None = None) -> bool:
    """Whether the conversation so far is about an animal: the prior frame's scope, or its last
    line about an animal with no line after it (or in it) saying the question is about a person."""
    kept = prior_scope == "non_human"
    for line in history:
        if scan_scope(line) == "non_human":
            kept = True
        elif says_person(line):
            kept = False
    return kept


def conversation_scope(
    message: str,
    history: Sequence[str] = (),
    prior_scope: SubjectScope | None = None,
    claimed: SubjectScope | None = None,
) -> SubjectScope:
    """This turn's scope: its own (`resolve_subject_scope`), else the conversation's, kept until a
    turn says it is about a person (`person` rows), alike in a session and from history lines."""
    if resolve_subject_scope(message, claimed) == "non_human":
        return "non_human"
    if kept_non_human(history, prior_scope) and not says_person(message):
        return "non_human"
    return "human"


def looks_non_human(lines: Iterable[str]) -> bool:
    """The guard before any clarifying question: does the conversation (this turn, or a line of
    its history) talk about an animal? Asking "which drug?" about a dog only delays the refusal."""
    return any(scan_scope(text) == "non_human" for text in lines)
