"""The turn's deadline: what every outside call is cut to, so a slow dependency ends inside the
Lambda's own time limit with its documented fallback instead of a gateway time-out."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol


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


# The deadline of the turn being served, for the clients built once per container (botocore's
# before-send hook reads it before every attempt, retries included).
TURN_DEADLINE: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("turn_deadline", default=None)


class DeadlineExceeded(RuntimeError):
    """No attempt of an outside call could finish inside the turn's deadline."""


@contextmanager
def turn_deadline(deadline: Deadline) -> Iterator[Deadline]:
    """Every outside call made inside this block is cut to `deadline`."""
    token = TURN_DEADLINE.set(deadline)
    try:
        yield deadline
    finally:
        TURN_DEADLINE.reset(token)


def refuse_late_attempts(attempt_s: float) -> Callable[..., None]:
    """A botocore before-send hook: an attempt that could take `attempt_s` (connect + read timeout)
    starts only when the turn's deadline leaves that much, so no retry outlives the deadline."""

    def hook(**_: Any) -> None:
        deadline = TURN_DEADLINE.get()
        if deadline is not None and deadline.remaining_s() < attempt_s:
            raise DeadlineExceeded(
                f"{deadline.remaining_s():.2f}s left in the turn, an attempt may take {attempt_s:.1f}s"
            )

    return hook
