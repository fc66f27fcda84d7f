"""Vietnamese text normalisation and word-boundary matching.

What a user sees is always NFC text with its diacritics. Folding (case fold, diacritics stripped,
đ→d) exists only for matching: a user may type "chong chi dinh" for "chống chỉ định".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from duocthu.core.tables import data_lines

_WORD = re.compile(r"\w+", re.UNICODE)
# NFD leaves đ/Đ whole (they are letters, not d + mark), so they are mapped by hand.
_D_MAP = str.maketrans({"đ": "d", "Đ": "D"})


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Case-folded, diacritic-free form used only for matching."""
    decomposed = unicodedata.normalize("NFD", text.casefold().translate(_D_MAP))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped)


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


def token_matches(query_token: str, target_token: str) -> bool:
    """The diacritics rule: a token typed with marks must match them exactly; a token typed
    without marks matches the target's folded form."""
    if has_diacritics(query_token):
        return query_token.casefold() == target_token.casefold()
    return query_token.casefold() == fold(target_token)


def asks_yes_or_no(text: str) -> bool:
    """A question closed by "không" ("dùng được không?", "có … không ạ?")."""
    tail = [fold(t) for t in words(text)][-3:]
    return "khong" in tail or "ko" in tail


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """data/stop_words.txt: exact spellings (marks included) left out of a lexical query."""
    return frozenset(w for line in data_lines("stop_words.txt") for w in words(line))
