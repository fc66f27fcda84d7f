"""Exceptions that cross the service boundary."""

from __future__ import annotations


class DependencyUnavailable(RuntimeError):
    """A dependency (store, model provider) failed. Raised on direct invoke so that the state
    machine can retry it and then catch it into an ABSTAIN; over HTTP it becomes a 503."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


class ProviderUnavailable(RuntimeError):
    """The provider could not be used for this turn: throttled, timed out, refused, unreachable."""


class MalformedOutput(RuntimeError):
    """The provider answered, but with nothing usable (a frame, a ranking)."""


class EmbeddingUnavailable(RuntimeError):
    """The configured provider could not embed (not installed, throttled, timed out, refused)."""


class EmbeddingModelMismatch(RuntimeError):
    """The index's dense vectors were made by another model (or there are none): querying them
    with this provider would compare unrelated spaces. Re-ingest, or configure the index's model."""
