"""The understanding provider: the one port a turn's frame is proposed through, and the one place
that picks it from settings.

A `FrameProvider` proposes a frame (the tool input a model returned, or the offline rules') for a
turn whose candidates are already bounded. Validation, post-conditions and the prior-frame merge
happen afterwards, in `duocthu.understanding.pipeline`, the same for every provider. A provider
that is configured but failing is a fault reported as such (`system_error`), never a silent
switch to another provider.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol

from duocthu.core.deadline import Deadline
from duocthu.settings import DEFAULT_UNDERSTANDING_MODEL_ID, Settings
from duocthu.understanding.candidates import Turn


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
    from duocthu.providers.bedrock import bedrock_runtime_client
    from duocthu.understanding.bedrock import BedrockFrameProvider

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
