from rulemap.text.positions import col_from_encoding, col_to_encoding, split_lines


def test_utf16_and_utf8_columns_with_emoji_and_cjk():
    line = "😀中@a.md"
    assert col_to_encoding(line, 2, "utf-16") == 3
    assert col_to_encoding(line, 2, "utf-8") == 7
    assert col_from_encoding(line, 3, "utf-16") == 2
    assert col_from_encoding(line, 7, "utf-8") == 2
    assert col_from_encoding(line, 999, "utf-16") == len(line)
    assert col_from_encoding(line, 1, "utf-16") == 0  # inside a surrogate pair


def test_split_lines_all_terminators():
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]


def test_long_lines_convert_like_short_ones():
    from rulemap.text.positions import col_to_encoding

    line = ("ab🚀é中" * 2000) + "x"
    for col in (0, 1, 2, 3, 4, 5, 777, 5000, len(line) - 1, len(line), len(line) + 3):
        prefix = line[:col]
        assert col_to_encoding(line, col, "utf-16") == len(prefix.encode("utf-16-le")) // 2
        assert col_to_encoding(line, col, "utf-8") == len(prefix.encode("utf-8"))
