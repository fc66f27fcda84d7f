"""Three or more drugs asked together: per pair, the sentences of each drug's interaction section
that name the other, never every section in full; each whole section a quick reply away."""

from __future__ import annotations

from duocthu.answer.interaction_lines import InteractionLines
from duocthu.answer.replies.context import Composed, Composer, compact, lines_block
from duocthu.models.evidence import EvidenceBundle, GatheredEvidence
from duocthu.models.plan import Plan
from duocthu.models.reply import Block, PairsBlock


def interaction_lines(composer: Composer, plan: Plan, evidence: GatheredEvidence) -> InteractionLines:
    return InteractionLines(
        composer.titles, plan.names, evidence.section, plan.together, plan.reading.joined_unknown_names
    )


def pairs(composer: Composer, plan: Plan, evidence: GatheredEvidence, bundle: EvidenceBundle) -> Composed:
    # how the question was read (a shorthand, a name quoted where the pairs name it) follows the pairs
    said, notes = composer.wording.said_and_notes(plan, bundle)
    found = interaction_lines(composer, plan, evidence)
    lines = found.lines(bundle, sum(len(line) + 1 for line in (*said, *notes)))
    block = PairsBlock(
        drugs=found.known, unknown_names=found.unknown, pairs=found.pairs(bundle), lines=tuple(lines)
    )
    body: list[Block] = [*lines_block(said), block, *lines_block(notes)]
    return compact(composer, plan, bundle, body, found.quick_replies())
