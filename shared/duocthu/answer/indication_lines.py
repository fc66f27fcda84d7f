"""The chỉ định line that put a drug on a which-drug list: the sentence naming the condition,
clipped around it. The patient table shows it in a cell; the compact which-drug reply shows one
per listed drug with where it stands (drug – section – page) and a quick reply that opens the
drug's whole chỉ định section, which is never pasted into the reply (the parts stay its evidence).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, lru_cache

from duocthu.answer.reply_budget import REPLY_CHARS
from duocthu.core.sections import INDICATION_SECTION, SECTION_HEADINGS
from duocthu.core.sentences import split_sentences
from duocthu.core.text import fold, folded_words, words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedDrug
from duocthu.retrieval.question_words import line_pairs, question_pairs, question_tokens
from duocthu.retrieval.reverse.directness import RANK, part_directness
from duocthu.retrieval.reverse.reading import phrase_position
from duocthu.retrieval.reverse.wordings import wordings_of

NOT_FOUND = "–"
HEADING = SECTION_HEADINGS[INDICATION_SECTION]
LINE_WINDOW = 90  # characters of the line shown around the condition in a table cell
# A reply's target length (the one reply budget, answer.reply_budget), and the room its closing
# lines take (the book named once, the sample notice). In the
# compact which-drug reply a line gets its share of what the lines before it and that notice
# leave, never less than a table cell's, at most a whole long sentence.
REPLY_TARGET = REPLY_CHARS
CLOSING = 200
LONGEST_LINE = 320
SOURCE = 60  # a line's drug, section and page
# How a drug ranked below the direct ones names the condition (retrieval.reverse.directness), so
# the order can be read off the line.
RANKED_BELOW = {
    "indirect": "nêu như lựa chọn khi thuốc khác không phù hợp, thuốc phối hợp hoặc dự phòng",
    "state": "nêu tình trạng này ở người bệnh hoặc như nguyên nhân",
}


def indication_line(
    items: Sequence[EvidenceItem], condition: str | None, window: int = LINE_WINDOW, said: str = ""
) -> str:
    """The sentence of the parts that names the condition as the ranking reads it, clipped around
    it ("…") to `window` characters: the first of the most direct (`part_directness`, read per
    sentence), so a negated or passing mention earlier in a part never stands for the drug's use
    and the line agrees with the rank shown beside it; of those, the one naming more of the
    question's words beyond the condition (`said`: "tiêu chảy của khách du lịch")."""
    if not condition:
        return NOT_FOUND
    wordings = wordings_of(condition)
    narrowing = word_pairs_beyond(said, condition)
    best: tuple[int, int, str] | None = None
    for item in items:
        for sentence in split_sentences(item.text.split("】 ", 1)[-1]):
            if not any(phrase_position(sentence, words(w), lenient=True) >= 0 for w in wordings):
                continue
            read = part_directness(sentence, condition)
            rank = len(RANK) if read is None else RANK[read]  # named where the ranking does not count it
            narrowed = -len(narrowing.intersection(line_pairs(sentence))) if narrowing else 0
            if best is None or (rank, narrowed) < best[:2]:
                best = (rank, narrowed, sentence)
    return clip(best[2], wordings, window) if best else NOT_FOUND


@cache
def _heading_words() -> frozenset[str]:
    """The words of the section headings: they frame a question ("có chỉ định …"), they narrow no
    finding."""
    return frozenset(w for heading in SECTION_HEADINGS.values() for w in folded_words(heading))


@lru_cache(maxsize=256)
def word_pairs_beyond(said: str, condition: str) -> frozenset[str]:
    """The question's pairs of adjacent kept words (`question_pairs`, as the store pairs a line's
    words) outside the condition and the section headings: what narrows the condition ("khách du
    lịch"); a pair, since one syllable alone names many things."""
    framing = _heading_words() | set(folded_words(condition))
    return frozenset(question_pairs(said, [t for t in question_tokens(said, ()) if t not in framing]))


def opening_line(item: EvidenceItem, window: int = LINE_WINDOW) -> str:
    """The part's first sentence, clipped to `window` characters."""
    first = next(iter(split_sentences(item.text.split("】 ", 1)[-1])), "")
    return clip(first, (), window)


def clip(sentence: str, wordings: Sequence[str], window: int, says: bool = False) -> str:
    """The sentence in quotes, clipped ("…") to `window` characters around the first of the
    wordings it holds (the interaction lines clip around the other drug's name the same way).
    Wordings that `says` what is done ("không dùng"): what follows them is what they are about."""
    if len(sentence) <= window:
        return f"“{sentence.rstrip('.')}”"
    folded = fold(sentence)
    at, length = min(((i, len(w)) for w in wordings if (i := folded.find(fold(w))) >= 0), default=(0, 0))
    # the sentence's opening says what it does with the wording ("Không dùng …", "Chống chỉ
    # định trong …"): kept whenever the wording still sits in the window's first two thirds
    start = 0 if at <= window * 2 // 3 else at - window // 3
    if says and ":" not in sentence[:at]:
        # what the wording says is done, and to what ("không dùng gliclazid trong thời kỳ …"):
        # half the window after it stays in, the opening giving way unless it heads a list
        start = max(start, min(at, at + length + window // 2 - window))
    # from the clause that names the condition ("…; viêm tai giữa cấp ở trẻ em khi không dùng được
    # thuốc đầu tay"): what qualifies it follows it, so the window goes after it
    clause = sentence.rfind(";", 0, at)  # after ":" a list goes on, what opens it is its heading
    if clause >= start:
        start = clause + 1
    end = min(len(sentence), start + window)
    # at word edges: a clipped line never opens or closes inside a word
    if start:
        start = sentence.find(" ", start, at) + 1 or start
    if end < len(sentence):
        end = sentence.rfind(" ", max(start, at), end) if " " in sentence[max(start, at) : end] else end
    head = "…" if start else ""
    tail = "…" if end < len(sentence) else ""
    return f"“{head}{sentence[start:end].strip()}{tail}”"


def pages(items: Sequence[EvidenceItem]) -> str:
    found = sorted({ref.page_start for item in items for ref in item.source_refs})
    return ", ".join(str(p) for p in found) or NOT_FOUND


class WhichDrugLines:
    """The compact which-drug reply's quoted lines and quick replies, with the catalogue's titles."""

    def __init__(self, titles: Mapping[str, str]):
        self.titles = titles

    def name(self, drug: RankedDrug) -> str:
        return self.titles.get(drug.drug_id, drug.display_name)

    def lines(
        self, bundle: EvidenceBundle, condition: str | None, used: int = 0, said: str = ""
    ) -> list[str]:
        """One line per drug shown with its evidence, in the list's order: the sentence of each of
        its chỉ định parts that names the condition (a wider finding's drug: that finding), the
        most direct first, its pages, and why it ranks below the direct drugs when it does.
        `used`: the characters before these lines; `said`: the question, whose words beyond the
        condition choose among a part's sentences."""
        shown = [(drug, condition, True) for drug in bundle.ranked_drugs]
        shown += [(drug, drug.wider_finding, False) for drug in bundle.wider_drugs]
        if not shown:
            return []
        by_id = {item.id: item for item in bundle.evidence}
        read = [
            (drug, asked, ranked, *self._parts(drug, asked, by_id, said)) for drug, asked, ranked in shown
        ]
        count = sum(max(1, len(items)) for *_, items, _ in read)
        share = (REPLY_TARGET - used - CLOSING - SOURCE * len(shown)) // count
        window = max(LINE_WINDOW, min(LONGEST_LINE, share))
        lines = ["", f"Câu trong mục “{HEADING}” nêu tình trạng này (toàn mục: nút bên dưới):"]
        for drug, asked, ranked, items, directness in read:
            quotes = [indication_line([item], asked, window, said) for item in items] or [NOT_FOUND]
            if quotes == [NOT_FOUND] and items:
                # a dense hit: no sentence names it, so the part's opening shows why it was found
                quotes = [
                    f"(không có câu nêu đúng tình trạng này; đầu đoạn:) {opening_line(items[0], window)}"
                ]
            below = RANKED_BELOW.get(directness, "") if ranked else ""
            why = f" ({below})" if below else ""
            lines.append(f"- {self.name(drug)} – {HEADING} – tr. {pages(items)}{why}: {' '.join(quotes)}")
        return lines

    @staticmethod
    def _parts(
        drug: RankedDrug, asked: str | None, by_id: Mapping[str, EvidenceItem], said: str = ""
    ) -> tuple[list[EvidenceItem], str]:
        """The drug's chỉ định parts that name `asked` (else its first), the most direct first
        (then by score), and how directly the first names it."""
        items = [
            by_id[i] for i in drug.evidence_ids if i in by_id and by_id[i].section_key == INDICATION_SECTION
        ]
        if not asked:
            return items[:1], "direct"
        read = {item.id: part_directness(item.text, asked) for item in items}
        naming = [item for item in items if indication_line([item], asked) != NOT_FOUND] or items[:1]
        narrowing = word_pairs_beyond(said, asked)
        # stable: the question's narrowing words, then the score, break ties
        naming.sort(
            key=lambda i: (
                RANK[read[i.id] or "direct"],
                -len(narrowing.intersection(line_pairs(i.text))) if narrowing else 0,
            )
        )
        return naming, (read[naming[0].id] or "direct") if naming else "direct"

    def quick_replies(self, bundle: EvidenceBundle) -> list[str]:
        """One per drug quoted: its whole chỉ định section."""
        return [f"{HEADING} của {self.name(d)}" for d in (*bundle.ranked_drugs, *bundle.wider_drugs)]
