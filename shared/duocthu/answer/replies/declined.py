"""The replies that quote no evidence: a decline that says why, a question back, small talk, and an
abstention after retrieval found nothing to answer from. Never "safe", never a guess."""

from __future__ import annotations

from dataclasses import replace

from duocthu.answer.blocks import notice
from duocthu.answer.replies.context import Composed, Composer, abstain, quick_replies
from duocthu.answer.wording import ABSTAIN_REPLIES, SMALLTALK_REPLY, ReplyWording
from duocthu.catalog.world_drugs import world_drug
from duocthu.core.vocabulary import SystemError
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.plan import Plan
from duocthu.models.reply import Reply

_DEFAULT = "Không đủ bằng chứng từ Dược thư để trả lời."
_NOT_DONE_THEN_QUOTED = (
    "Việc này (soạn văn bản, chẩn đoán, tính hay quy đổi liều) nằm ngoài nội dung Dược thư Quốc gia "
    "Việt Nam nên tôi không làm thay; dưới đây là những câu liên quan trong chuyên luận."
)
_CLARIFY = "Bạn có thể nói rõ hơn câu hỏi không?"


def declined(composer: Composer, plan: Plan) -> Composed:
    """A turn the plan answers without evidence."""
    frame = plan.frame
    if plan.reply == "smalltalk":
        reply = Reply(blocks=(notice("smalltalk", SMALLTALK_REPLY),))
        return Composed(reply, abstain("smalltalk"))
    if plan.reply == "clarify":
        text = frame.clarify_reason or _CLARIFY
        reply = Reply(blocks=(notice("clarify", text),), quick_replies=quick_replies(plan))
        return Composed(reply, abstain("needs_clarification"))
    reason = plan.reason or "out_of_scope"
    system_error = frame.system_error if reason == "dependency_unavailable" else None
    bundle = abstain(reason, system_error)
    if reason == "unknown_drug" and frame.unknown_drugs and not frame.drugs:
        unknown = frame.unknown_drugs
        if all(world_drug(name) for name in unknown):  # real drugs this formulary has no monograph of
            said = ReplyWording.without_monograph(unknown)
            text = f"{said}; tôi chỉ trả lời từ Dược thư nên không nói thêm."
        else:
            text = f"Không tìm thấy {ReplyWording.quoted(unknown)} trong Dược thư nên tôi không có thông tin."
        return _said(plan, bundle, text)
    return abstained(composer, plan, bundle)


def said_first(composed: Composed) -> Composed:
    """A request the assistant does not do, about a drug whose monograph has lines that help: why
    it is not done, first, then the quotes (never the quotes as if they were what was asked)."""
    blocks = (notice("decline", _NOT_DONE_THEN_QUOTED), *composed.reply.blocks)
    return replace(composed, reply=composed.reply.model_copy(update={"blocks": blocks}))


def abstained(composer: Composer, plan: Plan, bundle: EvidenceBundle) -> Composed:
    """The evidence does not answer: why, in the turn's own terms where the wording has them."""
    text = composer.wording.abstain_text(plan, bundle)
    return _said(plan, bundle, text or ABSTAIN_REPLIES.get(bundle.reason, _DEFAULT))


def _said(plan: Plan, bundle: EvidenceBundle, text: str) -> Composed:
    reply = Reply(blocks=(notice("decline", text),), quick_replies=quick_replies(plan))
    return Composed(reply, bundle)


def unavailable(system_error: SystemError, quick_replies: tuple[str, ...] = ()) -> Composed:
    """A dependency failed (the store, a provider, a state of the machine): the documented ABSTAIN,
    which says nothing about any drug."""
    text = ABSTAIN_REPLIES["dependency_unavailable"]
    reply = Reply(blocks=(notice("decline", text),), quick_replies=quick_replies)
    return Composed(reply, abstain("dependency_unavailable", system_error))
