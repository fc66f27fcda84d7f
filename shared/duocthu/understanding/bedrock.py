"""The Bedrock understanding provider: one Converse call with the frame as a forced tool (the
prompt in `duocthu.understanding.prompt`), its tool input returned as the proposed frame.

What the model writes is untrusted. Before the pipeline validates it:
- a field the tool schema does not offer, or whose JSON type is not the schema's, is dropped (a
  wrong-typed `turn_type` is malformed output), so no frame validator ever sees a type it does not
  expect and no field the pipeline derives (`indication`) is the model's;
- `clarify_reason` is replaced by the system's own question (which drug, or "nói rõ hơn");
- `quick_replies` keep only replies that are a candidate drug's name, written as the catalogue
  writes it;
- `unknown_drugs` keep only names the user typed (a whole-word span of the turn or its history),
  in the user's spelling; one that is a candidate drug's name is that drug, never "Không tìm thấy";
- the free texts a reply can quote back (`age_text`, a condition's `text`) are kept
  only when they are the user's own words (the same whole-word span); otherwise they are dropped,
  never shown as the model wrote them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput
from duocthu.core.phrases import contains_phrase
from duocthu.core.text import folded_words
from duocthu.models.frame import ASK_FOR_DRUG, MAX_QUICK_REPLIES
from duocthu.providers.bedrock import converse
from duocthu.understanding.candidates import Turn
from duocthu.understanding.prompt import (
    SYSTEM_PROMPT,
    TOOL_NAME,
    frame_tool_schema,
    tool_config,
    user_message,
)

log = logging.getLogger(__name__)

ASK_TO_REPHRASE = "Bạn có thể nói rõ hơn câu hỏi không?"
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "array": (list,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "object": (dict,),
    "null": (type(None),),
}


class BedrockFrameProvider:
    name = "bedrock"

    def __init__(
        self,
        client: Callable[[int], Any],
        model_id: str,
        max_tokens: int = 1024,
        read_timeout_s: float = 20.0,
    ):
        self.client_for = client
        self.model_id = model_id
        self.max_tokens = max_tokens
        self.read_timeout_s = read_timeout_s

    def request(self, turn: Turn) -> dict[str, Any]:
        """The Converse request for a turn (what the Stubber tests pin)."""
        text = user_message(turn.message, turn.history, turn.prior, turn.candidates)
        return {
            "modelId": self.model_id,
            "system": [{"text": SYSTEM_PROMPT}],
            "messages": [{"role": "user", "content": [{"text": text}]}],
            "toolConfig": tool_config(),
            "inferenceConfig": {"maxTokens": self.max_tokens, "temperature": 0.0},
        }

    def propose(self, turn: Turn, deadline: Deadline) -> dict[str, Any]:
        response = converse(self.client_for, self.request(turn), deadline, self.read_timeout_s)
        return untrusted_frame(parse_tool_input(response), turn)


def parse_tool_input(response: dict[str, Any]) -> dict[str, Any]:
    """The forced tool's input from a Converse response; anything else is malformed output."""
    stop = response.get("stopReason")
    if stop == "max_tokens":
        raise MalformedOutput("the model ran out of tokens before finishing the frame")
    content = (response.get("output") or {}).get("message", {}).get("content") or []
    for block in content:
        use = block.get("toolUse") if isinstance(block, dict) else None
        if use and use.get("name") == TOOL_NAME:
            data = use.get("input")
            if isinstance(data, dict):
                return data
            raise MalformedOutput(f"the tool input is a {type(data).__name__}, not an object")
    raise MalformedOutput(f"no {TOOL_NAME} call in the response (stopReason={stop!r})")


# --- What the model wrote, made safe to show ---------------------------------------------------


def _allowed(prop: dict[str, Any]) -> tuple[type, ...] | None:
    """The Python types a schema property admits, or None when it does not say."""
    kinds = [prop.get("type")] + [option.get("type") for option in prop.get("anyOf", [])]
    found = tuple(t for kind in kinds if isinstance(kind, str) for t in _JSON_TYPES.get(kind, ()))
    return found or None


def _part(prop: dict[str, Any], key: str) -> Any:
    """`prop[key]`, or the first of its anyOf options that has one (a nullable list or object)."""
    return prop.get(key) or next((o[key] for o in prop.get("anyOf", []) if key in o), None)


def _well_typed(value: Any, prop: dict[str, Any]) -> bool:
    """Whether the value has the schema's type, down through list items and object fields."""
    allowed = _allowed(prop)
    if allowed is not None and (
        not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed)
    ):
        return False  # (JSON true is no number)
    items, fields = _part(prop, "items"), _part(prop, "properties")
    if isinstance(value, list) and isinstance(items, dict):
        return all(_well_typed(item, items) for item in value)
    if isinstance(value, dict) and isinstance(fields, dict):
        return all(_well_typed(v, fields[k]) for k, v in value.items() if k in fields)
    return True


def typed_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields the tool schema offers, with its JSON type; the others dropped (and logged)."""
    properties = frame_tool_schema()["properties"]
    kept = {k: v for k, v in data.items() if k in properties and _well_typed(v, properties[k])}
    dropped = sorted(set(data) - set(kept))
    if "turn_type" in dropped:
        raise MalformedOutput(f"turn_type is a {type(data['turn_type']).__name__}, not a string")
    if dropped:
        log.warning("dropping model frame fields not offered or of the wrong type: %s", dropped)
    return kept


def _span(name: str, texts: Sequence[str]) -> bool:
    """Whether `name` occurs as whole words in one of the texts (folded)."""
    return bool(folded_words(name)) and any(contains_phrase(text, name) for text in texts)


def _candidate_of(name: str, turn: Turn) -> str | None:
    """The candidate drug whose id or one of whose names `name` is (folded, whole)."""
    key = folded_words(name)
    for drug_id, names in turn.candidates.names.items():
        if key in (folded_words(drug_id.replace("_", " ")), *(folded_words(n) for n in names)):
            return drug_id
    return None


def untrusted_frame(data: dict[str, Any], turn: Turn) -> dict[str, Any]:
    """The model's frame with nothing it wrote left to reach the user verbatim (fields it did not
    write stay unwritten)."""
    clean = typed_fields(data)
    drugs = list(clean.get("drugs") or [])
    unknown: list[str] = []
    for name in clean.get("unknown_drugs") or []:
        drug_id = _candidate_of(name, turn)
        if drug_id:
            drugs.append(drug_id)  # a drug of the catalogue the user named: resolved, not unknown
        elif _span(name, (turn.message, *turn.history)):
            unknown.append(name)
        else:
            log.warning("dropping an unknown drug the user never named")
    if "unknown_drugs" in clean:
        clean["drugs"], clean["unknown_drugs"] = list(dict.fromkeys(drugs)), unknown
    if clean.get("clarify_reason") is not None or clean.get("needs_clarify"):
        clean["clarify_reason"] = ASK_TO_REPHRASE if drugs or unknown else ASK_FOR_DRUG
    if clean.get("quick_replies"):
        names = turn.candidates.names
        replies = [
            names[d][0] for r in clean["quick_replies"] if (d := _candidate_of(r, turn)) and d in names
        ]
        clean["quick_replies"] = list(dict.fromkeys(replies))[:MAX_QUICK_REPLIES]
    _keep_users_words(clean, (turn.message, *turn.history))
    return clean


def _keep_users_words(clean: dict[str, Any], texts: Sequence[str]) -> None:
    """Drops the free texts a reply may quote back unless the user wrote them."""
    if isinstance(clean.get("age_text"), str) and not _span(clean["age_text"], texts):
        log.warning("dropping a model-written age the user never wrote")
        del clean["age_text"]
    condition = clean.get("condition")
    if isinstance(condition, dict) and not _span(str(condition.get("text") or ""), texts):
        log.warning("dropping a model-written condition the user never wrote")
        del clean["condition"]
