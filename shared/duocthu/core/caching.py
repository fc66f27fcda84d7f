"""Per-process caches of text functions, bounded by entry size as well as count.

functools.lru_cache bounds a cache by its number of entries only; keyed by a user's message (or
a part of one), 4,096 entries of a long message each, with values that grow with the text, held
hundreds of MB per process. A text_cache keeps lru_cache's count bound and calls straight through,
uncached, when any text argument is longer than `max_text` characters: a long text costs its own
computation again, never memory that outlives the request.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

# Questions are short; a cache is for the words, phrases and turns that recur. Whole messages
# longer than this are computed each time.
MAX_CACHED_TEXT = 256


def long_text(args: tuple[object, ...], kwargs: dict[str, object], max_text: int) -> bool:
    # a plain loop: this runs on every cached call of the matchers' inner loops
    for a in args:
        if isinstance(a, str) and len(a) > max_text:
            return True
    return bool(kwargs) and long_text(tuple(kwargs.values()), {}, max_text)


def text_cache(maxsize: int, max_text: int = MAX_CACHED_TEXT) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """lru_cache(maxsize) for calls whose text arguments are all at most max_text characters;
    worst-case memory is about maxsize x max_text characters (plus values of the same order)."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        cached = functools.lru_cache(maxsize=maxsize)(function)

        @functools.wraps(function)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            if long_text(args, kwargs, max_text):
                return function(*args, **kwargs)
            return cached(*args, **kwargs)  # type: ignore[arg-type]  # lru_cache: hashable arguments

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        call.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return call

    return decorate


def clear_text_cache(function: Callable[..., object]) -> None:
    """Empty a text_cache (a benchmark's cold pass); a bound method clears its function's cache."""
    function.cache_clear()  # type: ignore[attr-defined]
