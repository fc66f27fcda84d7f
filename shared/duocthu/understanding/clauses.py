"""A message -> its ask clauses: the questions a clinician wrote one after another in one message.

A clause ends where the words before a boundary close a question (a question mark, or a question
word closing them) and the words after it ask a question of their own: a question word, or a
question mark closing words that name a drug or a section of their own, never a question mark alone
(a condition of the question before). The message's last question may go unmarked: words that end
it and name something of their own ask too. Boundaries are question marks, semicolons, line breaks,
commas and the conjunctions that may open a clause; never "hay"/"hoặc" (an alternative within the
same question). Words that ask nothing and name nothing of their own stay with the clause they
stand beside.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from duocthu.core.text import asks_something, nfc, raw_words, tells_only, token_matches, words

# Words that open a clause of its own: a coordinating conjunction, a number counting the questions off
_OPENER = r"(?:và|còn|với lại|ngoài ra|thêm nữa)\b|\(?\d{1,2}\)\s"
_OPENS_CLAUSE = re.compile(_OPENER, re.IGNORECASE)
# Where a clause may end: after "?", at ";" or a line break, at a comma, or before a word opening one.
_BOUNDARY = re.compile(rf"(?<=\?)\s+|\s*[;\n]+\s*|(?<=,)\s+|\s+(?={_OPENER})", re.IGNORECASE)

# Words that close a question when they end it ("không" in its chat spellings, the question words).
_CLOSERS = (
    *("không", "ko", "k", "hông", "hok", "khg", "chưa"),
    *("gì", "nào", "sao", "nhỉ", "nhiêu", "mấy", "đâu"),
)

# Question words asking what (not whether): they ask wherever they sit; an inner "không" may negate.
_WH = ("gì", "nào", "sao", "nhiêu", "mấy", "đâu")

# The disjunctions: words that open an alternative within one question
_OR = ("hay", "hoặc")


def _closing(word: str) -> bool:
    return any(token_matches(word, closer) for closer in _CLOSERS)


def _closes_question(text: str) -> bool:
    """The words close a question: a question mark, or a question word as the last word."""
    last = raw_words(text)[-1:]
    return text.rstrip().endswith("?") or any(_closing(word) for word in last)


def asks_what(text: str) -> bool:
    """The words ask what, how much or which (not only whether): a question word, or a choice
    between answers ("X hay Y?")."""
    said = raw_words(text)
    choice = text.rstrip().endswith("?") and any(
        token_matches(w, alternative) for w in said for alternative in _OR
    )
    return choice or any(token_matches(word, wh) for word in said for wh in _WH)


def _asks_by_words(text: str) -> bool:
    """The words ask a question of their own: a question word, not a question mark alone."""
    return any(_closing(word) for word in raw_words(text)) or not tells_only(text.replace("?", " "))


# A which-word this near a clause's start makes the clause a question of its own ("thuốc nào …",
# "kháng sinh nào …") after one asking which too, as an opening conjunction does
WHICH_NEAR_START = 3


# Words after that which-word a question of its own says: fewer ("…, cái nào làm giảm?") leave
# out what is asked of, which the question before names
OWN_WORDS_AFTER_WHICH = 3


def _opens_which(text: str) -> bool:
    """The words open with a which-question of their own ("…, thuốc nào để hạ acid uric?")."""
    said = raw_words(text)
    at = next((i for i, w in enumerate(said[:WHICH_NEAR_START]) if token_matches(w, "nào")), None)
    return at is not None and len(said) - at - 1 >= OWN_WORDS_AFTER_WHICH


def _asks_which(text: str) -> bool:
    return any(token_matches(word, "nào") for word in raw_words(text))


def _offers_alternative(text: str) -> bool:
    """Words opened by "hay"/"hoặc" (or) offer another answer to the question before them ("dùng
    X được không, hay thuốc nào khác?"): one question with its alternatives, not a new one."""
    first = raw_words(text)[:1]
    return any(token_matches(word, alternative) for word in first for alternative in _OR)


# "X được không hay (phải) dùng gì?": an alternative opened after a closed question
_OR_SPLIT = re.compile(rf"\s+(?=(?:{'|'.join(_OR)})\b)", re.IGNORECASE)


def asked_or_instead(message: str) -> tuple[str, str] | None:
    """A yes-or-no question closed, then "hay"/"hoặc" opening a question of what ("Colchicin được
    không hay phải dùng gì?"): the question and its alternative, apart; None for any other message
    (a choice between answers, "X hay Y?", closes no question before its "hay")."""
    text = nfc(message).strip()
    for at in _OR_SPLIT.finditer(text):
        before, after = text[: at.start()], text[at.end() :]
        if before and _closes_question(before) and not asks_what(before) and asks_what(after):
            return before, after
    return None


def ask_clauses(
    message: str, names_its_own: Callable[[str, str], bool] = lambda *_: False
) -> tuple[str, ...]:
    """The message's ask clauses in order, each as written (a message of one question: itself).
    `names_its_own(before, words)`: whether words name a drug or a section the words before did not."""
    text = nfc(message).strip()
    pieces = [p for p in _BOUNDARY.split(text) if p.strip()]
    clauses: list[str] = []
    current = ""
    for i, piece in enumerate(pieces):
        current = f"{current} {piece}".strip() if current else piece.strip()
        rest = " ".join(pieces[i + 1 :])
        # the words up to the next "?", or to the message's end: its last question may go unmarked
        asked = rest[: rest.find("?") + 1] if "?" in rest else rest
        asks = _asks_by_words(rest) or bool(asked and names_its_own(current, asked))
        # a question of what, then a clause opened as one that asks what too, or asks anything of a
        # drug or a section of its own: a second question
        after = pieces[i + 1].strip() if i + 1 < len(pieces) else ""
        own = asks_what(after) or (_asks_by_words(after) and names_its_own(current, after))
        opens = bool(_OPENS_CLAUSE.match(after)) or (_opens_which(after) and _asks_which(current))
        both_ask = opens and asks_what(current) and own
        closed = _closes_question(current) or both_ask
        if rest and closed and asks and not _offers_alternative(rest):
            clauses.append(current)
            current = ""
    if current:
        asks_own = _asks_by_words(current) or "?" in current
        if clauses and not asks_own and not names_its_own(clauses[-1], current):
            clauses[-1] = f"{clauses[-1]} {current}"  # a closing remark stays with the last question
        else:
            clauses.append(current)
    return tuple(clauses) if len(clauses) > 1 else (text,)


# Sentences end at a question or exclamation mark, a line break, or a full stop no digit follows
_SENTENCE_END = re.compile(r"(?<=[?!\n])|\.(?!\d)")


def sentences_asking(text: str, count: int, ends_asking: bool = False) -> list[tuple[int, bool]] | None:
    """For each word token (as `words` splits the text), its sentence and whether that sentence
    asks (a question mark or a question word; with `ends_asking`, a question mark or a question
    ending: `asks_something`, so a statement holding a "không" tells: "ko bán X rồi."); None when
    the sentences' words do not add up to `count`, the turn's."""
    asks = asks_something if ends_asking else (lambda s: not tells_only(s))
    found = [(i, asks(s)) for i, s in enumerate(_SENTENCE_END.split(text)) for _ in words(s)]
    return found if len(found) == count else None


def in_what_is_asked(text: str, count: int) -> list[bool]:
    """For each word token, whether it stands where the turn asks: a sentence that asks, or the
    last one (a request ends a message, with no question word: "… tính giúp em")."""
    sentences = sentences_asking(text, count)
    if sentences is None or not sentences:
        return [True] * count
    last = sentences[-1][0]
    return [asks or sentence == last for sentence, asks in sentences]
