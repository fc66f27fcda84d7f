"""A word standing for the conversation's drug (`drug_pronoun` rows of understanding_cues.tsv)
binds to the prior frame's first drug, the one the conversation is about. Joined to another drug
named (a joiner word between them), the turn asks about the pair; with no drug named after a
question about two, it names the first. Applied after the prior-frame merge, for every provider;
it adds no drug the conversation did not name before.
"""

from __future__ import annotations

from duocthu.core.sections import INTERACTION_SECTION, SECTION_HEADINGS
from duocthu.models.frame import QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.cues import JOINER_WORDS, TurnCues
from duocthu.understanding.merge import TOGETHER


def _together(frame: QueryFrame) -> bool:
    return frame.turn_type == "interaction" or (
        frame.turn_type == "drug_attribute" and frame.attribute == INTERACTION_SECTION
    )


def _joined(cues: TurnCues, turn: Turn) -> bool:
    """A joiner word stands between the word for the drug and a drug the turn names."""
    for word in cues.all("drug_pronoun"):
        for match in turn.candidates.turn.matches:
            start, end = (word.end, match.start) if word.start < match.start else (match.end, word.start)
            if any(w in JOINER_WORDS for w in cues.folded[start:end]):
                return True
    return False


def bind_pronoun(frame: QueryFrame, turn: Turn) -> QueryFrame:
    prior = turn.prior
    if prior is None or not prior.drugs or frame.subject_scope != "human":
        return frame
    cues = turn.tags.cues
    if not cues.has("drug_pronoun"):
        return frame
    bound = prior.drugs[0]
    named = turn.candidates.named_ids
    if named and frame.drugs and bound not in frame.drugs and _together(frame) and _joined(cues, turn):
        name = turn.candidates.names.get(bound, (bound,))[0]
        return frame.model_copy(
            update={
                "drugs": (bound, *frame.drugs),
                **TOGETHER,
                "section_overview": False,
                "standalone_query": f"{turn.message} ({SECTION_HEADINGS[INTERACTION_SECTION]} của {name})",
            }
        )
    if not named and len(frame.drugs) > 1 and frame.drugs == prior.drugs and not _together(frame):
        return frame.model_copy(update={"drugs": (bound,)})
    return frame
