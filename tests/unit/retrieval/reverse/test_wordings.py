"""The formulary's wordings of a finding and the wider findings that hold one (data tables, no
store)."""

from __future__ import annotations

from duocthu.retrieval.reverse.wordings import wider_findings, wordings_of


def test_a_finding_has_the_formularys_other_wordings() -> None:
    assert wordings_of("hạ kali máu") == ("hạ kali máu", "hạ kali huyết", "giảm kali máu", "giảm kali huyết")
    assert "tăng transaminase" in wordings_of("tăng men gan")
    assert "tổn thương thận" in wordings_of("độc tính trên thận")
    # typed without marks, the row still applies; the rest of the phrase stays as typed
    assert "tang kali huyết" in wordings_of("tang kali mau")
    assert wordings_of("sốt") == ("sốt",)
    # the everyday word for the formulary's, then its finding: "thiếu magie" is "hạ magnesi"
    assert "hạ magnesi" in wordings_of("thieu magie")
    assert "ngoại ban" in wordings_of("phát ban")


def test_a_finding_has_the_wider_findings_that_hold_it() -> None:
    assert "loét và xuất huyết tiêu hóa" in wider_findings("loet da day")
    assert wider_findings("ho") == ()
