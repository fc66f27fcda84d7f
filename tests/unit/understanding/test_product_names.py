"""The product names a turn mentions that the catalogue does not know (`understanding.product_names`)."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver, DrugMatch
from duocthu.understanding.facts import extract_facts
from duocthu.understanding.lexicon import formulary_wording
from duocthu.understanding.product_names import unknown_names


def _unknown_names(message: str, named: tuple[DrugMatch, ...] = ()) -> tuple[str, ...]:
    return unknown_names(message, named, (), extract_facts(message, named))


def test_unknown_names_skip_question_words_conditions_and_makers() -> None:
    assert _unknown_names("Nhiễm Helicobacter pylori điều trị bằng thuốc gì?") == ()
    assert _unknown_names("Thuốc điều trị đái tháo đường type 2") == ()
    assert _unknown_names("Trong dầu Cao Sao Vàng, thành phần nào cao nhất?") == ("Cao Sao Vàng",)
    # ordinary words written in capitals are stressed, not a name
    assert _unknown_names("BN tự uống 3 viên MỖI NGÀY thay vì mỗi tuần, xử trí gì?") == ()
    # a laboratory value the turn states is its name and number, never a product
    assert _unknown_names("Cụ đang uống 1 đống thuốc, K máu 6.0. Thuốc nào có ADR tăng kali?") == ()
    # the lexicon's words for a clinician's term are the book's, never a name (a brand spelled alike)
    assert _unknown_names(formulary_wording("Thuốc này có cần xét nghiệm gen trước không?")) == ()


def test_a_second_ingredient_after_a_known_name_is_an_unknown_name(resolver: CatalogDrugResolver) -> None:
    def unknown(message: str) -> tuple[str, ...]:
        return _unknown_names(message, resolver.resolve(message))

    # "Hapacol codein" is paracetamol and codeine: the answer must not read as covering both
    assert unknown("Hapacol codein dùng cho trẻ em được không?") == ("codein",)
    assert unknown("amoxicilin clavulanat liều dùng") == ("clavulanat",)
    # a maker, a word that goes on the name, or the name again in brackets is no ingredient
    assert unknown("Acyclovir Stella 800 mg liều dùng") == ()
    assert unknown("Panadol extra có gây buồn ngủ không?") == ()
    assert unknown("ngộ độc aspirin (salicylat) xử trí") == ()
    # a laboratory value with its number is no product and its strength
    assert unknown("BN 60t đang warfarin vì van cơ học, INR 2,5, giờ bị nấm thực quản cần fluconazol.") == ()
    assert unknown("Kavenol forte để tủ lạnh được không") == ("Kavenol forte",)
    # a name opening the next sentence goes on no name before it
    assert unknown("BN suy giáp đang Glucophage. Levothyroxin khởi đầu bao nhiêu mcg?") == ("Levothyroxin",)


def test_names_listed_apart_are_two_names(resolver: CatalogDrugResolver) -> None:
    # a comma or a slash between two names the catalogue lacks parts them: each is searched alone
    message = "carbamazepin có tương tác với rifampicin, phenytoin không?"
    assert _unknown_names(message, resolver.resolve(message)) == ("rifampicin", "phenytoin")
    assert _unknown_names("đang uống bisoprolol/ivabradin") == ("bisoprolol", "ivabradin")
    # the comma of a decimal strength parts nothing
    assert _unknown_names("đang uống bisoprolol 2,5 mg mỗi sáng") == ("bisoprolol 2 5 mg",)


def test_a_word_without_a_vowel_is_no_name() -> None:
    # every drug's name is spoken: consonants alone are a ward's abbreviation or a unit
    assert _unknown_names("Bệnh nhân sau HKTMS chân, giữ thuốc chống đông hay đổi?") == ()
    assert _unknown_names("Bn suy tủy, TC 25 G/L, sốt cao, uống thuốc hạ sốt được ko?") == ()
    assert _unknown_names("Trong dầu Cao Sao Vàng, thành phần nào cao nhất?") == ("Cao Sao Vàng",)


def test_a_real_drug_after_bi_acts_on_something_what_the_patient_has_is_no_name() -> None:
    assert _unknown_names("Trong các thuốc này, thuốc nào bị phenytoin làm giảm tác dụng?") == ("phenytoin",)
    assert _unknown_names("Bé bị Kawasaki, dùng thuốc gì?") == ()


def test_a_real_drug_in_the_lead_in_is_a_name_a_condition_there_is_not() -> None:
    assert _unknown_names("Rifampicin ở BN lao: thuốc nào bị giảm tác dụng?") == ("Rifampicin",)
    assert _unknown_names("Nhược cơ: thuốc nào cần tránh?") == ()
