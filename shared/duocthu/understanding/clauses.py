"""A message -> its ask clauses: the questions a clinician wrote one after another in one message.

A clause ends where the words before a boundary close a question (a question mark, or a question
word closing them) and the words after it ask a question of their own (a question word, not a
question mark alone: "…, nếu bé 2 tuổi?" is a condition of the question before it). Boundaries
are question marks, semicolons, line breaks, commas, and the coordinating conjunctions that may
open a clause. Words that ask nothing (the patient told first, a closing remark) stay with the
clause they stand beside: before the first question they open it, after the last they close it.
"""

from __future__ import annotations

import re

from duocthu.core.text import NO_WORDS, asks_something, fold, nfc, tells_only, words

# Where a clause may end: after a question mark, at a semicolon or a line break, at a comma, or
# before a coordinating conjunction that may open a clause ("và", "còn", "với lại", "ngoài ra").
_BOUNDARY = re.compile(
    r"(?<=\?)\s+|\s*[;\n]+\s*|(?<=,)\s+|\s+(?=(?:và|còn|với lại|ngoài ra|thêm nữa)\b)", re.IGNORECASE
)

# "không" in its chat spellings closing a question ("được ko?"); not "k", a word of its own ("vitamin K")
_CLOSING_NO = NO_WORDS - {"k"}
# Words that close a question besides those `asks_something` reads: "(bao) nhiêu", "không" in chat
_CLOSERS = _CLOSING_NO | {"nhieu"}


def _closes_question(text: str) -> bool:
    """The words close a question: a question mark, or a question word as the last word ("bao
    nhiêu" among them, and "không" in its chat spellings)."""
    last = {fold(word) for word in words(text)[-1:]}
    return text.rstrip().endswith("?") or asks_something(text.rstrip(" ,;")) or bool(last & _CLOSERS)


def _asks_by_words(text: str) -> bool:
    """The words ask a question of their own: a question word (or a chat spelling of "không"
    closing them), not a question mark alone."""
    closing = {fold(word) for word in words(text)[-3:]}
    return not tells_only(text.replace("?", " ")) or bool(closing & _CLOSING_NO)


def ask_clauses(message: str) -> tuple[str, ...]:
    """The message's ask clauses in order, each as written (a message of one question: itself)."""
    text = nfc(message).strip()
    pieces = [p for p in _BOUNDARY.split(text) if p and p.strip()]
    clauses: list[str] = []
    current = ""
    for i, piece in enumerate(pieces):
        current = f"{current} {piece}".strip() if current else piece.strip()
        rest = " ".join(pieces[i + 1 :])
        if rest and _closes_question(current) and _asks_by_words(rest):
            clauses.append(current)
            current = ""
    if current:
        if clauses and not _asks_by_words(current) and "?" not in current:
            clauses[-1] = f"{clauses[-1]} {current}"  # a closing remark stays with the last question
        else:
            clauses.append(current)
    return tuple(clauses) if len(clauses) > 1 else (text,)
