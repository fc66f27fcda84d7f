"""The turn's deadline: what every outside call is cut to, so a slow dependency ends inside the
Lambda's own time limit with its documented fallback instead of a gateway time-out."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol


class LambdaContextLike(Protocol):
    def get_remaining_time_in_millis(self) -> int: ...


@dataclass(frozen=True)
class Deadline:
    """When this turn's provider work must be done (time.monotonic seconds)."""

    expires_at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    @classmethod
    def for_invocation(cls, context: LambdaContextLike | None, margin_ms: int, fallback_s: float) -> Deadline:
        """The Lambda's remaining time minus a margin (kept for shaping the response and logging);
        outside Lambda, a fixed budget."""
        if context is None:
            return cls.after(fallback_s)
        return cls.after(max(0, context.get_remaining_time_in_millis() - margin_ms) / 1000)

    def remaining_s(self) -> float:
        return max(0.0, self.expires_at - time.monotonic())
