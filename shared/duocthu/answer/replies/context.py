"""What every composer is given besides the plan and the evidence, and what each returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from duocthu.answer.blocks import sample_notice, source_notice, source_of, text_block, verify_notice
from duocthu.answer.generation import Answer, citations_of
from duocthu.answer.lines import AnswerLines
from duocthu.answer.wording import ReplyWording
from duocthu.core.vocabulary import Reason, SystemError
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.plan import Plan
from duocthu.models.reply import Block, Reply


class Generator(Protocol):
    def generate(self, question: str, bundle: EvidenceBundle, *, sample_data: bool) -> Answer: ...


@dataclass(frozen=True)
class Composer:
    wording: ReplyWording
    generator: Generator
    sample_data: bool

    @property
    def titles(self) -> dict[str, str]:
        return self.wording.titles


@dataclass(frozen=True)
class Composed:
    """A turn's reply and the evidence it stands on (its decision, reason and citations)."""

    reply: Reply
    bundle: EvidenceBundle
    citations: tuple[str, ...] = ()
    system_error: SystemError | None = None
    answer_lines: AnswerLines | None = None  # the answering sentences, quoted first (answer.lines)


def abstain(reason: Reason, system_error: SystemError | None = None) -> EvidenceBundle:
    return EvidenceBundle(decision="ABSTAIN", reason=reason, system_error=system_error)


def quick_replies(plan: Plan, replies: Sequence[str] = ()) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*plan.frame.quick_replies, *replies]))


def compact(
    composer: Composer,
    plan: Plan,
    bundle: EvidenceBundle,
    body: Sequence[Block],
    replies: Sequence[str],
    answer_lines: AnswerLines | None = None,
) -> Composed:
    """A reply of quoted lines only (the whole sections stay its evidence and citations, each a
    quick reply away), with the notices an extractive answer carries."""
    blocks: list[Block] = [verify_notice()] if bundle.decision == "VERIFY_PDF" else []
    blocks += body
    blocks += [source] if (source := source_notice(bundle)) else []
    if composer.sample_data:
        blocks.append(sample_notice())
    reply = Reply(blocks=tuple(blocks), quick_replies=quick_replies(plan, replies), source=source_of(bundle))
    return Composed(reply, bundle, citations_of(bundle.evidence), answer_lines=answer_lines)


def lines_block(lines: Sequence[str]) -> list[Block]:
    return [text_block(lines)] if lines else []
