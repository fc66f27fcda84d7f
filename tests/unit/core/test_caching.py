"""text_cache: lru_cache for short texts, straight through for long ones (bounded by entry size)."""

from __future__ import annotations

from duocthu.core.caching import MAX_CACHED_TEXT, clear_text_cache, text_cache


def test_short_texts_are_cached_and_long_ones_are_not() -> None:
    calls: list[str] = []

    @text_cache(maxsize=8)
    def upper(text: str) -> str:
        calls.append(text)
        return text.upper()

    short, long = "a" * MAX_CACHED_TEXT, "b" * (MAX_CACHED_TEXT + 1)
    assert [upper(short), upper(short)] == [short.upper()] * 2 and calls == [short]
    assert [upper(long), upper(text=long)] == [long.upper()] * 2 and calls == [short, long, long]
    assert upper.cache_info().currsize == 1  # type: ignore[attr-defined]
    clear_text_cache(upper)
    assert upper.cache_info().currsize == 0  # type: ignore[attr-defined]


def test_a_method_keeps_its_instance_in_the_key() -> None:
    class Shout:
        def __init__(self, mark: str) -> None:
            self.mark = mark

        @text_cache(maxsize=8, max_text=4)
        def say(self, text: str) -> str:
            return text + self.mark

    assert Shout("!").say("hi") == "hi!" and Shout("?").say("hi") == "hi?"
    assert Shout("!").say("hello") == "hello!"  # over max_text: computed, not cached
