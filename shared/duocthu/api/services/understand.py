"""The understand function: a turn (+ history, prior frame) -> QueryFrame."""

from __future__ import annotations

from duocthu.api.models import UnderstandRequest
from duocthu.api.runtime import Runtime
from duocthu.api.turn_limits import within_limits
from duocthu.core.deadline import Deadline, LambdaContextLike
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan
from duocthu.understanding import pipeline as understanding
from duocthu.understanding.providers import get_frame_provider
from duocthu.understanding.several_asks import Understand, plan_message
from duocthu.understanding.tags import MessageReader


def understand(
    runtime: Runtime,
    request: UnderstandRequest,
    context: LambdaContextLike | None = None,
    reader: MessageReader | None = None,
) -> QueryFrame:
    """The turn's frame, from the provider the settings choose, within the invocation's deadline.
    A provider fault is a frame with system_error; the caller decides what that means (the
    understand function answers 503/502, chat abstains)."""
    _, resolver = runtime.ready()
    settings = runtime.settings
    deadline = Deadline.for_invocation(
        context, settings.understanding_deadline_margin_ms, settings.understanding_timeout_s
    )
    frame = understanding.understand_read(
        request.message,
        reader or MessageReader(resolver),
        get_frame_provider(settings),
        deadline,
        request.history,
        request.prior_frame,
        request.subject_scope,
    )
    return within_limits(frame)


def plan(runtime: Runtime, request: UnderstandRequest, understand_clause: Understand) -> Plan:
    """The turn's plan: its words read once against its frame, and what it needs; a message of
    several asks, one part per ask clause (`understanding.several_asks`), each clause understood by
    `understand_clause`."""
    _, resolver = runtime.ready()
    return plan_message(request.message, request.history, request.prior_frame, understand_clause, resolver)
