"""A question's words as the monograph's lines are ranked for them: its distinct folded words
less the drugs' own names, its adjacent pairs as the store pairs a line's words, and its pieces
(the questions of a message that asks several, each ranked by its own words)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from duocthu.core.text import asks_yes_or_no, folded_words, tells_only
from duocthu.store.base import lexical_query_tokens
from duocthu.store.lexical import line_terms

# A number joined to letters by "*" or "-" names something (an allele "HLA-B*1502"), not the patient
_NAMING_NUMBER = re.compile(r"(?<=[^\W\d_][*-])\d+")


def question_tokens(question: str, names: Iterable[str]) -> list[str]:
    """The question's distinct folded words, less the drug's names and the patient's numbers."""
    own = {token for name in names for token in folded_words(name)}
    naming = set(_NAMING_NUMBER.findall(question))
    return [t for t in lexical_query_tokens(question) if t not in own and (not t.isdigit() or t in naming)]


def question_pairs(question: str, tokens: Sequence[str]) -> list[str]:
    """The question's adjacent pairs of kept words, as the store's `lines` terms pair them."""
    kept = set(tokens)
    return list(dict.fromkeys(p for p in line_pairs(question) if all(w in kept for w in p.split(" "))))


def line_pairs(text: str) -> list[str]:
    """The text's adjacent pairs of words, as the store's `lines` terms pair them."""
    sequence = folded_words(text)
    return line_terms(sequence)[len(sequence) :]


# A question mark ends one question of a message: "liều bao nhiêu? và có buồn ngủ không"
_QUESTION_END = re.compile(r"(?<=\?)")


def asked_pieces(question: str, names: Iterable[str]) -> list[str]:
    """The message's questions, split at its question marks, each asking (a question word, or
    closed by "không": a statement after a question tells about it) with two words of its own
    (`question_tokens`; one with fewer goes with the one before): ["…, liều bao nhiêu?", "và có
    buồn ngủ không"]; the message whole when it asks one."""
    pieces: list[str] = []
    for piece in filter(str.strip, _QUESTION_END.split(question)):
        asks = "?" in piece or not tells_only(piece) or asks_yes_or_no(piece)
        if pieces and (len(question_tokens(piece, names)) < 2 or not asks):
            pieces[-1] = f"{pieces[-1]} {piece.strip()}"
        else:
            pieces.append(piece.strip())
    if len(pieces) > 1 and len(question_tokens(pieces[0], names)) < 2:
        pieces[:2] = [f"{pieces[0]} {pieces[1]}"]
    return pieces or [question]
