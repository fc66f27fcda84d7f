"""The offline provider, the embedded default (no model configured): only exact catalogue hits
become drugs (a spelling guess becomes a question back), and its frame goes through the same
validation, post-conditions and merge as a model's (`duocthu eval understanding` judges it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from duocthu.core.deadline import Deadline
from duocthu.understanding.candidates import Turn
from duocthu.understanding.rules.attribute import (
    asked_section,
    drugs_beside_it,
    effect_on_medicine_taken,
    reaction_section,
    section_of_drug,
)
from duocthu.understanding.rules.clarify import ask_for_drug, described_patient, patient_told
from duocthu.understanding.rules.complaints import read_complaints
from duocthu.understanding.rules.decision import patient_decision
from duocthu.understanding.rules.direction import condition_to_drugs
from duocthu.understanding.rules.follow_up import prior_condition, relation_kept
from duocthu.understanding.rules.names import set_aside_the_patients, unknown_products
from duocthu.understanding.rules.reading import Reading, read_turn
from duocthu.understanding.rules.together import taken_together
from duocthu.understanding.rules.turn_type import (
    continued_frame,
    named_drug_frame,
    off_topic,
    out_of_scope,
    unknown_product_frame,
)


class OfflineFrameProvider:
    name = "offline"
    # deterministic and cheap: a conversation sent as history is replayed into its prior frame
    rebuilds_prior = True

    def propose(self, turn: Turn, deadline: Deadline) -> dict[str, Any]:
        return offline_frame(turn)


# The framing stages in order: the first that frames the turn decides it.
_FRAMING: tuple[Callable[[Reading], dict[str, Any] | None], ...] = (
    off_topic,
    taken_together,
    patient_told,
    named_drug_frame,
    continued_frame,
    unknown_product_frame,
    relation_kept,
    condition_to_drugs,
    prior_condition,
    ask_for_drug,
    described_patient,
)


def offline_frame(turn: Turn) -> dict[str, Any]:
    """The turn read in stages (the rule book's index: `duocthu.understanding.rules`), then framed."""
    reading = read_turn(turn)
    reading = asked_section(reading)
    reading = unknown_products(reading)
    reading = read_complaints(reading)
    reading = set_aside_the_patients(reading)
    reading = section_of_drug(reading)
    reading = reaction_section(reading)
    reading = effect_on_medicine_taken(drugs_beside_it(reading))
    reading = patient_decision(reading)
    for stage in _FRAMING:
        frame = stage(reading)
        if frame is not None:
            return frame
    return out_of_scope(reading)
