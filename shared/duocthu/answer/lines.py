"""The answering line first: for a section question with a focus (a maximum, the patient's organ
function or age group, a weight), the sentences of the section that answer it, quoted first with
their citation; the whole section follows as before (nothing of it is dropped).

When the section has no sentence on the focus, the reply says so in one line and quotes the
sentences of the section that does: contraindications first, then precautions ("thận trọng" for a
hepatic dose question), then a pregnant or nursing patient's own section. Never "safe": a section
that says nothing says nothing.

"X có gây Y không?" about one drug reads, as the which-drugs lookup does, X's ADR list, then its
Thận trọng and Dược lý where they state Y as X's effect (`reverse.with_section_reading`); the
sentence stating it is quoted first with its section, and an ADR list silent on Y says so in a line
of its own. When no section read states it, one line names the sections read, never "X does not
cause Y": the formulary may word it otherwise. The lines travel in the chat response as
`answer_lines` (`AnswerLines`), for a page to show them apart from the quoted sections.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, field_validator

from duocthu.core.answer_focus import answer_focus
from duocthu.core.labs import lab_relation
from duocthu.core.sections import (
    ADR_SECTION,
    CONTRAINDICATION_SECTION,
    DOSE_SECTION,
    SECTION_HEADINGS,
    STATE_SECTIONS,
    resolve_section,
)
from duocthu.core.sentences import split_sentences
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedLine
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Ask
from duocthu.models.reading import TurnReading
from duocthu.retrieval.answering import patient_fit
from duocthu.retrieval.continuations import continued
from duocthu.retrieval.facets import FACET_SECTIONS, PatientProfile, anchor_table
from duocthu.retrieval.interactions import phrase_in
from duocthu.retrieval.limits import in_weight_band, limits_in, patient_inside
from duocthu.retrieval.reverse.reading import allows_lenient, first_mention, states_effect
from duocthu.retrieval.reverse.relation import EFFECT_SECTIONS, relation_phrases
from duocthu.retrieval.reverse.wordings import wordings_of
from duocthu.understanding.cues import scan_cues

# The sections that may say what the asked one does not, in the order they are read.
OTHER_SECTIONS: tuple[str, ...] = (CONTRAINDICATION_SECTION, "than_trong")
# A population's own section: a contraindication naming it is quoted first ("Không dùng … cho con bú")
POPULATION_SECTIONS = frozenset((*FACET_SECTIONS["pregnancy"], *FACET_SECTIONS["breastfeeding"]))
MAX_LINES = 3
# A bedside summary (the lead lines with their citations) fits a phone screen
BEDSIDE_CHARS = 800
RANKED_HEAD_CHARS = 120
WHOLE_SECTION_FOLLOWS = "Toàn văn mục được trích dưới đây."


def section_follows(heading: str) -> str:
    """The line closing answering lines from another section: the routed one is quoted below."""
    return f"{_FOLLOWS_OPEN}{heading}{_FOLLOWS_CLOSE}"


_FOLLOWS_OPEN, _FOLLOWS_CLOSE = "Toàn văn mục “", "” được trích dưới đây."


def says_section_follows(line: str) -> bool:
    """Whether a line is one of those saying the whole section is quoted below it."""
    return line == WHOLE_SECTION_FOLLOWS or (line.startswith(_FOLLOWS_OPEN) and line.endswith(_FOLLOWS_CLOSE))


_CLAUSE = re.compile(r"(?<=;)\s+")
# Past this length an ADR list's line is the ";" clause stating the finding (the section follows)
LONG_SENTENCE = 240
STATE_NAMES = {
    "renal": "suy thận",
    "hepatic": "suy gan",
    "elderly": "người cao tuổi",
    "child": "trẻ em",
    "neonate": "trẻ sơ sinh",
    "pregnancy": "phụ nữ có thai",
    "breastfeeding": "phụ nữ cho con bú",
}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AnswerLine(_Model):
    text: str  # the sentence, verbatim
    drug_id: str
    section_key: str
    evidence_id: str  # the part it stands in (EvidenceBundle.evidence, or the other section's)
    citation: str  # section heading and pages (SourceRef.place); the reply names the book once
    pages: str = ""  # "tr. 109–110": what the line says after the quote, its section said above it


class AnswerLines(_Model):
    """What a section question asked of its section, and the sentences that answer it."""

    drug_id: str
    section_key: str  # the section asked
    focus: tuple[str, ...]  # what was looked for, in words: "tối đa", "suy gan", "12 kg"
    lines: tuple[AnswerLine, ...] = ()  # the answering sentences, the asked section's or the other's
    not_said: bool = False  # the asked section has no sentence on the state asked
    other_section_key: str | None = None  # the section the lines come from when not_said
    read_sections: tuple[str, ...] = ()  # "X có gây Y không?": the sections read for its effect, in order
    outside_limits: bool = False  # the lines name the state only with a limit the patient is outside
    # the lines are the monograph's sentences ranked for the question (`ranked_lines`), not a focus
    ranked: bool = False

    @field_validator("lines")
    @classmethod
    def _each_said_once(cls, lines: tuple[AnswerLine, ...]) -> tuple[AnswerLine, ...]:
        """A sentence a line before it quotes as its continuation is not quoted again."""
        kept: list[AnswerLine] = []
        for line in lines:
            if not any(line.text in k.text and k.section_key == line.section_key for k in kept):
                kept.append(line)
        return tuple(kept)


def _maximum_words() -> tuple[str, ...]:
    return answer_focus()["maximum"].answered


def _state(frame: QueryFrame) -> tuple[str, tuple[str, ...]] | None:
    """The patient state the question asks about, as (its name, the formulary's phrases for it)."""
    table = anchor_table()
    concept = table.by_population.get(frame.population or "")
    context = frame.patient_context
    if concept is None and context.hepatic_function:
        concept = "hepatic"
    if concept is None and context.renal_function:
        concept = "renal"
    if concept is None or concept not in table.concepts:
        return None
    return STATE_NAMES.get(concept, concept), table.concepts[concept]


def _about_patient(named: Test, frame: QueryFrame) -> Test:
    """A sentence naming the patient's state that is about them: not one whose age or weight
    limits they are outside ("trẻ dưới 6 tháng tuổi" for a child of 18 months), nor one stating
    only clearance or pregnancy bands their numbers are outside ("eGFR ≥ 60" at eGFR 38); one
    clause about them makes the sentence theirs, whatever stage another clause names."""
    profile = PatientProfile.from_frame(frame)

    def about(text: str) -> bool:
        inside = patient_inside(limits_in(text), profile.age_years, profile.weight_kg) is not False
        return named(text) and inside and patient_fit(text, profile) >= 1

    return lambda s: about(s) or any(about(clause) for clause in _CLAUSE.split(s) if clause != s)


def _with_labs(named: Test | None, frame: QueryFrame, asked: Sequence[EvidenceItem]) -> Test | None:
    """A sentence about the patient: named by their state (`named`), or, where the section states a
    band of a laboratory value they give, one their own number falls in."""
    values = PatientProfile.from_frame(frame).lab_values
    if not values or not any(lab_relation(s, values) for _, s in sentences_of(asked)):
        return named
    return lambda s: lab_relation(s, values) == "inside" or bool(named and named(s))


Test = Callable[[str], bool]


def _named(phrases: Sequence[str]) -> Test:
    return lambda sentence: any(phrase_in(words(sentence), p) for p in phrases)


def sentences_of(items: Sequence[EvidenceItem]) -> list[tuple[EvidenceItem, str]]:
    """Each part's sentences, its 【drug】 label left out, with the part they come from."""
    return [(i, s) for i in items for s in split_sentences(i.text.removeprefix(f"【{i.display_name}】 "))]


def line_of(item: EvidenceItem, sentence: str) -> AnswerLine:
    """The sentence as a line, with the sentence going on from it (`retrieval.continuations`)."""
    ref = item.source_refs[0] if item.source_refs else None
    return AnswerLine(
        pages=ref.pages() if ref else "",
        text=continued(sentence, split_sentences(item.text.removeprefix(f"【{item.display_name}】 "))),
        drug_id=item.drug_id,
        section_key=item.section_key,
        evidence_id=item.id,
        citation=ref.place() if ref else "",
    )


def _pick(pairs: Sequence[tuple[EvidenceItem, str]], tests: Sequence[Test]) -> list[AnswerLine]:
    """The sentences that pass the most tests (at least one), in book order, at most MAX_LINES."""
    scored = [(sum(t(s) for t in tests), item, s) for item, s in pairs]
    best = max((n for n, _, _ in scored), default=0)
    return [line_of(item, s) for n, item, s in scored if best and n == best][:MAX_LINES]


def answer_lines(
    frame: QueryFrame,
    reading: TurnReading,
    bundle: EvidenceBundle,
    section_of: Callable[[str, str], Sequence[EvidenceItem]],
    ask: Ask | None,
) -> AnswerLines | None:
    """The answering lines of a one-drug section question with a focus (the plan's ask says the
    question has them), or of "X có gây Y không?" (`effect_lines`); None for any other.
    `section_of(drug_id, section_key)` reads another section of the drug whole."""
    condition = frame.condition
    reads_section = ask.reads_section if ask else None
    if reads_section == ADR_SECTION and condition is not None and len(frame.drugs) == 1:
        # "những phản ứng có hại" names the section, not a finding: the section answers it
        return None if resolve_section(condition.text) else effect_lines(frame, bundle, section_of)
    if ask is None or not ask.answering_lines or len(frame.drugs) != 1:
        return None
    section = ask.section_key
    if section is None and (_state(frame) is not None or frame.patient_context.labs):
        # "X dùng cho <this patient> được không?": its contraindications answer it first
        section = CONTRAINDICATION_SECTION
    if not section:
        return None
    drug = frame.drugs[0]
    asked = [e for e in bundle.evidence if e.drug_id == drug and e.section_key == section]
    state = _state(frame)
    focus: list[str] = []
    tests: list[Test] = []
    if reading.asks_maximum:
        focus.append("tối đa")
        tests.append(_named(_maximum_words()))
    weight = frame.weight_kg
    by_weight = weight is not None and section == DOSE_SECTION  # a weight band is read in the dose section
    if by_weight and weight is not None:
        focus.append(f"{weight:g} kg")
        tests.append(lambda s: in_weight_band(s, weight))
    state_named = _named(state[1]) if state else None
    state_test = _about_patient(state_named, frame) if state_named else None
    if state and state_test:
        focus.append(state[0])
    patient_test = _with_labs(state_test, frame, asked)
    if patient_test is not state_test:
        focus += frame.patient_context.labs
    if patient_test is not None:
        tests.append(patient_test)
    if not tests or not asked:
        return None
    # a sentence stating another route than the question's answers for another dosage form
    pairs = [(i, s) for i, s in sentences_of(asked) if not _other_route(s, frame.route)]
    organ = state is not None and state[0] in (STATE_NAMES["renal"], STATE_NAMES["hepatic"])
    lines = _pick(
        _about_the_question(pairs, tests, by_weight, reading.asks_maximum, patient_test, organ), tests
    )
    if lines:
        if section in POPULATION_SECTIONS and state_test is not None:
            barred = sentences_of(section_of(drug, CONTRAINDICATION_SECTION))
            barred = [(i, s) for i, s in barred if state_test(s)]
            lines = [line_of(i, s) for i, s in barred[:MAX_LINES]] + lines
        return AnswerLines(drug_id=drug, section_key=section, focus=tuple(focus), lines=tuple(lines))
    about = state_test or (lambda _: False)
    outside = [(i, s) for i, s in pairs if state_named and state_named(s) and not about(s)]
    if outside and weight is None and not reading.asks_maximum:
        # "Trẻ em dưới 3 tháng tuổi …" for a child of 3: quoted as what it is, never "not said"
        return AnswerLines(
            drug_id=drug, section_key=section, focus=tuple(focus), outside_limits=True,
            lines=tuple(line_of(i, s) for i, s in outside[:MAX_LINES]),
        )  # fmt: skip
    if state_test is not None:
        own = STATE_SECTIONS.get(frame.population or "")  # a pregnant or nursing patient's, last
        for other in (*OTHER_SECTIONS, *((own,) if own else ())):
            if other == section:
                continue
            found = [(i, s) for i, s in sentences_of(section_of(drug, other)) if state_test(s)]
            if found:
                return AnswerLines(
                    drug_id=drug, section_key=section, focus=tuple(focus), not_said=True,
                    lines=tuple(line_of(i, s) for i, s in found[:MAX_LINES]), other_section_key=other,
                )  # fmt: skip
    return AnswerLines(drug_id=drug, section_key=section, focus=tuple(focus), not_said=True)


def _quotable(pairs: Sequence[tuple[EvidenceItem, str]]) -> list[tuple[EvidenceItem, str]]:
    """Sentences, a long one cut into its ";" clauses."""
    return [(i, c) for i, s in pairs for c in (_CLAUSE.split(s) if len(s) > LONG_SENTENCE else [s])]


def states_finding(sentence: str, section_key: str, phrase: str) -> bool:
    """Whether the sentence states the phrase (in any of its wordings) as its section reads it:
    the ADR list as a reaction, Thận trọng and Dược lý as the drug's effect (`reverse.reading`)."""
    for wording in wordings_of(phrase):
        for lenient in (False, True) if allows_lenient(words(wording)) else (False,):
            if section_key == ADR_SECTION:
                position = first_mention(sentence, wording, section_key, lenient)[0]
            else:
                position = states_effect(sentence, wording, lenient)
            if position >= 0:
                return True
    return False


def effect_lines(
    frame: QueryFrame, bundle: EvidenceBundle, section_of: Callable[[str, str], Sequence[EvidenceItem]]
) -> AnswerLines:
    """ "X có gây Y không?": the sentences of the section that states Y as X's effect (the one
    `with_section_reading` put X under), or none (`not_said`, the sections read named)."""
    drug = frame.drugs[0]
    condition = frame.condition
    asked = (condition.normalized or condition.text) if condition else ""
    read = (ADR_SECTION, *EFFECT_SECTIONS)
    found = next((d for d in bundle.ranked_drugs if d.drug_id == drug), None)
    section = found.section_key if found else None
    if found is None or section not in read:
        return AnswerLines(
            drug_id=drug, section_key=ADR_SECTION, focus=(asked,), not_said=True, read_sections=read
        )
    parts = bundle.evidence if section == ADR_SECTION else section_of(drug, section)
    pairs = _quotable(sentences_of([p for p in parts if p.id in found.evidence_ids]))
    phrases = dict.fromkeys((*relation_phrases(frame), *relation_phrases(frame, narrowed=False)))
    for phrase in phrases:
        stating = [(i, s) for i, s in pairs if states_finding(s, section, phrase)]
        if stating:
            return AnswerLines(
                drug_id=drug, section_key=ADR_SECTION, focus=(phrase,), not_said=section != ADR_SECTION,
                lines=tuple(line_of(i, s) for i, s in stating[:MAX_LINES]),
                other_section_key=None if section == ADR_SECTION else section, read_sections=read,
            )  # fmt: skip
    # found by the section's reading of the whole part, not of one sentence: nothing to quote apart
    other = None if section == ADR_SECTION else section
    return AnswerLines(
        drug_id=drug, section_key=ADR_SECTION, focus=(asked,), other_section_key=other, read_sections=read
    )


def _effect_text(found: AnswerLines, drug_name: str) -> list[str]:
    asked = ", ".join(found.focus)
    if not found.lines:
        if found.not_said:
            names = [f"“{SECTION_HEADINGS[key]}”" for key in found.read_sections]
            return [
                f"Các mục {', '.join(names[:-1])} và {names[-1]} của {drug_name} không nêu “{asked}” là tác "
                f"dụng của thuốc. Dược thư có thể ghi bằng từ khác, nên hãy đọc toàn văn mục "
                f"“{SECTION_HEADINGS[found.section_key]}” dưới đây."
            ]
        if found.other_section_key:  # that section is not quoted below
            stated_in = SECTION_HEADINGS[found.other_section_key]
            return [f"Mục “{stated_in}” của {drug_name} có nêu “{asked}”; hãy đọc mục đó trong chuyên luận."]
        heading = SECTION_HEADINGS[found.section_key]
        return [f"Mục “{heading}” của {drug_name} có nêu “{asked}” (xem trích dẫn dưới đây)."]
    stated_in = found.lines[0].section_key
    out = [f"Mục “{SECTION_HEADINGS[stated_in]}” của {drug_name} nêu “{asked}”:"]
    out += [f"- “{line.text}” ({line.pages})" for line in found.lines]
    if found.not_said:
        out.append(
            f"Mục “{SECTION_HEADINGS[found.section_key]}” của {drug_name} không nêu “{asked}”; toàn văn mục "
            "đó được trích dưới đây."
        )
    else:
        out.append(WHOLE_SECTION_FOLLOWS)
    return out


def _other_route(text: str, route: str | None) -> bool:
    """The sentence states a route and not the one asked ("Truyền tĩnh mạch: …" for "cho uống")."""
    stated = {cue.value for cue in scan_cues(text).all("route")}
    return route is not None and bool(stated) and route not in stated


def ranked_lines(
    lines: Sequence[RankedLine], section_key: str | None, route: str | None = None, each_drug: bool = False
) -> AnswerLines | None:
    """The monograph's best lines for the question (`retrieval.answering`) as the reply's lead, as
    many as fit a bedside summary (BEDSIDE_CHARS; asked of `each_drug`, each drug's best line);
    `section_key` is the section routed to (quoted whole after), None when none was. A line stating
    another route than the question's goes after those stating it or none (another dosage form)."""
    kept: list[AnswerLine] = []
    used, full = 0, False
    several = len({line.drug_id for line in lines}) > 1  # each line names its drug
    for line in sorted(lines, key=lambda x: _other_route(x.headed, route)):  # stable: ranking kept
        ref = line.source_refs[0] if line.source_refs else None
        place = (f"{line.display_name}, " if several else "") + (ref.place() if ref else "")
        text = _clauses_within(line.text, BEDSIDE_CHARS - RANKED_HEAD_CHARS - 80)  # 80: its citation
        # a dose line is quoted under its paragraph's lead-in: who or what the dose is for
        text = f"{line.lead}: … {text}" if line.lead else text
        quoted = AnswerLine(
            text=text, drug_id=line.drug_id, section_key=line.section_key, evidence_id=line.part_id,
            citation=place, pages=ref.pages() if ref else "",
        )  # fmt: skip
        size = len(_ranked_line(quoted)) + 1
        full = full or bool(kept and used + size > BEDSIDE_CHARS - RANKED_HEAD_CHARS)
        if full and (not each_drug or any(k.drug_id == line.drug_id for k in kept)):
            continue
        used += size
        kept.append(quoted)
    if not kept:
        return None
    return AnswerLines(
        drug_id=kept[0].drug_id, section_key=section_key or kept[0].section_key, focus=(), lines=tuple(kept),
        ranked=True,
    )  # fmt: skip


def _about_the_question(
    pairs: Sequence[tuple[EvidenceItem, str]],
    tests: Sequence[Test],
    by_weight: bool,
    asks_maximum: bool,
    state_test: Test | None,
    organ: bool,
) -> list[tuple[EvidenceItem, str]]:
    """The sentences that may answer: a weight band, else the state, is what the question is about
    (a maximum for someone else does not answer it); with no band holding the patient's weight,
    the sentences for a failing organ answer for them ("Suy thận: … từ 50 ml/phút trở xuống dùng
    50% liều" at 60 kg), never "not said"."""
    required = (tests[1] if asks_maximum else tests[0]) if by_weight else None
    required = required or state_test or (tests[0] if len(tests) == 1 else None)
    candidates = [(i, s) for i, s in pairs if required is None or required(s)]
    if not candidates and organ and state_test is not None and required is not state_test:
        candidates = [(i, s) for i, s in pairs if state_test(s)]
    return candidates


def _clauses_within(sentence: str, budget: int) -> str:
    """A sentence longer than the budget (an ADR list) as its leading ";" clauses that fit, whole
    (the section follows with the rest); a first clause alone longer stays whole."""
    if len(sentence) <= budget:
        return sentence
    clauses = _CLAUSE.split(sentence)
    kept = clauses[:1]
    for clause in clauses[1:]:
        if len(" ".join([*kept, clause])) > budget:
            break
        kept.append(clause)
    return " ".join(kept)


def _ranked_line(line: AnswerLine) -> str:
    return f"- “{line.text}” ({line.citation})"


def _ranked_text(found: AnswerLines, drug_name: str, absent: bool, withheld: bool = False) -> list[str]:
    """Each line with its section and pages; the routed section, when it is not where the best
    line is from, is said to follow (or, `absent` from the monograph, said to be absent; or
    nothing, `withheld` from the reply)."""
    routed = SECTION_HEADINGS.get(found.section_key, found.section_key)
    if absent:
        head = f"Chuyên luận {drug_name} không có mục “{routed}”; các câu trả lời trong chuyên luận:"
    else:
        head = f"Câu trả lời trong chuyên luận {drug_name}:"
    out = [head, *(_ranked_line(line) for line in found.lines)]
    if not absent and not withheld and found.lines[0].section_key != found.section_key:
        out.append(section_follows(routed))
    return out


def lines_text(
    found: AnswerLines, drug_name: str, section_absent: bool = False, withheld: bool = False
) -> list[str]:
    """The reply's opening lines: the answering sentences with their citations, or one line that
    the section does not say, then what the section that does say says (`withheld`: the routed
    section is left out of the reply, never said to follow)."""
    if found.ranked:
        return _ranked_text(found, drug_name, section_absent, withheld)
    if found.read_sections:
        return _effect_text(found, drug_name)
    heading = SECTION_HEADINGS[found.section_key]
    asked = ", ".join(found.focus)
    out: list[str] = []
    after: list[str] = []  # said once the lines are quoted
    if found.outside_limits:
        out.append(
            f"Mục “{heading}” của {drug_name} nêu “{asked}” chỉ với giới hạn tuổi hoặc cân nặng mà người "
            "bệnh bạn nêu nằm ngoài; hãy đối chiếu:"
        )
    elif found.not_said:
        not_said = f"Mục “{heading}” của {drug_name} không có câu nào nêu “{asked}”."
        if found.other_section_key:
            # the lines that say it are the answer: they lead, the asked section's silence follows
            out.append(f"Mục “{SECTION_HEADINGS[found.other_section_key]}” của {drug_name} nêu ({asked}):")
            after.append(not_said)
        else:
            out.append(not_said)
        if not found.other_section_key and any(f in STATE_NAMES.values() for f in found.focus):
            out.append(
                "Các mục Chống chỉ định và Thận trọng cũng không nêu; điều đó KHÔNG có nghĩa là an toàn."
            )
    elif found.lines and found.lines[0].section_key != found.section_key:
        # the contraindications about the patient first, then the asked section's own lines
        stated_in = SECTION_HEADINGS[found.lines[0].section_key]
        out.append(f"Mục “{stated_in}” của {drug_name} nêu ({asked}):")
    else:
        out.append(f"Câu trả lời trong mục “{heading}” của {drug_name} ({asked}):")
    for before, line in zip((None, *found.lines), found.lines, strict=False):
        if before is not None and before.section_key != line.section_key and not found.not_said:
            out.append(f"Mục “{SECTION_HEADINGS[line.section_key]}” nêu:")
        out.append(f"- “{line.text}” ({line.pages})")
    out += after
    if not found.not_said or found.lines:
        out.append(WHOLE_SECTION_FOLLOWS)
    return out
