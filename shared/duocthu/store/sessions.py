"""Conversation state: the prior frame and the last turns of a session.

One interface, two implementations: DynamoDB (on-demand, TTL) in AWS, JSON files under the data
folder locally. A failing store is never a failed answer: callers catch ConversationUnavailable,
answer statelessly and report `conversation_store_unavailable`.

Concurrent turns on one session never lose one: every state carries the `version` it was read at,
and a save writes version + 1 only if the stored version is still the one read (a DynamoDB
condition expression; an exclusive file lock around read-compare-write locally). When another turn
saved first, the new exchange is re-applied on top of what that turn stored, and saved again.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from duocthu.core.deadline import DeadlineExceeded, refuse_late_attempts
from duocthu.models.frame import QueryFrame
from duocthu.settings import Settings

MAX_TURNS = 6  # three exchanges: enough to resolve "nó", "còn trẻ em thì sao?"
MAX_FEEDBACK = 20  # a session's reports kept; the metric counts every one
SESSION_TTL_S = 24 * 3600
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Turn(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["user", "assistant"]
    content: str


class Feedback(BaseModel):
    """A clinician's "Báo lỗi" on one turn: the turn's id (the request id its logs carry) and a note."""

    model_config = ConfigDict(frozen=True)

    turn_id: str
    note: str | None = None
    at: float = Field(default_factory=time.time)


class ConversationState(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    prior_frame: QueryFrame | None = None
    turns: tuple[Turn, ...] = ()
    feedback: tuple[Feedback, ...] = ()  # kept beside the turns, MAX_FEEDBACK at most
    updated_at: float = Field(default_factory=time.time)
    version: int = 0  # how many saves the stored state has seen; 0: never saved
    added: tuple[Turn, ...] = Field(default=(), exclude=True)  # this turn's exchange, not yet saved
    added_feedback: tuple[Feedback, ...] = Field(default=(), exclude=True)  # likewise

    def with_turn(self, user: str, assistant: str, frame: QueryFrame | None) -> ConversationState:
        added = (Turn(role="user", content=user), Turn(role="assistant", content=assistant))
        turns = (*self.turns, *added)[-MAX_TURNS:]
        return self.model_copy(update={"prior_frame": frame, "turns": turns, "added": added})

    def with_feedback(self, feedback: Feedback) -> ConversationState:
        kept = (*self.feedback, feedback)[-MAX_FEEDBACK:]
        return self.model_copy(update={"feedback": kept, "added_feedback": (feedback,)})

    def rebased(self, base: ConversationState) -> ConversationState:
        """This save's additions (an exchange, a feedback) on top of `base` (what another save
        stored meanwhile)."""
        return ConversationState(
            session_id=self.session_id,
            prior_frame=self.prior_frame if self.added else base.prior_frame,
            turns=(*base.turns, *self.added)[-MAX_TURNS:],
            feedback=(*base.feedback, *self.added_feedback)[-MAX_FEEDBACK:],
            version=base.version,
            added=self.added,
            added_feedback=self.added_feedback,
        )

    def saved(self) -> ConversationState:
        """What the store holds after this state is saved."""
        return self.model_copy(update={"version": self.version + 1, "updated_at": time.time()})

    def history(self) -> list[str]:
        return [t.content for t in self.turns if t.role == "user"]


class ConversationUnavailable(RuntimeError):
    """The conversation store failed; the turn goes on without state."""


class ConversationStore(Protocol):
    backend: str

    def load(self, session_id: str) -> ConversationState | None: ...

    def save(self, state: ConversationState) -> None: ...

    def ping(self) -> None:
        """Raise ConversationUnavailable when the store cannot answer (for /health)."""
        ...


def new_session_id() -> str:
    """An id only this server issues: 128 random bits, URL-safe (22 characters), never opening
    with "-" (a command line would read it as an option: `duocthu ask … --session ID`)."""
    while (session_id := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return session_id


def valid_session_id(session_id: str) -> bool:
    return bool(_SESSION_ID.match(session_id))


SAVE_ATTEMPTS = 5  # a save that lost the race re-applies its exchange this many times at most


class FileConversationStore:
    """Local, embedded: one JSON file per session under `<data_dir>/sessions/`, saved under an
    exclusive lock on `<session>.lock` (threads and processes alike)."""

    backend = "file"
    SWEEP_EVERY_S = 3600.0

    def __init__(self, folder: Path, ttl_s: int = SESSION_TTL_S):
        self.folder = Path(folder)
        self.ttl_s = ttl_s
        self._swept_at = 0.0

    def sweep(self) -> int:
        """Deletes the session files idle past the TTL (the table's TTL does it in DynamoDB): the
        messages they hold are not kept longer than the session is usable. Returns how many."""
        now, removed = time.time(), 0
        self._swept_at = now
        for path in self.folder.glob("*.json"):
            with contextlib.suppress(OSError):  # another process removed or rewrote it meanwhile
                if now - path.stat().st_mtime > self.ttl_s:
                    path.unlink()
                    path.with_suffix(".lock").unlink(missing_ok=True)
                    removed += 1
        return removed

    def _path(self, session_id: str, suffix: str = ".json") -> Path:
        if not valid_session_id(session_id):
            raise ValueError("invalid session id")
        return self.folder / f"{session_id}{suffix}"

    def _read(self, session_id: str) -> ConversationState | None:
        try:
            return ConversationState.model_validate_json(self._path(session_id).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValidationError) as err:
            raise ConversationUnavailable(str(err)) from err

    def _live(self, state: ConversationState | None) -> ConversationState | None:
        return None if state is None or time.time() - state.updated_at > self.ttl_s else state

    def load(self, session_id: str) -> ConversationState | None:
        return self._live(self._read(session_id))

    def save(self, state: ConversationState) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with self._path(state.session_id, ".lock").open("a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                stored = self._live(self._read(state.session_id))
                if (stored.version if stored else 0) != state.version:
                    state = state.rebased(stored or ConversationState(session_id=state.session_id))
                fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(state.saved().model_dump_json())
                os.replace(tmp, self._path(state.session_id))
        except OSError as err:
            raise ConversationUnavailable(str(err)) from err
        if time.time() - self._swept_at > self.SWEEP_EVERY_S:  # at most hourly, after a save
            self.sweep()

    def ping(self) -> None:
        if self.folder.exists() and not os.access(self.folder, os.W_OK):
            raise ConversationUnavailable("the sessions folder is not writable")


class DynamoConversationStore:
    """AWS: one item per session, `expires_at` as the table's TTL attribute, `version` for the
    conditional write."""

    backend = "dynamodb"
    PROBE_KEY = "health-probe"  # never issued: new_session_id is 22 URL-safe characters

    def __init__(self, table: Any, ttl_s: int = SESSION_TTL_S):
        self.table = table  # a boto3 DynamoDB Table resource
        self.ttl_s = ttl_s

    def _get(self, session_id: str) -> dict[str, Any] | None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            item = self.table.get_item(Key={"session_id": session_id}, ConsistentRead=True).get("Item")
        except (BotoCoreError, ClientError, DeadlineExceeded) as err:
            raise ConversationUnavailable(str(err)) from err
        except (AttributeError, TypeError, ValueError) as err:  # JSON, but not a GetItem reply
            raise ConversationUnavailable(f"malformed DynamoDB reply: {err}") from err
        # TTL deletion is lazy (up to days): an expired item is treated as absent
        return item if item and int(item.get("expires_at", 0)) >= time.time() else None

    def load(self, session_id: str) -> ConversationState | None:
        item = self._get(session_id)
        if item is None:
            return None
        try:
            state = ConversationState.model_validate_json(str(item["state"]))
        except (KeyError, ValidationError) as err:
            raise ConversationUnavailable(f"unreadable session item: {err}") from err
        return state.model_copy(update={"version": int(item.get("version", state.version))})

    def save(self, state: ConversationState) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        for _ in range(SAVE_ATTEMPTS):
            saved = state.saved()
            now = int(time.time())
            item = {
                "session_id": state.session_id,
                "state": saved.model_dump_json(),
                "version": saved.version,
                "expires_at": now + self.ttl_s,
            }
            try:
                self.table.put_item(
                    Item=item,
                    # the version read is still the stored one, or nothing live is stored
                    ConditionExpression="attribute_not_exists(session_id) OR version = :read "
                    "OR expires_at < :now",
                    ExpressionAttributeValues={":read": state.version, ":now": now},
                )
                return
            except ClientError as err:
                if err.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                    raise ConversationUnavailable(str(err)) from err
            except (BotoCoreError, DeadlineExceeded) as err:
                raise ConversationUnavailable(str(err)) from err
            latest = self.load(state.session_id)
            state = state.rebased(latest or ConversationState(session_id=state.session_id))
        raise ConversationUnavailable(f"session kept changing: {SAVE_ATTEMPTS} saves lost the race")

    def ping(self) -> None:
        self._get(self.PROBE_KEY)


# DynamoDB answers a get or a put in milliseconds: short timeouts and one retry, and no attempt
# started that could outlast the turn's deadline (botocore's defaults wait 60 s per attempt).
DYNAMODB_CONNECT_S = 1.0
DYNAMODB_READ_S = 2.0
DYNAMODB_ATTEMPTS = 2


def require_json_reply(http_response: Any, **_: Any) -> None:
    """botocore parses a 200 whose body is not JSON (a proxy's HTML page, an empty body) as `{}`,
    which a get would read as "no such session": a malformed reply is the store failing."""
    if http_response is None or http_response.status_code != 200:
        return
    try:
        reply = json.loads(http_response.content or b"null")
    except ValueError as err:
        raise ConversationUnavailable(f"DynamoDB replied with a body that is not JSON: {err}") from err
    if not isinstance(reply, dict):
        raise ConversationUnavailable("DynamoDB replied with a JSON body that is not an object")


def dynamodb_table(name: str) -> Any:
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=DYNAMODB_CONNECT_S,
        read_timeout=DYNAMODB_READ_S,
        retries={"mode": "standard", "total_max_attempts": DYNAMODB_ATTEMPTS},
    )
    resource = boto3.resource("dynamodb", config=config)
    resource.meta.client.meta.events.register(
        "before-send.dynamodb", refuse_late_attempts(DYNAMODB_CONNECT_S + DYNAMODB_READ_S)
    )
    resource.meta.client.meta.events.register("after-call.dynamodb", require_json_reply)
    return resource.Table(name)


def open_conversation_store(settings: Settings) -> ConversationStore:
    if settings.conversation_table:
        return DynamoConversationStore(dynamodb_table(settings.conversation_table), settings.session_ttl_s)
    return FileConversationStore(settings.data_dir / "sessions", settings.session_ttl_s)


@lru_cache(maxsize=4)
def get_conversation_store(settings: Settings) -> ConversationStore:
    """One store (and boto3 resource) per process."""
    return open_conversation_store(settings)
