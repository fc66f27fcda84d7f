"""An answering line with the sentence that goes on from it.

The book often states a risk in one sentence and what to do about it, or whom it concerns, in the
next ("… hạ kali hoặc hạ magnesi máu. Nên kiểm tra điện giải và điện tâm đồ khi có yếu tố nguy
cơ."). Quoted alone, the first sentence leaves out the advice it leads to. A line is therefore
quoted with the next sentence of its part when that sentence opens by telling what to do, or
points back to what the line said ("Alen này …", "Ở các đối tượng này …"). A dose line stating no
amount names a regimen ("Cơn gút cấp: Ưu tiên phác đồ liều thấp.") whose amounts the next sentence
gives when that one opens with the act of giving, states an amount and has no label of its own
("Uống 1 mg …", not "Đặt trực tràng: …", the next item of a list).

The other way round, a line that points back ("Alen này …", "Trong bệnh này …", "Nguy cơ này …")
names its subject only in the sentence before it: quoted alone it does not say which allele,
disease or risk it is about, so that sentence is quoted before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from duocthu.core.measures import STATES_AMOUNT
from duocthu.core.sections import DOSE_SECTION
from duocthu.core.sentences import split_sentences
from duocthu.core.text import fold, words
from duocthu.models.evidence import RankedLine
from duocthu.store import VectorStore

# The words a sentence of the book opens with when it tells what to do (folded): "Cần theo dõi",
# "Nên kiểm tra", "Phải ngừng", "Tránh phối hợp", "Chỉ dùng", "Không khuyến cáo", "Theo dõi",
# "Khi bắt buộc", "Ngay khi"
_DIRECTIVE_OPENINGS = frozenset({"can", "nen", "phai", "tranh", "chi", "khong", "theo", "khi", "ngay"})
# Words that point back to what the sentence before said, within its first words, as written ("do"
# unmarked is "because", only "đó" points back)
_POINTING_BACK = frozenset({"này", "đó", "trên"})
_POINTING_REACH = 6
# A continuation longer than this is a statement of its own, quoted only if it ranks
MAX_CONTINUATION = 240
# The sentence a line points back to is quoted up to this length: without it the line says nothing
MAX_ANTECEDENT = 2 * MAX_CONTINUATION
# The act of giving a drug, opening a sentence that has no subject of its own (folded)
_GIVING_OPENINGS = frozenset({"uong", "tiem", "truyen", "dung", "dat", "xit", "boi", "nho"})
# A sentence opening with a label of its own ("Truyền tĩnh mạch: …", "Trẻ em: …")
_LABEL = re.compile(r"^[^.:;]{1,40}:")


def goes_on_from(sentence: str) -> bool:
    """Whether the sentence opens by telling what to do or points back to the one before it."""
    said = words(sentence)
    if not said or len(sentence) > MAX_CONTINUATION:
        return False
    return fold(said[0]) in _DIRECTIVE_OPENINGS or bool(_POINTING_BACK.intersection(said[:_POINTING_REACH]))


def points_back(sentence: str) -> bool:
    """Whether the sentence points back to the one before it within its first words ("Alen này",
    "Ở những người bệnh này", "các thuốc nói trên"); "trên" before a number is a band ("trên 60
    tuổi"), not a reference."""
    said = words(sentence)
    return any(
        word in _POINTING_BACK and not (word == "trên" and said[at + 1 : at + 2] and said[at + 1].isdigit())
        for at, word in enumerate(said[:_POINTING_REACH])
    )


def gives_amounts_of(sentence: str, after: str) -> bool:
    """A dose sentence stating no amount, followed by one giving amounts (a regimen named, then given)."""
    opening = words(after)[:1]
    giving = bool(opening) and fold(opening[0]) in _GIVING_OPENINGS and not _LABEL.match(after.strip())
    return (
        giving
        and not STATES_AMOUNT.search(sentence)
        and bool(STATES_AMOUNT.search(after))
        and len(after) <= 2 * MAX_CONTINUATION
    )


def continued(
    sentence: str, sentences: Sequence[str], dose: bool = False, before: bool = True, after: bool = True
) -> str:
    """The sentence, with the one after it among `sentences` (its part's, in order) when that one
    goes on from it (`goes_on_from`), or, in a dose section, gives the amounts it names; and with
    the one before it when the sentence `points_back` to it. `before` / `after`: whether that
    neighbour may be added (not when it is quoted as a line of its own)."""
    at = next((i for i, s in enumerate(sentences) if s.strip() == sentence.strip()), None)
    if at is None:
        return sentence
    text = sentence
    if after and at + 1 < len(sentences):
        then = sentences[at + 1]
        if goes_on_from(then) or (dose and gives_amounts_of(sentence, then)):
            text = f"{text.rstrip()} {then.strip()}"
    if before and at > 0 and points_back(sentence) and len(sentences[at - 1]) <= MAX_ANTECEDENT:
        text = f"{sentences[at - 1].strip()} {text.lstrip()}"
    return text


def with_continuations(
    store: VectorStore, lines: Sequence[RankedLine], after: bool = True
) -> tuple[RankedLine, ...]:
    """The lines, each with the sentence after it in its part when that sentence goes on from it
    (`goes_on_from`; not `after`: never) and the one before it when the line points back to it
    (`points_back`), either only when not quoted as a line of its own."""
    quoted = {(line.part_id, line.line_index) for line in lines}
    texts: dict[str, Sequence[str]] = {}
    out = []
    for line in lines:
        if line.part_id not in texts:
            parts = store.find_by_section(line.drug_id, line.section_key)
            texts |= {p.id: split_sentences(p.text) for p in parts}
        at = line.line_index
        # the line's sentence and those around it (the index keeps a repeated sentence apart)
        own = texts.get(line.part_id, ())[max(0, at - 1) : at + 2]
        before = (line.part_id, at - 1) not in quoted
        then = after and (line.part_id, at + 1) not in quoted
        dose = line.section_key == DOSE_SECTION
        line = line.model_copy(update={"text": continued(line.text, own, dose, before, then)})
        out.append(line)
    return tuple(_antecedents_first(out))


def _antecedents_first(lines: list[RankedLine]) -> list[RankedLine]:
    """A line pointing back to a sentence quoted as a line of its own after it goes after that one:
    "Người bệnh nhược cơ không nên dùng …" before "Trong bệnh này, chỉ cần một liều …"."""
    out = list(lines)
    for line in lines:
        at = out.index(line)
        if not points_back(line.text):
            continue
        earlier = (line.part_id, line.line_index - 1)
        target = next((j for j, x in enumerate(out) if (x.part_id, x.line_index) == earlier), None)
        if target is not None and target > at:
            out.insert(at, out.pop(target))
    return out


__all__ = ["MAX_CONTINUATION", "continued", "goes_on_from", "points_back", "with_continuations"]
