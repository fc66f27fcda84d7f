"""The text repairs, each narrow: data-driven and applied only where the defect can be."""

from __future__ import annotations

from pathlib import Path

from duocthu.ingest.pdf.repair import (
    decode_tcvn3,
    is_tcvn3_font,
    join_lines,
    legacy_code_text,
    map_symbols,
    rejoin_syllables,
    resolve_breaks,
)


def test_tcvn3_pieces_decode() -> None:
    assert decode_tcvn3("uèng") == "uống"
    assert decode_tcvn3("tiªm tÜnh m¹ch") == "tiêm tĩnh mạch"


def test_tcvn3_u_horn_decodes_from_every_form_a_text_layer_gives_it() -> None:
    # ư is TCVN3's byte 0xAD, Ư its 0xA6: through a ToUnicode map as Latin-1 (U+00AD, U+00A6),
    # from a symbol-encoded font (U+F0AD), or from the byte itself where no map exists
    assert decode_tcvn3("ng\u00adêi") == decode_tcvn3("\uf06e\uf067\uf0ad\uf0ea\uf069") == "người"
    assert decode_tcvn3("\u00a6\u00eang") == "Ường"
    # without a ToUnicode map a reader names WinAnsi's 0xAD a space (pdfminer): the code is read
    assert legacy_code_text("ABCDEF+.VnTime", 0xAD, has_to_unicode=False, multibyte=False) == "\u00ad"
    assert legacy_code_text("ABCDEF+.VnTime", 0xAD, has_to_unicode=True, multibyte=False) is None
    assert legacy_code_text("ABCDEF+.VnTime", 0x03, has_to_unicode=False, multibyte=True) is None
    assert legacy_code_text("Times-Roman", 0xAD, has_to_unicode=False, multibyte=False) is None


def test_tcvn3_decoding_corrupts_clean_unicode_so_it_is_gated_by_the_font() -> None:
    assert decode_tcvn3("dùng") != "dùng"  # why the converter decodes only .Vn fonts
    assert is_tcvn3_font("ABCDEF+.VnTime") and is_tcvn3_font(".VnTimeH")
    assert not is_tcvn3_font("ABCDEF+DTSerif") and not is_tcvn3_font("Times-Roman")


def test_split_syllables_rejoin_only_into_syllables() -> None:
    assert rejoin_syllables("Liều lư ợng") == "Liều lượng"
    assert rejoin_syllables("Ch ống chỉ định") == "Chống chỉ định"
    assert rejoin_syllables("D ược thư") == "D ược thư"  # as "vitamin D ước tính": left as printed
    assert rejoin_syllables("Tư ơng tác") == "Tương tác"
    assert rejoin_syllables("độ t hanh thải,") == "độ thanh thải,"
    assert rejoin_syllables("l ượng,") == "lượng,"


def test_words_are_never_glued() -> None:
    for text in (
        "có thể dùng",
        "vitamin K epoxid",
        "protein C và S ở dạng",
        "nhóm B (dạng uống)",
        "2 mg/kg",
        "ngày 3 lần",
    ):
        assert rejoin_syllables(text) == text
    assert rejoin_syllables("pH ac id") == "pH acid"  # a piece cased inside ("pH") is no onset


def test_symbol_private_use_code_points() -> None:
    assert map_symbols("\uf0ae tăng \uf0af giảm \uf0b3 60") == "→ tăng ↓ giảm ≥ 60"


def test_dehyphenation_at_line_end_only_before_lower_case() -> None:
    joined = join_lines("dùng amoxi-", "cilin đường uống")
    assert resolve_breaks(joined, set()) == "dùng amoxicilin đường uống"
    assert join_lines("nhóm beta-", "Lactam") == "nhóm beta-Lactam"  # a hard hyphen before a capital
    assert join_lines("", "đầu") == "đầu"


def test_the_syllable_list_is_a_full_dictionary_and_glues_no_two_words(sample_records: list) -> None:
    from duocthu.core.syllables import syllables

    # Given the list made from pyvi's dictionary, not from the project's own texts
    assert len(syllables()) >= 3000
    assert {"khuyu", "nghiêng", "quynh", "ngoeo"} <= syllables()  # syllables the sample never uses
    # Then no line of the sample's text is changed by the re-joining (no two words glued)
    lines = [ln for r in sample_records for s in r.sections for b in s.blocks for ln in b.text.split("\n")]
    assert [ln for ln in lines if rejoin_syllables(ln) != ln] == []


def test_ligatures_spelt_out_and_a_space_drawn_over_is_no_word_break() -> None:
    from duocthu.ingest.pdf.layout import line_text

    assert map_symbols("diﬃcile, ﬂuoroquinolon, ﬁdaxomicin") == "difficile, fluoroquinolon, fidaxomicin"
    chars = [
        {"text": t, "fontname": "F", "size": 9.0, "x0": x, "x1": x + w}
        for t, x, w in (
            ("a", 0.0, 5.0),
            ("c", 5.0, 4.0),
            (" ", 9.0, 2.3),
            ("e", 9.0, 4.5),
            (" ", 13.5, 2.3),
            ("n", 16.0, 5.0),
        )
    ]
    assert (
        line_text(chars) == "ace n"
    )  # the first space is drawn over by "e" (a soft hyphen's), the second is real


def test_a_range_broken_after_its_dash_and_a_one_letter_prefix() -> None:
    assert join_lines("khoảng 25–", "90% nồng độ") == "khoảng 25–90% nồng độ"
    joined = join_lines("thải qua thận nhờ P-", "glycoprotein")
    assert resolve_breaks(joined, {"P-glycoprotein"}) == "thải qua thận nhờ P-glycoprotein"
    assert join_lines("liều 5 –", "10 mg") == "liều 5 – 10 mg"  # a spaced dash is a word


def _legacy_pdf(text: bytes) -> bytes:
    """One page of text drawn in a non-embedded single-byte font named .VnTime, WinAnsi encoding,
    no ToUnicode map: an old writer's TCVN3 text (the bytes as typed)."""
    widths = " ".join(["500"] * 224).encode()
    descriptor = b"<< /Type /FontDescriptor /FontName /.VnTime /Flags 32 /FontBBox [0 -200 500 700]"
    descriptor += b" /ItalicAngle 0 /Ascent 700 /Descent -200 /CapHeight 700 /StemV 80 >>"
    stream = b"BT /F1 10 Tf 20 100 Td (" + text + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /TrueType /BaseFont /.VnTime /Encoding /WinAnsiEncoding /FirstChar 32"
        b" /LastChar 255 /Widths [" + widths + b"] /FontDescriptor " + descriptor + b" >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    return out + f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()


def test_a_tcvn3_font_without_a_tounicode_map_is_read_from_its_codes(tmp_path: Path) -> None:
    # Given TCVN3 bytes for "người Ường" in a .VnTime font with no ToUnicode map: pdfminer names
    # WinAnsi's 0xAD a space, and the syllable repair would glue "ng ời" into "ngời" (ư lost)
    import pdfplumber
    from duocthu.ingest.pdf.layout import read_page

    (tmp_path / "legacy.pdf").write_bytes(_legacy_pdf(b"ng\xad\xeai \xa6\xeang"))
    with pdfplumber.open(str(tmp_path / "legacy.pdf")) as pdf:
        assert [c["text"] for c in pdf.pages[0].chars][2] == " "
        lines = read_page(pdf.pages[0], 1).lines
    # Then the converter reads each character from its code: the word keeps its ư
    assert [line.text for line in lines] == ["người Ường"]
