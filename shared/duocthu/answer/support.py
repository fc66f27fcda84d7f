"""Whether a generated answer says only what the evidence it cites says: model output is untrusted.

A sentence of the model's answer is supported when every quantity in it (a number, with its unit
when one follows) and every content word of it occur in the evidence parts its [n] markers cite
(their text, drug name, section heading and the note the prompt gave on them). Function words are
free; negations and quantifiers ("không", "mọi") are content, so "X an toàn cho trẻ em ở mọi lứa
tuổi [1]" is rejected when [1] says "chống chỉ định cho trẻ em dưới 2 tuổi". Words are compared
with their diacritics (NFC, case-folded): "trọng" never stands for "trong".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from duocthu.core.sections import SECTION_HEADINGS
from duocthu.core.sentences import split_sentences
from duocthu.core.text import nfc, stop_words, words
from duocthu.models.evidence import EvidenceItem

MARKER = re.compile(r"\[(\d+)\]")
_QUANTITY = re.compile(r"(\d+(?:[.,]\d+)*)\s*(%|[^\W\d_]+)?")
_DOSE_UNITS = "mg g mcg µg microgam kg ml l lít iu ui mmol mol meq"
_TIME_UNITS = "giờ phút ngày tuần tháng năm tuổi lần viên"
UNITS = frozenset([*words(_DOSE_UNITS), *words(_TIME_UNITS), "%"])
# Stop words that change what a sentence claims: never free.
_MEANINGFUL = frozenset(words("không chưa chỉ nhiều ít tất mọi hết"))
# What the system prompt tells the model to write when the evidence is silent: its own words.
_SILENT = re.compile(r"dược thư không có thông tin (?:này|về)", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """An answer's sentences, as the citation and support checks read them."""
    return list(split_sentences(text))


@lru_cache(maxsize=1)
def free_words() -> frozenset[str]:
    return stop_words() - _MEANINGFUL


def quantities(text: str) -> set[str]:
    """Each number as written (comma or point alike), and "number unit" when a unit follows."""
    found: set[str] = set()
    for number, unit in _QUANTITY.findall(nfc(text).casefold()):
        number = number.replace(",", ".")
        found.add(number)
        if unit in UNITS:
            found.add(f"{number} {unit}")
    return found


def _vocabulary(items: Sequence[EvidenceItem], notes: Mapping[str, str]) -> tuple[set[str], set[str]]:
    parts = [
        f"{i.display_name} {SECTION_HEADINGS.get(i.section_key, '')} {notes.get(i.id, '')} {i.text}"
        for i in items
    ]
    text = " ".join(parts)
    return set(words(text)), quantities(text)


def unsupported(
    text: str, evidence: Sequence[EvidenceItem], notes: Mapping[str, str] | None = None
) -> str | None:
    """None when each sentence is supported by the parts it cites (with the notes the model was
    given on them); else why not (a reason code). Run after the citation check."""
    for sentence in sentences(text):
        cited = [evidence[int(m) - 1] for m in MARKER.findall(sentence) if 1 <= int(m) <= len(evidence)]
        vocabulary, known = _vocabulary(cited, notes or {})
        claim = _SILENT.sub(" ", MARKER.sub(" ", nfc(sentence)))
        if quantities(claim) - known:
            return "unsupported_quantity"
        if any(w not in vocabulary and w not in free_words() for w in words(claim) if not w.isdigit()):
            return "unsupported_wording"
    return None
