"""Stage: medicines taken together. A drug asked about beside a medicine the patient takes, or
joined to another or to a class, is asked about its interactions; so is a drug asked after the
patient's medicines were told, and one drug of an interaction swapped in a follow-up."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Literal

from duocthu.core.sections import INTERACTION_SECTION
from duocthu.core.text import fold
from duocthu.models.frame import QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.cues import ADD_WORD, JOINER_WORDS, TOGETHER_WORDS, WHICH_WORDS
from duocthu.understanding.merge import CONTINUED, TOGETHER, merged_context
from duocthu.understanding.rules.follow_up import refers_back
from duocthu.understanding.rules.reading import Reading, product_spans, reverse_lookup

# At most this many words between "cùng" and the class it joins: "uống cùng sữa hoặc thuốc …".
_TOGETHER_TO_CLASS = 4
# How far before a class the cue tables name (drug_class) a joiner may stand: "với các thuốc lợi tiểu".
_JOINER_TO_NAMED_CLASS = 2
# Words that, right between two medicines, ask about them together (the lexicon reads "+" as "cùng").
_PAIRING_WORDS = JOINER_WORDS | {"di"}
_PAIRING_GAP = 2

Beside = Literal["taken", "joined"] | None


def taken_together(reading: Reading) -> dict[str, Any] | None:
    """May the drug be taken with the medicines the patient takes, told before it (told after the
    drug: `merge.unknown_beside_carried`, for every provider); one drug of an interaction swapped."""
    added = _added_beside_conversation(reading)
    if added and reading.prior is not None:
        return _beside_what_is_taken(reading, reading.prior, added)
    taken = _with_patient_medicines(reading) or _interaction_kept(reading)
    if taken:
        return {**reading.frame(), "drugs": [*reading.drugs, *taken], **TOGETHER}
    # the conversation's drug stays first: what "nó" refers to next
    joined = _joined_to_conversation(reading)
    return {**reading.frame(), "drugs": [*joined, *reading.drugs], **TOGETHER} if joined else None


def beside_another_medicine(reading: Reading) -> Beside:
    """Whether the medicines asked about are taken beside another: "taken" when the patient already
    takes a medicine that is not one of them, "joined" when a joiner word joins one of them to
    another or to a class (`JOINER_WORDS`), or only pairing words stand between two of them."""
    folded, facts, named, unknown = reading.cues.folded, reading.facts, reading.named, reading.unknown
    class_starts = frozenset(c.start for c in reading.cues.all("drug_class"))
    asked = [fold(m.matched_text) for m in named] + [fold(u) for u in unknown]
    for taken in map(fold, facts.current_medications):
        names_one = any(a in taken for a in asked)
        if (len(asked) >= 2 and names_one) or ("thuoc" in taken.split() and not names_one):
            return "taken"
    spans = sorted(product_spans(folded, named, unknown))
    positions = [start for start, _ in spans]
    # a pair beside a catalogue drug, asked about: not medicines told before a which-drug question
    pairs = named and not reading.cues.has("candidate")
    if pairs and any(
        0 < start - end <= _PAIRING_GAP and all(t in _PAIRING_WORDS for t in folded[end:start])
        for (_, end), (start, _) in pairwise(spans)
    ):
        return "joined"

    def joins_class(i: int) -> bool:
        # "cùng thuốc kháng acid", not "cùng thuốc gì" (which drugs: the one drug's section)
        after = [*folded[i + 1 : i + 1 + _TOGETHER_TO_CLASS], ""]
        return "thuoc" in after[:-1] and after[after.index("thuoc") + 1] not in WHICH_WORDS

    def joins_named_class(i: int) -> bool:  # "với NSAID", "với các thuốc lợi tiểu"
        return any(i < start <= i + _JOINER_TO_NAMED_CLASS for start in class_starts)

    joined = any(
        any(p < i for p in positions)
        and (
            (t in TOGETHER_WORDS and (any(p > i for p in positions) or joins_class(i)))
            or (t in JOINER_WORDS and joins_named_class(i))
            or (t == "cach" and i + 1 in positions)  # "uống tetracyclin cách Biviantac bao lâu"
        )
        for i, t in enumerate(folded)
    )
    return "joined" if joined else None


def _added_beside_conversation(reading: Reading) -> list[str]:
    """The conversation's drugs, when a turn adds one other drug to them ("thêm X") and asks nothing
    else of it: the question is the drugs together. Empty otherwise."""
    prior, named, cues = reading.prior, reading.named, reading.cues
    if prior is None or not prior.drugs or reading.attribute or reading.unknown or len(named) != 1:
        return []
    added = named[0]
    if reverse_lookup(cues) or added.drug_id in prior.drugs or added.start == 0:
        return []
    if cues.folded[added.start - 1] != ADD_WORD:
        return []
    return list(prior.drugs)


def _joined_to_conversation(reading: Reading) -> list[str]:
    """The conversation's drugs, when a turn names one other drug with words asking about taking it
    with something ("uống chung metformin được không", "còn phối hợp X thì sao") and names nothing
    else it could be taken with: the question is that drug with the conversation's. Empty
    otherwise."""
    prior, named, cues = reading.prior, reading.named, reading.cues
    if prior is None or not prior.drugs or reading.unknown or len(named) != 1:
        return []
    if named[0].drug_id in prior.drugs:
        return []
    if reading.attribute not in (None, INTERACTION_SECTION) or reverse_lookup(cues) or cues.has("new_topic"):
        return []
    if refers_back(reading.turn.message, cues, named):  # "nó", "thuốc này": the follow-up binds it, said
        return []
    return list(prior.drugs) if cues.has("interaction") else []


def _beside_what_is_taken(reading: Reading, prior: QueryFrame, taken: Sequence[str]) -> dict[str, Any]:
    """The added drug asked about for the conversation's patient, who now takes the conversation's
    drugs: its own lines about them and its pairs with each drug taken (the plan's
    beside-medicines reply)."""
    names = reading.turn.candidates.names
    context = merged_context(reading.facts.patient_context(), prior.patient_context)
    medicines = (*context.current_medications, *(names.get(d, (d,))[0] for d in taken))
    context = context.model_copy(update={"current_medications": tuple(dict.fromkeys(medicines))})
    frame = reading.frame()
    for name in ("population", "weight_kg", "age_text", "route"):
        frame[name] = frame[name] if frame[name] is not None else getattr(prior, name)
    return {
        **frame,
        "patient_context": context.model_dump(),
        "turn_type": "drug_attribute",
        "attribute": None,
        **CONTINUED,
    }


def _patient_medicine_ids(turn: Turn) -> list[str]:
    """The catalogue drugs among the medicines the prior frame says the patient takes, as the
    conversation named them."""
    prior = turn.prior
    taken = " ".join(fold(m) for m in prior.patient_context.current_medications) if prior else ""
    named = (m for line in turn.candidates.history for m in line.matches)
    return list(dict.fromkeys(m.drug_id for m in named if fold(m.matched_text) in taken))


def _with_patient_medicines(reading: Reading) -> list[str]:
    """The medicines the conversation's patient takes, when this turn asks whether one other drug
    may be taken: the question is the two together. Empty when the turn asks something else of the
    drug (a section, its overview)."""
    named = reading.named
    if reading.prior is None or reading.attribute not in (None, INTERACTION_SECTION) or len(named) != 1:
        return []
    if reading.cues.has("overview"):
        return []
    taken = _patient_medicine_ids(reading.turn)
    # one the patient already takes is asked for them (its pairs beside it), not as a new combination
    return [] if named[0].drug_id in taken else [d for d in taken if d != named[0].drug_id]


def _interaction_kept(reading: Reading) -> list[str]:
    """An elliptical turn after an interaction question: the same question with one drug swapped.
    Kept are the patient's own medicines of the prior pair, else the drugs other than one of the new
    drug's ATC chemical subgroup (its class-mate's place), else the first. Empty for no such turn."""
    turn, cues, named, prior = reading.turn, reading.cues, reading.named, reading.prior
    if (
        prior is None
        or prior.turn_type != "interaction"
        or not refers_back(turn.message, cues, named)
        or reading.attribute
        or cues.has("overview")
        or len(named) != 1
        or named[0].drug_id in prior.drugs
    ):
        return []
    own = [d for d in _patient_medicine_ids(turn) if d in prior.drugs]
    if own:
        return own
    alike = turn.candidates.alike(named[0].drug_id, prior.drugs)
    unlike = [d for d in prior.drugs if d not in alike]
    return unlike if alike and unlike else list(prior.drugs[:1])
