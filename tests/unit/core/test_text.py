import unicodedata

from duocthu.core.phrases import PhraseIndex, contains_every, contains_phrase, find_phrase, longest_spans
from duocthu.core.text import (
    asks_something,
    asks_yes_or_no,
    fold,
    folded_words,
    has_diacritics,
    tells_only,
    words,
)


def test_fold_strips_marks_and_maps_d_bar() -> None:
    assert fold("Đường huyết ĐỘNG mạch") == "duong huyet dong mach"
    assert fold("Chống chỉ định") == "chong chi dinh"


def test_fold_is_the_same_for_nfc_and_nfd_input() -> None:
    text = "Thời kỳ mang thai, đặt trực tràng"
    assert fold(unicodedata.normalize("NFD", text)) == fold(unicodedata.normalize("NFC", text))
    assert words(unicodedata.normalize("NFD", text)) == words(text)


def test_words_keep_marks_and_are_nfc() -> None:
    tokens = words(unicodedata.normalize("NFD", "Liều dùng"))
    assert tokens == ["liều", "dùng"]
    assert all(unicodedata.is_normalized("NFC", t) for t in tokens)


def test_has_diacritics() -> None:
    assert has_diacritics("liều") and has_diacritics("đau")
    assert not has_diacritics("lieu") and not has_diacritics("Aspirin")


def test_phrase_match_is_on_word_boundaries() -> None:
    assert find_phrase(folded_words("quá liều paracetamol"), ["lieu"]) == 1
    assert find_phrase(folded_words("aspirinol"), ["aspirin"]) == -1
    assert contains_phrase("Chống chỉ định: loét dạ dày tá tràng", "loet da day")
    assert not contains_phrase("loét dạ dày", "da day ta trang")


def test_phrase_index_diacritics_rule() -> None:
    index: PhraseIndex[str] = PhraseIndex()
    index.add("liều", "dose")
    index.add("DAT", "brand", allow_folded=False)
    assert [m.value for m in index.matches(words("lieu bao nhieu"))] == ["dose"]  # unmarked: folded
    assert [m.value for m in index.matches(words("liều bao nhiêu"))] == ["dose"]
    assert index.matches(words("liệu pháp")) == []  # marked differently: no match
    assert [m.value for m in index.matches(words("dat"))] == ["brand"]
    assert index.matches(words("đặt trực tràng")) == []  # short alias never through folding


def test_longest_spans_prefers_the_longer_phrase() -> None:
    index: PhraseIndex[str] = PhraseIndex()
    index.add("acid", "acid")
    index.add("acid acetylsalicylic", "aspirin")
    kept = longest_spans(index.matches(words("liều acid acetylsalicylic")))
    assert [m.value for m in kept] == ["aspirin"]


def test_a_yes_or_no_question_ends_with_khong() -> None:
    assert asks_yes_or_no("Bé 2 tuổi dùng loperamid được không?")
    assert asks_yes_or_no("uong duoc ko a")
    assert not asks_yes_or_no("Cháu bé bị giật cơ mặt thì phải làm gì ạ")
    assert not asks_yes_or_no("Không dùng cho ai?")  # "không" early is no yes/no close


def test_a_turn_closed_by_no_in_a_chat_spelling_asks() -> None:
    assert asks_something("Đang gliclazid 60mg. 1) dùng tiếp được k")
    assert asks_something("uống chung được hok")
    assert not asks_something("BN thiếu vitamin K")  # in capitals it names the vitamin
    assert not asks_something("Tôi đang dùng warfarin.")
    assert not tells_only("bn dị ứng penicilin thì có dùng cefuroxim được k")
    assert tells_only("Đang dùng warfarin, K 5,4")


def test_every_phrase_held_counts_only_when_there_is_one() -> None:
    said = "Thuốc cảm ứng enzym như rifampicin, carbamazepin làm giảm tác dụng"
    assert contains_every(said, ["Rifampicin", "carbamazepin"])
    assert not contains_every(said, ["rifampicin", "phenytoin"])
    assert not contains_every(said, [])
