"""Turns run through the understanding pipeline for the tests: a scripted provider, and a
conversation read by the offline provider turn by turn."""

from __future__ import annotations

from typing import Any

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.models.frame import QueryFrame
from duocthu.tools.evals.understanding import make_understander, understand_conversation
from duocthu.understanding.candidates import Turn
from duocthu.understanding.pipeline import understand
from duocthu.understanding.rules.provider import OfflineFrameProvider


class Scripted:
    """A provider that returns a fixed raw frame (or raises), recording the turns it saw."""

    name = "scripted"

    def __init__(self, output: Any = None, error: Exception | None = None):
        self.output, self.error, self.turns = output, error, []

    def propose(self, turn: Turn, deadline: Deadline) -> Any:
        self.turns.append(turn)
        if self.error:
            raise self.error
        return self.output


def run(
    resolver: CatalogDrugResolver,
    message: str,
    output: Any = None,
    error: Exception | None = None,
    history: tuple[str, ...] = (),
    prior: QueryFrame | None = None,
) -> QueryFrame:
    return understand(message, resolver, Scripted(output, error), Deadline.after(5), history, prior)


def conversation(resolver: CatalogDrugResolver, *turns: str) -> QueryFrame:
    frame = understand_conversation(turns, make_understander(resolver, OfflineFrameProvider()))
    assert frame is not None
    return frame
