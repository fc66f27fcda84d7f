"""The one sentence splitter: wherever a sentence is quoted or read on its own, it is cut here.

A sentence ends at ".", "!", "?" or "…" followed by white space, or at a line break; it does not
end after an abbreviation ("v.v.", "tr.") nor after a single letter followed by a word that is
no Vietnamese syllable (a genus: "E. coli", "S. aureus", "S. Typhi"), so a quoted sentence is
never cut inside. A single letter followed by a Vietnamese word ends one ("… tiêm vitamin K. Khi
…", "… beta nhóm A. Với …"), and so does a point before a word that starts in lower case
("… trước khi điều trị. eGFR ≥ 60 …").
"""

from __future__ import annotations

import re
from functools import lru_cache

from duocthu.core.caching import text_cache
from duocthu.core.syllables import is_syllable

# Abbreviations a formulary sentence writes with a point and goes on after (folded, no point).
_ABBREVIATIONS = frozenset(
    {"v.v", "vv", "tr", "ts", "bs", "ths", "pgs", "gs", "vd", "st", "no", "vs", "spp", "sp"}
)
_END = re.compile(r"([.!?…])(\s+)")
_BREAK = re.compile(r"\n+")


def _ends_here(text: str, point: int, after: int) -> bool:
    """Whether the mark at `point` (followed by white space up to `after`) ends a sentence."""
    if text[point] != ".":
        return True
    word = re.search(r"(\S+)$", text[:point])
    last = word.group(1).lstrip("(“\"'") if word else ""
    if len(last) == 1 and last.isalpha():  # an initial: a genus when a Latin word follows
        following = re.match(r"\w+", text[after:])
        return following is None or is_syllable(following.group(0))
    return last.casefold() not in _ABBREVIATIONS


@text_cache(maxsize=8192)
def split_sentences(text: str) -> tuple[str, ...]:
    """The sentences of `text`, stripped, empty ones left out."""
    out: list[str] = []
    for line in _BREAK.split(text):
        start = 0
        for match in _END.finditer(line):
            if _ends_here(line, match.start(1), match.end(2)):
                out.append(line[start : match.end(1)])
                start = match.end(2)
        out.append(line[start:])
    return tuple(s.strip() for s in out if s.strip())


# A lead-in longer than this is a sentence that holds a colon, not a heading of what follows
LEAD_WORDS = 16


def lead_in(sentence: str) -> str:
    """The words before the sentence's first colon, when they are short enough to head it
    ("Trẻ em – tiêu chảy cấp", "Người lớn, đường tĩnh mạch", "Ho gà")."""
    scope, colon, _ = sentence.partition(":")
    return scope.strip() if colon and len(scope.split()) <= LEAD_WORDS else ""


_PARAGRAPH = re.compile(r"\n\s*\n")


# A part's text is longer than core's text cache keeps; its dose lines are read on every turn
# about the drug: kept per process, as `retrieval.sentences.part_sentences` keeps its sentences
@lru_cache(maxsize=2048)
def sentence_leads(text: str) -> tuple[str, ...]:
    """Per sentence of a part, the lead-in heading it from its paragraph's opening: a paragraph
    whose first sentence alone opens with one is that lead-in's ("Trẻ em: Chỉ dùng theo chỉ
    định … . Đường uống có thể nạp 10–20 mg/kg/ngày …": the dose is a child's). A paragraph of
    several lead-ins is a list of them, each heading its own sentence only (a sentence after
    "Suy gan: thận trọng." is not about the liver); "" where none heads it."""
    leads: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        own = [lead_in(sentence) for sentence in split_sentences(paragraph)]
        heads = bool(own) and bool(own[0]) and not any(own[1:])
        leads += ["", *(own[0] for _ in own[1:])] if heads else ["" for _ in own]
    # one splitter: should paragraphs ever split otherwise than the whole, no sentence is headed
    count = len(split_sentences(text))
    return tuple(leads) if len(leads) == count else ("",) * count
