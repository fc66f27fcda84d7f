"""Vietnamese text normalisation and word-boundary matching, and the question forms read from the
words alone (whether a turn asks, and whether "không" closes it).

What a user sees is always NFC text with its diacritics. Folding (case fold, diacritics stripped,
đ→d) exists only for matching: a user may type "chong chi dinh" for "chống chỉ định".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from duocthu.core.tables import data_lines

_WORD = re.compile(r"\w+", re.UNICODE)
# NFD leaves đ/Đ whole (they are letters, not d + mark), so they are mapped by hand.
_D_MAP = str.maketrans({"đ": "d", "Đ": "D"})
MAX_FOLD_CACHED = 64  # a word or a short phrase; a whole message is folded uncached


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text.casefold().translate(_D_MAP))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped)


# One word folded: the matchers' inner loops call this per token, so it is a bare lru_cache (the
# vocabulary of words is bounded; a text_cache's size check per call cost a third of a patient turn).
fold_word = lru_cache(maxsize=65536)(_fold)


def fold(text: str) -> str:
    """Case-folded, diacritic-free form used only for matching (a word from the cache, a longer
    text computed each time)."""
    return fold_word(text) if len(text) <= MAX_FOLD_CACHED else _fold(text)


def words(text: str) -> list[str]:
    """Word tokens, case-folded, diacritics kept (NFC)."""
    return _WORD.findall(nfc(text).casefold())


def raw_words(text: str) -> list[str]:
    """Word tokens as written (NFC, case kept), position for position with `words`: for rules
    where letter case matters (a capitalised product name)."""
    return _WORD.findall(nfc(text))


def segment_ids(text: str, marks: str) -> list[int]:
    """For each word token of the text (as `words` splits it), the index of its segment: segments
    end at any character of `marks` (clauses at ",;.?!:", sentences at ".;:!?\n")."""
    ids: list[int] = []
    segment = 0
    for match in re.finditer(rf"\w+|[{re.escape(marks)}]", nfc(text)):
        if match.group(0)[0] in marks:
            segment += 1
        else:
            ids.append(segment)
    return ids


def folded_words(text: str) -> list[str]:
    return _WORD.findall(fold(nfc(text)))


def has_diacritics(token: str) -> bool:
    """True when the token carries Vietnamese marks or đ (its folded form differs)."""
    return fold(token) != token.casefold()


# A message whose words carry marks this often was typed with marks: its unmarked words are those
# words ("cho", "ca"), never another word with the marks left off ("chó", "cá"). Vietnamese
# prose marks most syllables; a message typed without marks has none.
TYPED_WITH_MARKS_SHARE = 0.3


def typed_with_marks(tokens: Sequence[str]) -> bool:
    """Whether a message of these word tokens was typed with Vietnamese marks."""
    lettered = [t for t in tokens if t.isalpha()]
    return bool(lettered) and sum(map(has_diacritics, lettered)) >= TYPED_WITH_MARKS_SHARE * len(lettered)


def token_matches(query_token: str, target_token: str) -> bool:
    """The diacritics rule: a token typed with marks must match them exactly; a token typed
    without marks matches the target's folded form."""
    return typed_matches(typed_token(query_token), target_token)


def typed_token(query_token: str) -> tuple[str, bool]:
    """A typed token read once for the diacritics rule: its case-folded form, and whether it
    carries marks (then only the same marks match)."""
    if len(query_token) > MAX_FOLD_CACHED:
        return _typed(query_token)
    return _typed_word(query_token)


def _typed(query_token: str) -> tuple[str, bool]:
    return query_token.casefold(), has_diacritics(query_token)


_typed_word = lru_cache(maxsize=65536)(_typed)


def typed_matches(typed: tuple[str, bool], target_token: str) -> bool:
    """`token_matches` for a token read by `typed_token`."""
    folded, marked = typed
    return folded == (target_token.casefold() if marked else fold(target_token))


# --- Question forms -----------------------------------------------------------------------------
# Whether and how a turn asks, from its words alone: four readings, kept apart because they answer
# different questions (a turn may be neither a question at all nor only a statement: "bao nhiêu mg
# thì được" has a question word, but none closing it).
# - `asks_yes_or_no`: a question closed by "không" in its last three words, for the yes/no
#   decisions (retrieval's population question, "có được chỉ định … không?"). Only "không" and
#   "ko" are read there, as they always were: folded, "k" and "hong" closing a question may be
#   words of their own ("vitamin K", "hồng").
# - `no_after`: whether a "không", in any chat spelling, stands anywhere after a point: "X có làm tim
#   đập nhanh, hồi hộp … hông?" is closed by it however far it stands.
# - `asks_something`: a question at all (a question mark, or a question word closing the turn).
# - `tells_only`: no question mark and no question word anywhere: it describes, it asks nothing.

# "không" closing a question, folded, with its chat spellings.
NO_WORDS = frozenset({"khong", "ko", "k", "hong", "hok", "khg"})
_CLOSING_NO = frozenset({"khong", "ko"})  # of those, the ones `asks_yes_or_no` reads
# A turn that ends in one of these (folded), or has a question mark, asks something.
_QUESTION_ENDINGS = frozenset({"khong", "gi", "nao", "sao", "chua", "nhi", "a", "the"})
# A turn with none of these anywhere (nor a question mark) tells, it does not ask. Compared as
# written: folded, "đâu" (where) would be "đau" (pain) and "mấy" would be "máy".
_QUESTION_WORDS = frozenset(
    {
        "không",
        "gì",
        "nào",
        "sao",
        "chưa",
        "nhỉ",
        "thế",
        "bao",
        "mấy",
        "ai",
        "đâu",
        "khong",
        "gi",
        "nao",
        "chua",
    }
)


def asks_yes_or_no(text: str) -> bool:
    """A question closed by "không" ("dùng được không?", "có … không ạ?")."""
    tail = [fold(t) for t in words(text)][-3:]
    return bool(_CLOSING_NO & set(tail))


def no_after(folded: Sequence[str], start: int) -> bool:
    """Whether a "không", in any of its spellings (`NO_WORDS`), stands at or after `start` among
    the folded words."""
    return bool(NO_WORDS & set(folded[start:]))


def _closed_by_no(text: str) -> bool:
    """The words end in "không" in a chat spelling ("dùng tiếp được k"), written in lower case
    ("vitamin K" names a vitamin)."""
    last = raw_words(text)[-1:]
    return bool(last) and fold(last[0]) in NO_WORDS and last[0].islower()


def asks_something(text: str) -> bool:
    """Whether the turn is a question, not a statement ("Tôi đang dùng warfarin."): a question mark,
    or a question word last, "không" in any chat spelling among them."""
    tokens = words(text)
    return "?" in text or bool(tokens and fold(tokens[-1]) in _QUESTION_ENDINGS) or _closed_by_no(text)


def tells_only(text: str) -> bool:
    """A turn with no question mark and no question word anywhere (nor a chat "không" closing it):
    it describes, it asks nothing."""
    return "?" not in text and not any(t in _QUESTION_WORDS for t in words(text)) and not _closed_by_no(text)


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """data/stop_words.txt: exact spellings (marks included) left out of a lexical query."""
    return frozenset(w for line in data_lines("stop_words.txt") for w in words(line))
