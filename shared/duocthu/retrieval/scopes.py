"""What a dose line is for, read from its lead-in: "Ho gà: trẻ …", "Tiêm tĩnh mạch – trạng thái
động kinh: Người lớn 10 mg". The book writes a dose per indication after the indication and a colon;
such a line answers for a patient with that condition. Ranked for a question naming another (or
none), it doses another indication, as a band line the patient's numbers fall outside answers for
another patient.

What the question asks for is read in the book's words: the conditions it names, and those the
drug's own chỉ định files under one of them (an indication paragraph opening with it: "Co giật:
Điều trị cấp cứu trạng thái động kinh, cơn co giật kéo dài …"), so the clinician's word for a
condition finds the book's. A condition matches another whose words hold its words ("hen" and
"hen phế quản"). A lead-in the question quotes beside its conditions (two words in a row: "đường
trực tràng") is asked too: the question names the dose's route or form, whatever it is for.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from duocthu.core.conditions import find_conditions
from duocthu.core.sections import INDICATION_SECTION
from duocthu.core.sentences import lead_in as sentence_lead
from duocthu.core.text import folded_words, words
from duocthu.retrieval.sentences import part_sentences
from duocthu.store import VectorStore

Condition = frozenset[str]  # a condition as its folded words


@lru_cache(maxsize=4096)
def conditions_in(text: str) -> frozenset[Condition]:
    """The conditions the text names, each as its folded words."""
    return frozenset(frozenset(folded_words(c.normalized)) for c in find_conditions(text))


@lru_cache(maxsize=8192)  # bounded: a warm process reads the whole book's dose lines over time
def lead_in(sentence: str) -> str:
    """The words heading the sentence (`core.sentences.lead_in`), read once per sentence."""
    return sentence_lead(sentence)


def _matches(condition: Condition, asked: Iterable[Condition]) -> bool:
    return any(condition <= other or other <= condition for other in asked)


def _pairs(sequence: list[str], left_out: frozenset[str] = frozenset()) -> frozenset[tuple[str, str]]:
    return frozenset(p for p in pairwise(sequence) if not left_out.intersection(p))


# A sentence opening with a dosage form or a route ("Dạng nhỏ mắt chống chỉ định …", "Thuốc tiêm
# chỉ tiêm bắp sâu", "Đường trực tràng: …"), or under a lead-in naming one, is about that form
# only. Words with their marks: folded, "nhỏ", "mắt" and "đặt" are also "nho", "mất" and "đạt".
_FORM_HEADS = frozenset({"dạng", "đường", "thuốc"})
_ROUTE_WORDS: dict[tuple[str, ...], str] = {
    ("uống",): "mouth", ("viên",): "mouth", ("siro",): "mouth",
    ("tiêm",): "injected", ("truyền",): "injected", ("tĩnh", "mạch"): "injected",
    ("hít",): "inhaled", ("xịt",): "inhaled", ("khí", "dung"): "inhaled",
    ("nhỏ", "mắt"): "drops", ("nhỏ", "mũi"): "drops", ("nhỏ", "tai"): "drops",
    ("bôi",): "skin", ("gel",): "skin", ("kem",): "skin", ("mỡ",): "skin",
    ("đặt",): "inserted", ("đạn",): "inserted", ("trực", "tràng"): "inserted",
}  # fmt: skip


def routes_named(said: Sequence[str]) -> frozenset[str]:
    """The routes the words name (`_ROUTE_WORDS`, whole words in a row)."""
    return frozenset(
        route
        for phrase, route in _ROUTE_WORDS.items()
        for i in range(len(said) - len(phrase) + 1)
        if tuple(said[i : i + len(phrase)]) == phrase
    )


def opening_form(sentence: str) -> frozenset[str]:
    """The routes of the form a sentence opens with, right after "Dạng", "Đường" or "Thuốc" (its
    first word or the one after: "Với dạng tiêm …"), or that its lead-in names ("Truyền tĩnh
    mạch: …", "Trẻ em, đường uống: …"); none when it opens otherwise ("Thuốc ức chế bơm proton …"
    names a class, not a form)."""
    opening = words(sentence)[:4]
    head = next((i for i, w in enumerate(opening[:2]) if w in _FORM_HEADS), None)
    if head is not None and head + 1 < len(opening) and any(p[0] == opening[head + 1] for p in _ROUTE_WORDS):
        return routes_named(opening[head + 1 : head + 3])
    return routes_named(words(lead_in(sentence)))


@dataclass(frozen=True)
class AskedFor:
    """What a question asks a drug's doses for: its conditions, and its words in pairs."""

    conditions: frozenset[Condition] = frozenset()
    pairs: frozenset[tuple[str, str]] = frozenset()
    said: tuple[str, ...] = ()  # its words, marks kept

    def another_form(self, sentence: str) -> bool:
        """The sentence is about a form the question does not name: one it opens with (a form
        other than by mouth, for a question naming no route; "uống" alone is how any drug is
        taken, so it names none)."""
        form = opening_form(sentence)
        named = routes_named([w for w in self.said if w != "uống"])
        if not form or form & named:
            return False
        return bool(named) or form != {"mouth"}

    def doses_another(self, sentence: str) -> bool:
        """The dose line's lead-in names a condition not asked, and the question quotes none
        of its other words."""
        lead = lead_in(sentence)
        named = conditions_in(lead)
        if all(_matches(c, self.conditions) for c in named):
            return False
        condition_words = frozenset(w for c in named for w in c)
        return not _pairs(folded_words(lead), condition_words) & self.pairs


# A question read for no condition: every dose line answers it as its words rank it
NOTHING_ASKED = AskedFor()


def asked_for(store: VectorStore, drug_id: str, question: str) -> AskedFor:
    """The conditions the question names, with those the drug's indications file under them."""
    asked = conditions_in(question)
    filed = {
        condition
        for part in store.find_by_section(drug_id, INDICATION_SECTION)
        for sentence in part_sentences(part.text)
        if any(_matches(c, asked) for c in conditions_in(lead_in(sentence)))
        for condition in conditions_in(sentence)
    }
    return AskedFor(asked | filed, _pairs(folded_words(question)), tuple(words(question)))
