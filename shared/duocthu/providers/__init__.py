"""Outside services behind small interfaces, and the one place that picks them from settings.

Query understanding: a `FrameProvider` proposes a frame (the tool input a model returned, or the
offline provider's rules) for a turn whose candidates are already bounded. Validation,
post-conditions and the prior-frame merge happen afterwards, in `duocthu.understanding.pipeline`, the same
for every provider. A provider that is configured but failing is a fault reported as such
(`system_error`), never a silent switch to another provider.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from duocthu.settings import DEFAULT_UNDERSTANDING_MODEL_ID, Settings
from duocthu.understanding.candidates import Turn


class ProviderUnavailable(RuntimeError):
    """The provider could not be used for this turn: throttled, timed out, refused, unreachable."""


class MalformedOutput(RuntimeError):
    """The provider answered, but with nothing usable as a frame."""


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


class FrameProvider(Protocol):
    name: str

    def propose(self, turn: Turn, deadline: Deadline) -> dict[str, Any]:
        """The raw frame (JSON object) for the turn; raises ProviderUnavailable or MalformedOutput."""
        ...


def frame_provider(settings: Settings) -> FrameProvider:
    """The understanding provider the settings ask for: offline unless a model is configured."""
    if settings.understanding_backend == "offline":
        from duocthu.understanding.rules.provider import OfflineFrameProvider

        return OfflineFrameProvider()
    from duocthu.providers.bedrock import BedrockFrameProvider, bedrock_runtime_client

    return BedrockFrameProvider(
        client=bedrock_runtime_client(settings),
        model_id=settings.understanding_model_id or DEFAULT_UNDERSTANDING_MODEL_ID,
        max_tokens=settings.understanding_max_tokens,
        read_timeout_s=settings.bedrock_read_timeout_s,
    )


@lru_cache(maxsize=4)
def get_frame_provider(settings: Settings) -> FrameProvider:
    """The provider for these settings, built once per process (a container's clients are reused)."""
    return frame_provider(settings)
