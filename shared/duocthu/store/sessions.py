"""Conversation state: the prior frame and the last turns of a session.

One interface, two implementations: DynamoDB (on-demand, TTL) in AWS, JSON files under the data
folder locally. A failing store is never a failed answer: callers catch ConversationUnavailable,
answer statelessly and report `conversation_store_unavailable`.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from duocthu.models.frame import QueryFrame
from duocthu.settings import Settings

MAX_TURNS = 6  # three exchanges: enough to resolve "nó", "còn trẻ em thì sao?"
SESSION_TTL_S = 24 * 3600
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Turn(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["user", "assistant"]
    content: str


class ConversationState(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    prior_frame: QueryFrame | None = None
    turns: tuple[Turn, ...] = ()
    updated_at: float = Field(default_factory=time.time)

    def with_turn(self, user: str, assistant: str, frame: QueryFrame | None) -> ConversationState:
        turns = (*self.turns, Turn(role="user", content=user), Turn(role="assistant", content=assistant))
        return ConversationState(session_id=self.session_id, prior_frame=frame, turns=turns[-MAX_TURNS:])

    def history(self) -> list[str]:
        return [t.content for t in self.turns if t.role == "user"]


class ConversationUnavailable(RuntimeError):
    """The conversation store failed; the turn goes on without state."""


class ConversationStore(Protocol):
    backend: str

    def load(self, session_id: str) -> ConversationState | None: ...

    def save(self, state: ConversationState) -> None: ...


def new_session_id() -> str:
    return uuid.uuid4().hex


def valid_session_id(session_id: str) -> bool:
    return bool(_SESSION_ID.match(session_id))


class FileConversationStore:
    """Local, embedded: one JSON file per session under `<data_dir>/sessions/`."""

    backend = "file"

    def __init__(self, folder: Path, ttl_s: int = SESSION_TTL_S):
        self.folder = Path(folder)
        self.ttl_s = ttl_s

    def _path(self, session_id: str) -> Path:
        if not valid_session_id(session_id):
            raise ValueError("invalid session id")
        return self.folder / f"{session_id}.json"

    def load(self, session_id: str) -> ConversationState | None:
        path = self._path(session_id)
        try:
            state = ConversationState.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValidationError) as err:
            raise ConversationUnavailable(str(err)) from err
        return None if time.time() - state.updated_at > self.ttl_s else state

    def save(self, state: ConversationState) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(state.model_dump_json())
            os.replace(tmp, self._path(state.session_id))
        except OSError as err:
            raise ConversationUnavailable(str(err)) from err


class DynamoConversationStore:
    """AWS: one item per session, `expires_at` as the table's TTL attribute."""

    backend = "dynamodb"

    def __init__(self, table: Any, ttl_s: int = SESSION_TTL_S):
        self.table = table  # a boto3 DynamoDB Table resource
        self.ttl_s = ttl_s

    def load(self, session_id: str) -> ConversationState | None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            item = self.table.get_item(Key={"session_id": session_id}, ConsistentRead=True).get("Item")
        except (BotoCoreError, ClientError) as err:
            raise ConversationUnavailable(str(err)) from err
        # TTL deletion is lazy (up to days): an expired item is treated as absent
        if not item or int(item.get("expires_at", 0)) < time.time():
            return None
        try:
            return ConversationState.model_validate_json(str(item["state"]))
        except (KeyError, ValidationError) as err:
            raise ConversationUnavailable(f"unreadable session item: {err}") from err

    def save(self, state: ConversationState) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        item = {
            "session_id": state.session_id,
            "state": state.model_dump_json(),
            "expires_at": int(time.time()) + self.ttl_s,
        }
        try:
            self.table.put_item(Item=item)
        except (BotoCoreError, ClientError) as err:
            raise ConversationUnavailable(str(err)) from err


def open_conversation_store(settings: Settings) -> ConversationStore:
    if settings.conversation_table:
        import boto3

        table = boto3.resource("dynamodb").Table(settings.conversation_table)
        return DynamoConversationStore(table, settings.session_ttl_s)
    return FileConversationStore(settings.data_dir / "sessions", settings.session_ttl_s)


@lru_cache(maxsize=4)
def get_conversation_store(settings: Settings) -> ConversationStore:
    """One store (and boto3 resource) per process."""
    return open_conversation_store(settings)
