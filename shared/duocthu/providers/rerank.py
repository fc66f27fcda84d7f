"""Rerank providers for the free-form route (reference 09 §4): Cohere Rerank 3.5, either through the
Cohere API (the `cohere` SDK's `ClientV2`) or through Bedrock, and the one place that picks one.

- `CohereReranker`: `ClientV2.rerank`, key from COHERE_API_KEY or a Secrets Manager secret
  (COHERE_API_KEY_SECRET_ARN, read once and cached, with short timeouts of its own);
- `BedrockReranker`: Bedrock Runtime `InvokeModel` on `cohere.rerank-v3-5:0` with Cohere's rerank
  body (`query`, `documents`, `top_n`, `api_version: 2`), on the client factory query understanding
  uses (duocthu.providers.bedrock), with one attempt. The installed botocore also has Agents for
  Bedrock Runtime `Rerank`; InvokeModel is used so that every Bedrock call goes through one client
  factory and one IAM action (`bedrock:InvokeModel`).

Both make one attempt (no retries) with a short timeout that never outlasts the request's deadline:
reranking is an ordering aid, so a slow reranker must cost at most its timeout, after which the
route orders lexically and reports `rerank_unavailable`. A provider raises `ProviderUnavailable`
(unreachable, refused, timed out, too little time left) or `MalformedOutput` (an answer that is not
a ranking of the documents sent); the route treats any failure the same way (fail-open).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Literal

from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput, ProviderUnavailable
from duocthu.core.ports import Ranked, Reranker
from duocthu.settings import Settings

log = logging.getLogger(__name__)

COHERE_RERANK_MODEL = "rerank-v3.5"
BEDROCK_RERANK_MODEL = "cohere.rerank-v3-5:0"
# Below this much time left in the deadline a call cannot finish: skipped and reported. Bedrock's
# client takes whole-second read timeouts, so it needs a full second to stay inside the deadline.
MIN_COHERE_S = 0.2
MIN_BEDROCK_S = 1.0
SECRET_MAX_AGE_S = 300


def call_timeout(configured_s: float, deadline: Deadline, minimum_s: float) -> float:
    """The timeout of the one attempt: the configured one, cut to what the deadline has left."""
    remaining = deadline.remaining_s()
    if remaining < minimum_s:
        raise ProviderUnavailable(f"only {remaining:.2f}s left in the request's deadline")
    return min(configured_s, remaining)


def checked_ranking(pairs: Sequence[tuple[Any, Any]], documents: int, top_n: int) -> list[Ranked]:
    """(index, score) pairs -> a ranking, best first; anything but distinct in-range indices with
    numeric scores is malformed (a wrong index would attach a score to the wrong part)."""
    ranked: list[Ranked] = []
    seen: set[int] = set()
    for index, score in pairs:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < documents:
            raise MalformedOutput(f"rerank result index {index!r} is not one of {documents} documents")
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise MalformedOutput(f"rerank result score {score!r} is not a number")
        if index in seen:
            raise MalformedOutput(f"rerank result index {index} appears twice")
        seen.add(index)
        ranked.append(Ranked(index, float(score)))
    if not ranked:
        raise MalformedOutput("the reranker returned no results")
    return sorted(ranked, key=lambda r: -r.score)[:top_n]  # stable: the provider's order on ties


# -- the Cohere API ----------------------------------------------------------------------------


class CohereReranker:
    name: Literal["cohere", "bedrock"] = "cohere"

    def __init__(self, client: Any, model: str = COHERE_RERANK_MODEL, timeout_s: float = 2.0):
        self.client = client  # cohere.ClientV2
        self.model = model
        self.timeout_s = timeout_s

    def request(self, query: str, documents: Sequence[str], top_n: int) -> dict[str, Any]:
        """The `ClientV2.rerank` arguments (what the fake-transport tests pin, as JSON)."""
        return {"model": self.model, "query": query, "documents": list(documents), "top_n": top_n}

    def rerank(self, query: str, documents: Sequence[str], top_n: int, deadline: Deadline) -> list[Ranked]:
        import httpx
        from cohere.core.api_error import ApiError

        timeout = call_timeout(self.timeout_s, deadline, MIN_COHERE_S)
        try:
            response = self.client.rerank(
                **self.request(query, documents, top_n),
                request_options={"max_retries": 0, "timeout": timeout},
            )
        except (httpx.HTTPError, ApiError) as err:
            raise ProviderUnavailable(f"{type(err).__name__}: {err}") from err
        pairs = [(item.index, item.relevance_score) for item in response.results or ()]
        return checked_ranking(pairs, len(documents), top_n)


def cohere_api_key(settings: Settings) -> str | Callable[[], str]:
    """The key from the environment, else a function that reads the secret when the client first
    needs it: a Secrets Manager fault, or no key configured at all, is then a rerank failure
    (logged, reported as rerank_unavailable), never a failed cold start or a failed answer."""
    if settings.cohere_api_key:
        return settings.cohere_api_key
    arn = settings.cohere_api_key_secret_arn

    def from_secret() -> str:
        if not arn:
            raise ProviderUnavailable(
                "RERANK_PROVIDER=cohere needs COHERE_API_KEY or COHERE_API_KEY_SECRET_ARN"
            )
        from aws_lambda_powertools.utilities.parameters import SecretsProvider
        from botocore.config import Config

        quick = Config(connect_timeout=1, read_timeout=2, retries={"total_max_attempts": 1})
        return str(SecretsProvider(boto_config=quick).get(arn, max_age=SECRET_MAX_AGE_S))

    return from_secret


# -- Bedrock -----------------------------------------------------------------------------------


class BedrockReranker:
    name: Literal["cohere", "bedrock"] = "bedrock"

    def __init__(
        self, client: Callable[[int], Any], model: str = BEDROCK_RERANK_MODEL, timeout_s: float = 2.0
    ):
        self.client_for = client  # read timeout (whole seconds) -> bedrock-runtime client
        self.model = model
        self.timeout_s = timeout_s

    def request(self, query: str, documents: Sequence[str], top_n: int) -> dict[str, Any]:
        """The InvokeModel request (what the Stubber tests pin)."""
        body = {"query": query, "documents": list(documents), "top_n": top_n, "api_version": 2}
        return {
            "modelId": self.model,
            "body": json.dumps(body, ensure_ascii=False),
            "contentType": "application/json",
            "accept": "application/json",
        }

    def rerank(self, query: str, documents: Sequence[str], top_n: int, deadline: Deadline) -> list[Ranked]:
        from botocore.exceptions import BotoCoreError, ClientError

        # Whole seconds, rounded down: the attempt never outlasts the deadline.
        timeout = int(call_timeout(self.timeout_s, deadline, MIN_BEDROCK_S))
        try:
            response = self.client_for(max(1, timeout)).invoke_model(**self.request(query, documents, top_n))
            payload = json.loads(response["body"].read())
        except (ClientError, BotoCoreError) as err:
            raise ProviderUnavailable(f"{type(err).__name__}: {err}") from err
        except ValueError as err:  # not JSON
            raise MalformedOutput(f"unreadable rerank response: {err}") from err
        results = payload.get("results") if isinstance(payload, dict) else None
        if not isinstance(results, list):
            raise MalformedOutput(f"no results in the {self.model} response")
        pairs = [
            (r.get("index"), r.get("relevance_score")) if isinstance(r, dict) else (None, None)
            for r in results
        ]
        return checked_ranking(pairs, len(documents), top_n)


# -- selection ---------------------------------------------------------------------------------


def reranker_from_settings(settings: Settings) -> Reranker | None:
    """The reranker the settings configure (`Settings.rerank_backend`), or None: ordering is then
    lexical, said so in the bundle."""
    backend = settings.rerank_backend
    if backend == "off":
        return None
    if backend == "cohere":
        import cohere

        client = cohere.ClientV2(
            api_key=cohere_api_key(settings),
            timeout=settings.rerank_timeout_s,
            max_retries=0,
            log_warning_experimental_features=False,
        )
        return CohereReranker(
            client, settings.rerank_model_id or COHERE_RERANK_MODEL, settings.rerank_timeout_s
        )
    from duocthu.providers.bedrock import bedrock_runtime_client

    one_attempt = settings.model_copy(
        update={
            "bedrock_max_attempts": 1,
            "bedrock_connect_timeout_s": min(settings.bedrock_connect_timeout_s, settings.rerank_timeout_s),
        }
    )
    return BedrockReranker(
        bedrock_runtime_client(one_attempt),
        settings.rerank_model_id or BEDROCK_RERANK_MODEL,
        settings.rerank_timeout_s,
    )


@lru_cache(maxsize=4)
def get_reranker(settings: Settings) -> Reranker | None:
    """The reranker for these settings, built once per process (its HTTP client is reused)."""
    return reranker_from_settings(settings)
