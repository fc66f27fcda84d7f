"""A message -> its plan, one part per ask when a clinician wrote several questions in it.

Each ask clause (`understanding.clauses`) is understood as a short conversation: the clauses before
it are its history and the frame of the one before is its prior frame, so a later clause keeps the
drug and the patient an earlier one named, as a follow-up turn does. Each clause is planned on its
own (`plan_turn`): its own frame, section and asks. A message whose clauses come to one ask (the
same drug and section asked twice, a clause that asks nothing answerable) is understood whole, as
it always was: several asks never change the reply to one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan
from duocthu.understanding.asked_among import asked_among, candidates_listed, without_candidates
from duocthu.understanding.clauses import ask_clauses, asked_or_instead, asks_what
from duocthu.understanding.merge import TOGETHER
from duocthu.understanding.plan import beside_what_is_taken, plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.tags import MessageReader, MessageTags

# (message, history of user turns, prior frame, the request's reader) -> frame
Understand = Callable[[str, Sequence[str], QueryFrame | None, MessageReader], QueryFrame]
# A clause planned as one of these adds no ask of its own: it only repeats the context
_NO_ASK = frozenset({"clarify", "smalltalk"})
# Declines a clause read alone may give for words it shares with the clause before it
_LOST_ALONE = frozenset({"out_of_scope", "needs_clarification"})


def plan_message(
    message: str,
    history: Sequence[str],
    prior: QueryFrame | None,
    understand: Understand,
    resolver: CatalogDrugResolver,
) -> Plan:
    """The plan of a message: one ask as today, or one part per ask clause, in the message's order.
    Every line (the message, its clauses, the history) is read once, by one reader."""
    reader = MessageReader(resolver)
    listed = candidates_listed(reader.tags(message))
    if listed:
        # "trong A, B, C, thuốc nào …": the rest asked as a which-drug question, among them only
        rest = _plan_message(
            without_candidates(reader.tags(message), listed), history, prior, understand, reader
        )
        among = tuple(dict.fromkeys(m.drug_id for m in listed))
        # a medicine the conversation told is asked beside before a lookup among them
        carried = not rest.frame.drugs
        chosen = (
            (beside_what_is_taken(rest, among, resolver) if carried else None)
            or asked_among(rest, among)
            or (None if carried else beside_what_is_taken(rest, among, resolver))
        )
        if chosen is not None:
            return chosen
    return _plan_message(message, history, prior, understand, reader)


def _plan_message(
    message: str,
    history: Sequence[str],
    prior: QueryFrame | None,
    understand: Understand,
    reader: MessageReader,
) -> Plan:
    resolver = reader.resolver
    clauses = ask_clauses(
        message, lambda before, words: _names_its_own(reader.tags(before), reader.tags(words))
    )
    parts = _clause_plans(clauses, history, prior, understand, reader) if len(clauses) > 1 else ()
    if len(parts) < 2:
        frame = understand(message, history, prior, reader)
        whole = plan_turn(frame, turn_reading(reader.tags(message), frame, resolver), resolver)
        parts = _instead(parts, whole, clauses) or _or_instead(
            message, whole, history, prior, understand, reader
        )
        if len(parts) < 2:
            return whole
    last = parts[-1].frame  # the conversation as it stands after the message: what a follow-up carries on
    return Plan(
        reply="several_asks",
        frame=last,
        reading=turn_reading(reader.tags(message), last, resolver),
        asks=tuple(ask for part in parts for ask in part.asks),
        parts=parts,
    )


def _clause_plans(
    clauses: Sequence[str],
    history: Sequence[str],
    prior: QueryFrame | None,
    understand: Understand,
    reader: MessageReader,
) -> tuple[Plan, ...]:
    """One plan per clause that asks something of its own, each with the clauses it stands for
    (a clause that asks nothing answerable on its own goes with the part before it, or the first
    part: its words are answered there, never dropped); () when a clause failed to be understood
    (the whole message then goes as one turn, and says what failed)."""
    read: list[tuple[str, Plan | None]] = []
    told = list(history)
    frame = prior
    pointed: set[str] = set()  # the sections the earlier clauses' words pointed to
    for clause in clauses:
        read_as = understand(clause, told, frame, reader)
        if read_as.system_error:
            return ()
        told.append(clause)
        resolver, tags = reader.resolver, reader.tags(clause)
        asked = _asked_beside_taken(read_as, tags, read, resolver)
        plan = plan_turn(asked, turn_reading(tags, asked, resolver), resolver)
        own = _asks_of_its_own(tags, plan, pointed if read else None)
        read.append((clause, plan if own else None))
        # a clause that goes on with the one before it ("tối đa/ngày?") is read with it; the next
        # clause goes on from the conversation as the last clause asking its own left it (a
        # fragment read alone holds no drug, and would drop the one the message is about)
        frame = read_as if own or frame is None else frame
        pointed |= {*plan.reading.candidate_sections, *(a.section_key for a in plan.asks if a.section_key)}
    parts: dict[tuple[object, ...], Plan] = {}
    pending: list[str] = []  # clauses before the first part that asks something
    last: tuple[object, ...] | None = None
    for clause, clause_plan in read:
        if clause_plan is not None:
            last = _what_it_asks(clause_plan)
            if last in parts:
                # the same ask again: its later plan (the patient as told by then), in both wordings
                said = " ".join(filter(None, (parts[last].clause, *pending, clause)))
                parts[last], pending = _worded_as(clause_plan, said), []
                continue
            parts[last] = clause_plan
        elif last is None:
            pending.append(clause)
            continue
        joined = parts[last]
        said = " ".join(filter(None, (joined.clause, *pending, clause)))
        parts[last], pending = joined.model_copy(update={"clause": said}), []
    return _unsure_joined(list(parts.values()))


def _worded_as(plan: Plan, said: str) -> Plan:
    """The plan standing for the clauses `said`, its asks' words theirs."""
    asks = tuple(a.model_copy(update={"query": said}) if a.query else a for a in plan.asks)
    return plan.model_copy(update={"clause": said, "asks": asks})


def _instead(parts: Sequence[Plan], whole: Plan, clauses: Sequence[str]) -> tuple[Plan, ...]:
    """ "X được không, nếu không thì dùng gì?": a clause asks of a named drug and the message, read
    whole, asks which drug instead (its last clause, which alone asks nothing it can answer): both
    are asked, X's answer first, then the list. Else no parts."""
    first = parts[0] if len(parts) == 1 else None
    if first is None or whole.reply != "drug_list" or first.reply == "drug_list" or not first.frame.drugs:
        return ()
    said = " ".join(clauses[:-1])
    return (first.model_copy(update={"clause": said}), whole.model_copy(update={"clause": clauses[-1]}))


def _or_instead(
    message: str,
    whole: Plan,
    history: Sequence[str],
    prior: QueryFrame | None,
    understand: Understand,
    reader: MessageReader,
) -> tuple[Plan, ...]:
    """ "X được không hay dùng gì?" in one clause: read whole, a which-drug question that drops X;
    as `_instead`, X's question (the words before "hay") first, then the list. Else no parts."""
    split = asked_or_instead(message) if whole.reply == "drug_list" else None
    if split is None:
        return ()
    asked = split[0]
    frame = understand(asked, history, prior, reader)
    if frame.system_error:
        return ()
    first = plan_turn(frame, turn_reading(reader.tags(asked), frame, reader.resolver), reader.resolver)
    return _instead((first,), whole, split)


def _unsure_joined(parts: list[Plan]) -> tuple[Plan, ...]:
    """A part that commits to no section beside a part that does, about the same drug, is that part's
    question in other words: joined to it, unless its own words ask what (a question of its own)."""
    for part in [p for p in parts if _unsure(p) and not asks_what(p.clause or "")]:
        about = part.frame.drugs[:1]
        sure = next((p for p in parts if p.frame.drugs[:1] == about and not _unsure(p)), None)
        if sure is None:
            continue
        first, then = (part, sure) if parts.index(part) < parts.index(sure) else (sure, part)
        said = " ".join(filter(None, (first.clause, then.clause)))
        parts[parts.index(sure)] = sure.model_copy(update={"clause": said})
        parts.remove(part)
    return tuple(parts)


def _unsure(plan: Plan) -> bool:
    """No ask committed to a section; a decision for a patient the clause tells by age or weight
    ("Em bé 18 tháng … dùng được không?") is committed to the sections deciding it for them."""
    asks = [ask for ask in plan.asks if ask.kind != "whole_sections"]
    person = plan.frame.age_text is not None or plan.frame.weight_kg is not None
    return all(ask.kind == "monograph" and not (ask.with_patient and person) for ask in asks)


def _asked_beside_taken(
    frame: QueryFrame,
    clause: MessageTags,
    before: Sequence[tuple[str, Plan | None]],
    resolver: CatalogDrugResolver,
) -> QueryFrame:
    """A clause whose drugs are only medicines it tells the patient takes asks about the drug an
    earlier clause asked, beside them (a medicine taken is a fact to check against); a drug an
    earlier clause told as taken, which this clause asks about, is the drug asked. A clause asking
    nothing of its own about a medicine the patient takes asks it beside the drug asked before."""
    taken = set(clause.facts.current_medication_ids)
    earlier = [p.frame.drugs[0] for _, p in before if p is not None and p.frame.drugs]
    # the medicines the patient takes, told in this clause or an earlier one (the merged patient)
    told = {m.drug_id for text in frame.patient_context.current_medications for m in resolver.resolve(text)}
    if frame.drugs and frame.turn_type == "drug_overview" and set(frame.drugs) <= told:
        # a medicine the patient takes, asked of after a drug asked for them: the two together
        asked = next((d for d in reversed(earlier) if d in resolver.by_id and d not in told), None)
        together = {"drugs": (*frame.drugs, asked), **TOGETHER, "section_overview": False}
        return frame if asked is None else frame.model_copy(update=together)
    if not frame.drugs or not set(frame.drugs) <= taken:
        return frame
    asked = next((d for d in reversed(earlier) if d in resolver.by_id and d not in taken), None)
    return frame if asked is None else frame.model_copy(update={"drugs": (asked,)})


def _names_its_own(before: MessageTags, words: MessageTags) -> bool:
    """Words that name a drug the words before them did not, or a section beside the one those asked
    (or, after words that asked none, of a drug named again): after a closed question, a new one."""
    named = {m.drug_id for m in words.matches}
    asked, pointed = before.candidate_sections[:1], words.candidate_sections[:1]
    new_section = bool(set(pointed) - set(asked)) and bool(asked or named)
    return bool(named - {m.drug_id for m in before.matches}) or new_section


def _asks_of_its_own(clause: MessageTags, plan: Plan, pointed: set[str] | None) -> bool:
    """Whether a clause asks something the clauses before it did not (`pointed`: the sections
    their words pointed to; None for the first clause). Read alone, a clause may lose what the
    message asks: small talk, a question back, a decline of a request or of a word it read as a
    drug name. A later clause is an ask of its own when it names a drug in its own words, asks
    which drugs (not closed by "không": a yes-or-no question asks for no list), or its own words
    point first to a section the earlier clauses did not (not the section a follow-up's rules
    gave it); else it continues the question before it."""
    if plan.reply in _NO_ASK or (plan.reply == "decline" and plan.reason in _LOST_ALONE):
        return False
    # a drug outside the catalogue names the clause's subject as a catalogue name does
    names = bool(clause.matches) or bool(plan.reading.outside_formulary or plan.reading.outside_together)
    if plan.reply == "decline":
        return names
    # which drugs, asked by its words or by a list that no yes-or-no question asks for
    which = plan.reading.asks_which_drug or (plan.reply == "drug_list" and not plan.reading.yes_or_no)
    if pointed is None or names or which:
        return True
    # a decision for the patient it describes points to the sections deciding it (`plan.decision_sections`)
    deciding = [a.candidate_sections[:1] for a in plan.asks if a.with_patient]
    first = [*plan.reading.candidate_sections[:1], *(s for d in deciding for s in d)]
    return any(section not in pointed for section in first)


def _what_it_asks(plan: Plan) -> tuple[object, ...]:
    """Two clauses asking this of the same drugs are one ask (their wording aside); asking which
    drugs, of the same finding (two findings are two lists), unless for a patient the message
    describes: the drugs for them are one decision over the case, checked in one table."""
    lists = plan.frame.patient_context.is_empty()
    asks = tuple(
        (a.kind, a.drugs, a.section_key, a.unknown_names, None if a.drugs or not lists else a.query)
        for a in plan.asks
        if a.kind != "whole_sections"
    )  # the sections quoted beside the asked one follow from it
    return (plan.reply, plan.reason, asks)
