"""Patient facts told in words no table holds, read by where they stand: a diagnosis after a lead
that says the patient has it, and a reaction after the medicine that caused it, however that
medicine is named. The tables (`core.conditions`, the catalogue) read what they know; these read
the rest, so a condition or a cause the vocabulary lacks is still the patient's history and never
the question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.conditions import ConditionMention
from duocthu.core.text import nfc, token_matches
from duocthu.understanding.cues import Cue, TurnCues

# A diagnosis: 2 to 6 words after "bị", "mắc", "được chẩn đoán" (never after "tiền sử": what follows
# it is an allergy or a reaction as often as a disease), to its clause's end.
_DIAGNOSIS_WORDS = (2, 6)
# Words between "bị" and the disease it names: "bị cơn gút cấp", "mắc chứng mất ngủ".
FILLERS = frozenset({"con", "benh", "chung"})
# Question words make it no diagnosis ("bị gì vậy?").
_NOT_A_DIAGNOSIS = frozenset({"gi", "sao", "nao", "khong", "chua", "the", "vay", "nhu"})
# Words that end one, matched under the diacritics rule: "cơ" of a diagnosis never ends it as "có".
_ENDS = frozenset(
    nfc(w) for w in ("do", "với", "nên", "thì", "mà", "và", "đang", "đã", "nay", "có", "được", "dùng",
                     "uống", "không", "ko", "nhưng", "cần", "bị", "hay", "hoặc", "phải", "năm", "hồi", "lúc",
                     "tháng", "tuần", "lần")
)  # fmt: skip
# A medicine's name after a verb of taking: at most _NAME_WORDS words, then at most _WHERE_WORDS
# words of where or when before the "bị" of its reaction ("tiêm penicillin ở trạm xá bị …").
_NAME_WORDS = 3
_WHERE_WORDS = 4
_WHERE = frozenset({"o", "tai", "luc", "hoi", "khi", "vao", "nam", "thang", "tuan", "cach", "truoc"})
# Verbs of taking (folded): in a turn that tells, a catalogue drug right after one is a medicine taken.
TAKING_VERBS = frozenset({"uong", "dung", "tiem", "xit", "bom", "truyen", "boi"})
# Verbs of adding a drug to what is taken (folded): in a turn that tells, a catalogue drug right
# after one ("BS tim mạch thêm X") is taken from now on; a word of another kind ("thêm đau bụng") is
# not. Prescribing alone ("BS kê X") names the drug the conversation is about, not one beside it.
PRESCRIBING_VERBS = frozenset({"them"})
_REACTION_WORDS = 5


@dataclass(frozen=True)
class ToldReaction:
    text: str  # "sốc phản vệ (penicillin)"
    cause: str  # the medicine as written
    lead: int  # position of the "bị" before the reaction
    words: range  # the reaction's positions
    cause_words: range  # the medicine's positions


def _ends(token: str) -> bool:
    return any(token_matches(token, word) for word in _ENDS)


def _span(cues: TurnCues, start: int, limit: int, clauses: Sequence[int], stop: set[int]) -> int:
    """Where the words from `start` end: their clause, a stop position, a word that ends a fact, a
    number, or `limit` words."""
    end, tokens = start, cues.tokens
    while (
        end < len(tokens)
        and end - start < limit
        and clauses[end] == clauses[start]
        and end not in stop
        and not _ends(tokens[end])
        and not tokens[end][:1].isdigit()
    ):
        end += 1
    return end


def reactions_to_unnamed(
    cues: TurnCues, named: Sequence[DrugMatch], written: Sequence[str], clauses: Sequence[int], past: bool
) -> list[ToldReaction]:
    """ "tiêm penicillin bị sốc phản vệ": a verb of taking, a name the catalogue does not know, "bị"
    and the reaction, told as past (`past`) or before a drug now asked. Catalogue drugs are read so
    by `facts`."""
    folded = cues.folded
    drugs = {i for m in named for i in range(m.start, m.end)}
    found: list[ToldReaction] = []
    reach = 1 + _NAME_WORDS + _WHERE_WORDS
    for lead in cues.all("comorbidity"):
        taking = (
            i for i in range(lead.start - 1, max(-1, lead.start - reach), -1) if folded[i] in TAKING_VERBS
        )
        verb = next(taking, None)
        if (
            verb is None
            or lead.end >= len(folded)
            or len({clauses[i] for i in range(verb, lead.end + 1)}) > 1
        ):
            continue
        name_end = next((i for i in range(verb + 1, lead.start) if folded[i] in _WHERE), lead.start)
        cause_words = range(verb + 1, name_end)
        if not 0 < len(cause_words) <= _NAME_WORDS or drugs & set(cause_words):
            continue
        end = _span(cues, lead.end, _REACTION_WORDS, clauses, drugs)
        if end == lead.end or not (past or any(m.start >= end for m in named)):
            continue
        cause = " ".join(written[verb + 1 : name_end]).strip(".,;:()")
        reaction = " ".join(written[lead.end : end]).rstrip(".,;:!?")
        found.append(
            ToldReaction(f"{reaction} ({cause})", cause, lead.start, range(lead.end, end), cause_words)
        )
    return found


def diagnoses_named(
    cues: TurnCues,
    conditions: Sequence[ConditionMention],
    objects: set[int],
    named: Sequence[DrugMatch],
    written: Sequence[str],
    clauses: Sequence[int],
    reaction_leads: set[int],
    asking: int | None = None,
) -> list[str]:
    """The patient's conditions the condition table cannot name, as written (above); none where a
    "bị" tells a reaction to a medicine just before it, nor in the clause `asking` (the question
    the message closes with: "… thì bị giảm tác dụng?" asks what happens, it tells nothing)."""
    folded = cues.folded
    known = {i for c in conditions for i in range(c.start, c.start + c.length)}
    drugs = {i for m in named for i in range(m.start, m.end)}
    found: list[str] = []
    for lead in cues.all("comorbidity"):
        start = lead.end + (lead.end < len(folded) and folded[lead.end] in FILLERS)
        if start >= len(folded) or start in known or start in objects or _not_a_diagnosis_lead(lead, folded):
            continue
        if clauses[lead.start] == asking:
            continue
        if lead.start in reaction_leads or any(0 <= lead.start - m.end <= 1 for m in named):
            continue  # "uống X bị …": a reaction to X
        end = _span(cues, start, _DIAGNOSIS_WORDS[1], clauses, drugs | known)
        words = folded[start:end]
        if len(words) >= _DIAGNOSIS_WORDS[0] and not _NOT_A_DIAGNOSIS & set(words):
            found.append(" ".join(written[start:end]).rstrip(".,;:!?"))
    return found


def _not_a_diagnosis_lead(lead: Cue, folded: Sequence[str]) -> bool:
    """ "tiền sử" (an allergy or a reaction follows as often), a lead denied ("không bị") or asked
    ("có bị … không?": whether something happens, not what the patient has)."""
    before = folded[lead.start - 1] if lead.start > 0 else ""
    return folded[lead.start] == "tien" or before in ("khong", "chua", "co")
