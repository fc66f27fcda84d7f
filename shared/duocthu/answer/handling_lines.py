"""What the book says to do about a reaction asked of a drug ("Renitec làm ho à? đổi gì?"): the
sentences of its "Hướng dẫn cách xử trí ADR" naming the reaction the ADR list was read for, after
that reading. Whether the drug causes it and what to do then are one question at the bedside: the
answer (stop it, switch to a sartan, raise the legs) is written in the handling section."""

from __future__ import annotations

from duocthu.answer.lines import MAX_LINES, AnswerLines, line_of, sentences_of, states_finding
from duocthu.core.sections import ADR_MANAGEMENT_SECTION, ADR_SECTION
from duocthu.models.evidence import GatheredEvidence


def handling_lines(found: AnswerLines, evidence: GatheredEvidence) -> AnswerLines | None:
    """The handling section's sentences naming the reaction `found` read the ADR list for (its
    focus), read as the ADR list reads it (`states_finding`), cited; None when the plan read no
    such section or none names it."""
    try:
        parts = evidence.section(found.drug_id, ADR_MANAGEMENT_SECTION)
    except KeyError:
        return None  # the plan read no handling section beside the reaction
    lines = [
        line_of(part, sentence)
        for part, sentence in sentences_of(parts)
        if any(states_finding(sentence, ADR_SECTION, asked) for asked in found.focus)
    ]
    if not lines:
        return None
    kept = tuple(lines[:MAX_LINES])
    return AnswerLines(
        drug_id=found.drug_id, section_key=ADR_MANAGEMENT_SECTION, focus=found.focus, lines=kept, ranked=True
    )
