//! Tests of the YARA subset: every construct the parser takes (and what it makes of it),
//! every error it gives, and what the matcher finds for each kind of string, modifier and
//! condition, positive and negative.

use super::ast::{Comparison, Expr, HexToken, Int, MetaValue, Pattern, Quantifier};
use super::compile;
use super::parse::parse;

/// The names of the rules of `source` that match `data` (whose size is its length).
fn matching(source: &str, data: &[u8]) -> Vec<String> {
    matching_sized(source, data, data.len() as u64)
}

fn matching_sized(source: &str, data: &[u8], size: u64) -> Vec<String> {
    let compiled = compile(&[("test.yar", source)]).unwrap_or_else(|error| panic!("{error}"));
    compiled
        .scan(data, size)
        .into_iter()
        .map(|hit| compiled.rules[hit.rule].name.clone())
        .collect()
}

/// Whether the one-string rule `strings` + `condition` matches `data`.
fn holds(strings: &str, condition: &str, data: &[u8]) -> bool {
    let source = format!("rule r {{ strings: {strings} condition: {condition} }}");
    !matching(&source, data).is_empty()
}

/// The error compiling `source` gives: its line and message.
fn error(source: &str) -> (usize, String) {
    let error = compile(&[("bad.yar", source)]).expect_err(source);
    assert_eq!(error.file, "bad.yar");
    assert!(
        error.to_string().starts_with("bad.yar:"),
        "the error names the file: {error}"
    );
    (error.line, error.message)
}

#[test]
fn a_whole_rule_parses_into_its_parts() {
    let source = r#"
        // A team's rule.
        rule Suspicious_Dropper : dropper windows
        {
            meta:
                severity = "high"
                score = 75
                offset = -2
                reviewed = true
            strings:
                $text = "cmd.exe /c" nocase wide ascii fullword private
                $hex = { 4D 5A ?? 4? [2-4] ( 00 | 01 ) }
                $re = /https?:\/\/[a-z]+/is
            condition:
                $text or ($hex and not $re)
        }
    "#;
    let rules = parse("team.yar", source).unwrap();
    let [rule] = rules.as_slice() else {
        panic!("{rules:?}")
    };
    assert_eq!(rule.name, "Suspicious_Dropper");
    assert_eq!(rule.line, 3);
    assert_eq!(rule.tags, ["dropper", "windows"]);
    let meta: Vec<(&str, &MetaValue)> = rule
        .meta
        .iter()
        .map(|meta| (meta.key.as_str(), &meta.value))
        .collect();
    assert_eq!(
        meta,
        [
            ("severity", &MetaValue::Text("high".into())),
            ("score", &MetaValue::Integer(75)),
            ("offset", &MetaValue::Integer(-2)),
            ("reviewed", &MetaValue::Boolean(true)),
        ]
    );
    assert_eq!(
        rule.strings[0].pattern,
        Pattern::Text(b"cmd.exe /c".to_vec())
    );
    let modifiers = rule.strings[0].modifiers;
    assert!(
        modifiers.nocase
            && modifiers.wide
            && modifiers.ascii
            && modifiers.fullword
            && modifiers.private
    );
    assert_eq!(
        rule.strings[1].pattern,
        Pattern::Hex(vec![
            HexToken::Byte {
                value: 0x4D,
                mask: 0xFF
            },
            HexToken::Byte {
                value: 0x5A,
                mask: 0xFF
            },
            HexToken::Byte { value: 0, mask: 0 },
            HexToken::Byte {
                value: 0x40,
                mask: 0xF0
            },
            HexToken::Jump {
                min: 2,
                max: Some(4)
            },
            HexToken::Alternatives(vec![
                vec![HexToken::Byte {
                    value: 0,
                    mask: 0xFF
                }],
                vec![HexToken::Byte {
                    value: 1,
                    mask: 0xFF
                }],
            ]),
        ])
    );
    assert_eq!(
        rule.strings[2].pattern,
        Pattern::Regex {
            source: r"https?:\/\/[a-z]+".into(),
            nocase: true,
            dotall: true
        }
    );
    assert_eq!(rule.strings[2].line, 13);
    assert_eq!(
        rule.condition,
        Expr::Or(vec![
            Expr::Found(0),
            Expr::And(vec![Expr::Found(1), Expr::Not(Box::new(Expr::Found(2)))]),
        ])
    );
}

#[test]
fn conditions_parse_with_yara_precedence_and_operands() {
    let condition = |text: &str| {
        let source = format!(
            "rule r {{ strings: $a = \"a\" $b1 = \"b\" $b2 = \"c\" condition: {text} and $a and any of ($b*) }}"
        );
        match parse("t.yar", &source) {
            Ok(rules) => match &rules[0].condition {
                Expr::And(terms) => terms[0].clone(),
                other => panic!("{other:?}"),
            },
            Err(error) => panic!("{text}: {error}"),
        }
    };
    assert_eq!(
        condition("(true or false)"),
        Expr::Or(vec![Expr::Bool(true), Expr::Bool(false)])
    );
    assert_eq!(
        condition("not not $a"),
        Expr::Not(Box::new(Expr::Not(Box::new(Expr::Found(0)))))
    );
    assert_eq!(
        condition("2 of them"),
        Expr::Of(Quantifier::AtLeast(2), vec![0, 1, 2])
    );
    assert_eq!(
        condition("none of ($a, $b1)"),
        Expr::Of(Quantifier::None, vec![0, 1])
    );
    assert_eq!(
        condition("all of ($b*, $b2)"),
        Expr::Of(Quantifier::All, vec![1, 2])
    );
    assert_eq!(
        condition("#a >= 0x10"),
        Expr::Compare(Int::Count(0), Comparison::GreaterOrEqual, Int::Literal(16))
    );
    assert_eq!(
        condition("@a < 2KB"),
        Expr::Compare(
            Int::Offset(0, Box::new(Int::Literal(1))),
            Comparison::Less,
            Int::Literal(2048)
        )
    );
    assert_eq!(
        condition("!a[2] != 3"),
        Expr::Compare(
            Int::Length(0, Box::new(Int::Literal(2))),
            Comparison::NotEqual,
            Int::Literal(3)
        )
    );
    assert_eq!(
        condition("filesize <= 1MB"),
        Expr::Compare(
            Int::Filesize,
            Comparison::LessOrEqual,
            Int::Literal(1024 * 1024)
        )
    );
    assert_eq!(
        condition("uint32be(@a[1]) == -1"),
        Expr::Compare(
            Int::Read {
                bytes: 4,
                big_endian: true,
                signed: false,
                at: Box::new(Int::Offset(0, Box::new(Int::Literal(1))))
            },
            Comparison::Equal,
            Int::Literal(-1)
        )
    );
    assert_eq!(condition("$a at 0o17"), Expr::At(0, Int::Literal(15)));
    assert_eq!(
        condition("$a in (0..filesize)"),
        Expr::In(0, Int::Literal(0), Int::Filesize)
    );
    assert_eq!(
        condition("10 > #b1"),
        Expr::Compare(Int::Literal(10), Comparison::Greater, Int::Count(1))
    );
}

#[test]
fn comments_go_anywhere_and_escapes_become_bytes() {
    let source = "/* head */ rule r // name\n{ /* x */ strings: $a = \"q\\\"\\\\\\t\\n\\r\\x41\u{e9}\" // s\n $h = { 4D /* in hex */ 5A // to the end\n } condition: /* c */ $a or $h }";
    let rules = parse("t.yar", source).unwrap();
    assert_eq!(
        rules[0].strings[0].pattern,
        Pattern::Text(b"q\"\\\t\n\rA\xc3\xa9".to_vec())
    );
    assert_eq!(
        rules[0].strings[1].pattern,
        Pattern::Hex(vec![
            HexToken::Byte {
                value: 0x4D,
                mask: 0xFF
            },
            HexToken::Byte {
                value: 0x5A,
                mask: 0xFF
            },
        ])
    );
}

#[test]
fn hex_jumps_take_every_form_and_alternatives_nest() {
    let source = "rule r { strings: $h = { 01 [3] 02 [1-] 03 [-] 04 ( 05 | 06 ( 07 | ?8 ) [1-2] 09 ) } condition: $h }";
    let rules = parse("t.yar", source).unwrap();
    let Pattern::Hex(tokens) = &rules[0].strings[0].pattern else {
        panic!()
    };
    let jumps: Vec<&HexToken> = tokens
        .iter()
        .filter(|token| matches!(token, HexToken::Jump { .. }))
        .collect();
    assert_eq!(
        jumps,
        [
            &HexToken::Jump {
                min: 3,
                max: Some(3)
            },
            &HexToken::Jump { min: 1, max: None },
            &HexToken::Jump { min: 0, max: None },
        ]
    );
    let Some(HexToken::Alternatives(alternatives)) = tokens.last() else {
        panic!("{tokens:?}")
    };
    assert_eq!(alternatives.len(), 2);
    assert!(matches!(
        alternatives[1][1],
        HexToken::Alternatives(ref inner) if inner[1] == [HexToken::Byte { value: 0x08, mask: 0x0F }]
    ));
}

#[test]
fn every_error_names_its_line_and_construct() {
    let cases: &[(&str, usize, &str)] = &[
        ("import \"pe\"\nrule r { condition: true }", 1, "`import`"),
        ("\ninclude \"other.yar\"", 2, "`include`"),
        ("private rule r { condition: true }", 1, "`private rule`"),
        ("global rule r { condition: true }", 1, "`global rule`"),
        (
            "rules r { condition: true }",
            1,
            "expected `rule`, found `rules`",
        ),
        ("rule r { condition: true }\n}", 2, "unexpected `}`"),
        ("/* open\n\nrule r { condition: true }", 1, "never closed"),
        ("rule and { condition: true }", 1, "keyword"),
        (
            "rule 9r { condition: true }",
            1,
            "cannot start with a digit",
        ),
        (
            "rule r { condition: true }\n\nrule r { condition: false }",
            3,
            "defined twice",
        ),
        (
            "rule r : a a { condition: true }",
            1,
            "the tag `a` is given twice",
        ),
        ("rule r : { condition: true }", 1, "expected a tag"),
        ("rule r condition: true }", 1, "expected `{`"),
        (
            "rule r {\n strings: $a = \"x\" }",
            2,
            "expected `condition:`",
        ),
        ("rule r { condition: true", 1, "expected `}`"),
        (
            "rule r { meta:\n author = bob condition: true }",
            2,
            "must be a \"text\", an integer, true or false",
        ),
        (
            "rule r { strings: condition: true }",
            1,
            "`strings:` section is empty",
        ),
        (
            "rule r { strings: $a = \"x\"\n $a = \"y\" condition: $a }",
            2,
            "`$a` is defined twice",
        ),
        (
            "rule r { strings: $a = x condition: $a }",
            1,
            "expected a \"text\"",
        ),
        (
            "rule r { strings: $a = \"x\" loud condition: $a }",
            1,
            "`loud` is not a string modifier",
        ),
        (
            "rule r { strings: $a = \"x\" xor condition: $a }",
            1,
            "`xor` modifier",
        ),
        (
            "rule r { strings: $a = \"x\" base64 condition: $a }",
            1,
            "`base64` modifier",
        ),
        (
            "rule r { strings: $a = \"x\" nocase nocase condition: $a }",
            1,
            "given twice",
        ),
        (
            "rule r { strings: $a = { 41 } nocase condition: $a }",
            1,
            "takes only `private`",
        ),
        (
            "rule r { strings: $a = /x/ wide condition: $a }",
            1,
            "`wide` on a regular expression",
        ),
        (
            "rule r { strings: $a = \"x\n condition: $a }",
            1,
            "runs past the end of its line",
        ),
        ("rule r { strings: $a = \"x", 1, "never closed"),
        (
            "rule r { strings: $a = \"\\q\" condition: $a }",
            1,
            "`\\q` is not an escape",
        ),
        (
            "rule r { strings: $a = \"\\x4\" condition: $a }",
            1,
            "two hex digits",
        ),
        ("rule r { strings: $a = \"\" condition: $a }", 1, "is empty"),
        ("rule r { strings: $a = { } condition: $a }", 1, "is empty"),
        ("rule r { strings: $a = { 41 ", 1, "never closed"),
        (
            "rule r { strings: $a = { 4G } condition: $a }",
            1,
            "expected a hex byte",
        ),
        (
            "rule r { strings: $a = { 4 } condition: $a }",
            1,
            "expected a hex byte",
        ),
        (
            "rule r { strings: $a = { [2] 41 } condition: $a }",
            1,
            "starts or ends with a jump",
        ),
        (
            "rule r { strings: $a = { 41 [2-] } condition: $a }",
            1,
            "starts or ends with a jump",
        ),
        (
            "rule r { strings: $a = { 41 [4-2] 42 } condition: $a }",
            1,
            "wrong way round",
        ),
        (
            "rule r { strings: $a = { 41 [0] 42 } condition: $a }",
            1,
            "skips nothing",
        ),
        (
            "rule r { strings: $a = { 41 [x] 42 } condition: $a }",
            1,
            "expected a jump",
        ),
        (
            "rule r { strings: $a = { 41 [99999999999] 42 } condition: $a }",
            1,
            "too large",
        ),
        (
            "rule r { strings: $a = { 41 ~42 } condition: $a }",
            1,
            "`~`",
        ),
        (
            "rule r { strings: $a = { 41 ( 42 [1-] 43 | 44 ) } condition: $a }",
            1,
            "unbounded jump inside alternatives",
        ),
        (
            "rule r { strings: $a = { 41 ( 42 | ) } condition: $a }",
            1,
            "empty alternative",
        ),
        (
            "rule r { strings: $a = { 41 ( 42 | 43 } condition: $a }",
            1,
            "never closed with `)`",
        ),
        (
            "rule r { strings: $a = { 41 ( 42 | 43 ] } condition: $a }",
            1,
            "expected a hex byte",
        ),
        (
            "rule r { strings: $a = /abc\n condition: $a }",
            1,
            "runs past the end of its line",
        ),
        ("rule r { strings: $a = /abc", 1, "never closed"),
        (
            "rule r { strings: $a = // condition: $a }",
            1,
            "expected a \"text\"",
        ),
        (
            "rule r { strings: $a = /x/m condition: $a }",
            1,
            "`m` after the regular expression",
        ),
        (
            "rule r { strings: $a = /x/ix condition: $a }",
            1,
            "`x` after the regular expression",
        ),
        (
            "rule r { strings: $a = /(a)\\1/ condition: $a }",
            1,
            "backreferences",
        ),
        (
            "rule r { strings: $a = /(?=a)/ condition: $a }",
            1,
            "`(?` flags and look-around",
        ),
        (
            "rule r { strings: $a = /(?i)a/ condition: $a }",
            1,
            "`(?` flags and look-around",
        ),
        (
            "rule r { strings: $a = /a{/ condition: $a }",
            1,
            "starts no repetition",
        ),
        (
            "rule r { strings: $a = /a{x}/ condition: $a }",
            1,
            "starts no repetition",
        ),
        (
            "rule r { strings: $a = /a)/ condition: $a }",
            1,
            "closes no group",
        ),
        (
            "rule r { strings: $a = /(a/ condition: $a }",
            1,
            "never closed",
        ),
        (
            "rule r { strings: $a = /[ab/ condition: $a }",
            1,
            "class is never closed",
        ),
        (
            "rule r { strings: $a = /+a/ condition: $a }",
            1,
            "repeats nothing",
        ),
        (
            "rule r { strings: $a = /a**/ condition: $a }",
            1,
            "repeats nothing",
        ),
        (
            "rule r { strings: $a = /a{3,1}/ condition: $a }",
            1,
            "wrong way round",
        ),
        (
            "rule r { strings: $a = /\\z/ condition: $a }",
            1,
            "`\\z` is not an escape",
        ),
        (
            "rule r { strings: $a = /[\\b]/ condition: $a }",
            1,
            "inside a character class",
        ),
        (
            "rule r { strings: $a = /\\x4/ condition: $a }",
            1,
            "two hex digits",
        ),
        (
            "rule r { strings: $a = /(a{1000}){1000}/ condition: $a }",
            1,
            "cannot be compiled",
        ),
        (
            "rule r { strings: $a = \"x\" condition: $b }",
            1,
            "`$b` is not defined",
        ),
        (
            "rule r { strings: $a = \"x\" condition: $a* }",
            1,
            "names several strings",
        ),
        ("rule r { strings: $ = \"x\" condition: $ }", 1, "anonymous"),
        (
            "rule r { strings: $a = \"x\" condition: for any i in (1..2): ($a) }",
            1,
            "`for` loops",
        ),
        ("rule r { condition: defined filesize }", 1, "`defined`"),
        ("rule r { condition: entrypoint == 0 }", 1, "`entrypoint`"),
        (
            "rule r { strings: $a = \"x\" condition: 50% of them }",
            1,
            "percentage",
        ),
        (
            "rule r { condition: filesize + 1 > 2 }",
            1,
            "`+`: arithmetic",
        ),
        (
            "rule r { condition: filesize << 1 > 2 }",
            1,
            "`<<`: arithmetic",
        ),
        (
            "rule r { condition: filesize contains 2 }",
            1,
            "`contains`: string operators",
        ),
        (
            "rule r { condition: pe.is_pe }",
            1,
            "module fields and functions",
        ),
        (
            "rule r { condition: math.entropy(0, 1) > 7 }",
            1,
            "module fields and functions",
        ),
        (
            "rule r { condition: other_rule }",
            1,
            "another rule or an external variable",
        ),
        (
            "rule r { condition: 5 }",
            1,
            "a number alone as a condition",
        ),
        (
            "rule r { condition: filesize }",
            1,
            "a number alone as a condition",
        ),
        ("rule r { condition: 1 < 2 < 3 }", 1, "cannot be chained"),
        (
            "rule r { strings: $a = \"x\" condition: any of them at 0 }",
            1,
            "`of ... at`",
        ),
        (
            "rule r { strings: $a = \"x\" condition: #a in (0..1) > 0 }",
            1,
            "`#a in (range)`",
        ),
        (
            "rule r { strings: $a = \"x\" condition: #a* > 0 }",
            1,
            "`#a*`",
        ),
        ("rule r { condition: any of them }", 1, "no strings"),
        (
            "rule r { strings: $a = \"x\" condition: any of ($b*) }",
            1,
            "no string matches `$b*`",
        ),
        (
            "rule r { strings: $a = \"x\" condition: any of ($b) }",
            1,
            "`$b` is not defined",
        ),
        (
            "rule r { strings: $a = \"x\" condition: any of ($a $a) }",
            1,
            "expected `,`",
        ),
        (
            "rule r { strings: $a = \"x\" condition: any of (a) }",
            1,
            "expected a string",
        ),
        (
            "rule r { strings: $a = \"x\" condition: any $a }",
            1,
            "expected `of`",
        ),
        (
            "rule r { strings: $a = \"x\" condition: -1 of them }",
            1,
            "cannot be negative",
        ),
        (
            "rule r {\n strings:\n $a = \"x\"\n $b = \"y\"\n condition: $a }",
            4,
            "`$b` is not used",
        ),
        (
            "rule r { condition: filesize < 10GB }",
            1,
            "`10GB` is not a number",
        ),
        (
            "rule r { condition: filesize < 99999999999999999999 }",
            1,
            "too large",
        ),
        (
            "rule r { condition: filesize < 9999999999999999MB }",
            1,
            "too large",
        ),
        ("rule r { condition: $ }", 1, "anonymous"),
        ("rule r { condition: uint16 0 }", 1, "expected `(`"),
        ("rule r { condition: ( true }", 1, "expected `)`"),
        ("rule r { condition: and }", 1, "referring to another rule"),
        ("rule r { condition: }", 1, "expected a condition"),
        (
            "rule r { strings: $a = \"x\" condition: @a[1 > 0 }",
            1,
            "expected `]`",
        ),
        (
            "rule r { strings: $a = \"x\" condition: $a in 0..1 }",
            1,
            "expected `(`",
        ),
        (
            "rule r { strings: $a = \"x\" condition: $a in (0 1) }",
            1,
            "expected `..`",
        ),
    ];
    for (source, line, needle) in cases {
        let (found_line, message) = error(source);
        assert!(
            message.contains(needle),
            "{source:?}: `{message}` does not say `{needle}`"
        );
        assert_eq!(found_line, *line, "{source:?}: {message}");
    }
}

#[test]
fn meta_bytes_that_are_not_utf8_are_kept_as_text() {
    let rules = parse("t.yar", "rule r { meta: x = \"a\\xffb\" condition: true }").unwrap();
    assert_eq!(rules[0].meta[0].value, MetaValue::Text("a\u{fffd}b".into()));
}

#[test]
fn a_hex_group_of_one_is_that_sequence() {
    assert!(holds("$h = { 41 ( 42 43 ) 44 }", "$h", b"ABCD"));
    assert!(!holds("$h = { 41 ( 42 43 ) 44 }", "$h", b"ABD"));
}

#[test]
fn nesting_is_bounded() {
    let deep = format!(
        "rule r {{ condition: {}true{} }}",
        "(".repeat(100),
        ")".repeat(100)
    );
    assert!(error(&deep).1.contains("nested more than"));
    let nots = format!("rule r {{ condition: {}true }}", "not ".repeat(100));
    assert!(error(&nots).1.contains("nested more than"));
    let hex = format!(
        "rule r {{ strings: $a = {{ 41 {}42 | 43{} }} condition: $a }}",
        "( ".repeat(100),
        " )".repeat(100)
    );
    assert!(error(&hex).1.contains("nested more than"));
    let shallow = format!(
        "rule r {{ condition: {}true{} }}",
        "(".repeat(20),
        ")".repeat(20)
    );
    assert!(compile(&[("t.yar", &shallow)]).is_ok());
}

#[test]
fn a_rule_name_used_in_two_files_is_refused_at_the_second() {
    let error = compile(&[
        ("one.yar", "rule shared { condition: true }"),
        ("two.yar", "\nrule shared { condition: false }"),
    ])
    .unwrap_err();
    assert_eq!((error.file.as_str(), error.line), ("two.yar", 2));
    assert!(
        error
            .message
            .contains("already defined in one.yar at line 1")
    );
}

#[test]
fn text_strings_match_as_written() {
    assert!(holds("$a = \"evil\"", "$a", b"an evil plan"));
    assert!(!holds("$a = \"evil\"", "$a", b"an EVIL plan"));
    assert!(holds("$a = \"tab\\there\"", "$a", b"tab\there"));
    assert!(holds("$a = \"\\x00\\xff\"", "$a", b"x\x00\xffy"));
    assert!(!holds("$a = \"\\x00\\xff\"", "$a", b"x\x00\xfey"));
}

#[test]
fn nocase_folds_ascii_only() {
    assert!(holds("$a = \"Evil\" nocase", "$a", b"EVIL"));
    assert!(holds("$a = \"Evil\" nocase", "$a", b"eViL"));
    assert!(!holds("$a = \"Evil\" nocase", "$a", b"Evel"));
    // YARA folds ASCII letters; `É` is two other bytes.
    assert!(!holds(
        "$a = \"\u{e9}t\u{e9}\" nocase",
        "$a",
        "\u{c9}T\u{c9}".as_bytes()
    ));
}

#[test]
fn wide_matches_utf16le_and_ascii_only_when_asked() {
    let wide: Vec<u8> = "run cmd now"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert!(holds("$a = \"cmd\" wide", "$a", &wide));
    assert!(!holds("$a = \"cmd\"", "$a", &wide));
    assert!(!holds("$a = \"cmd\" wide", "$a", b"run cmd now"));
    assert!(holds("$a = \"cmd\" wide ascii", "$a", b"run cmd now"));
    assert!(holds("$a = \"cmd\" wide ascii", "$a", &wide));
    assert!(holds("$a = \"CMD\" wide nocase", "$a", &wide));
}

#[test]
fn fullword_needs_non_alphanumeric_neighbours() {
    assert!(holds("$a = \"nc\" fullword", "$a", b"run nc -e"));
    assert!(holds("$a = \"nc\" fullword", "$a", b"nc"));
    assert!(holds("$a = \"nc\" fullword", "$a", b"(nc)"));
    assert!(!holds("$a = \"nc\" fullword", "$a", b"sync"));
    assert!(!holds("$a = \"nc\" fullword", "$a", b"ncat"));
    assert!(holds("$a = \"nc\"", "$a", b"sync"));
    let wide = |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    assert!(holds("$a = \"nc\" wide fullword", "$a", &wide("a nc b")));
    assert!(!holds("$a = \"nc\" wide fullword", "$a", &wide("sync")));
    assert!(!holds("$a = \"nc\" wide fullword", "$a", &wide("ncat")));
    assert!(holds("$a = /n[c]/ fullword", "$a", b"run nc -e"));
    assert!(!holds("$a = /n[c]/ fullword", "$a", b"sync"));
}

#[test]
fn hex_strings_match_bytes_wildcards_jumps_and_alternatives() {
    let pe = b"\x00\x00MZ\x90\x00\x03\x00";
    assert!(holds("$h = { 4D 5A 90 00 }", "$h", pe));
    assert!(!holds("$h = { 4D 5A 91 00 }", "$h", pe));
    assert!(holds("$h = { 4D 5A ?? 00 03 }", "$h", pe));
    assert!(holds("$h = { 4D 5A 9? 00 }", "$h", pe));
    assert!(!holds("$h = { 4D 5A 8? 00 }", "$h", pe));
    assert!(holds("$h = { 4D 5A ?0 00 }", "$h", pe));
    assert!(!holds("$h = { 4D 5A ?1 00 }", "$h", pe));
    assert!(holds("$h = { 4D [2] 00 }", "$h", pe));
    assert!(!holds("$h = { 4D [1] 00 }", "$h", pe));
    assert!(holds("$h = { 4D [1-3] 03 }", "$h", pe));
    assert!(!holds("$h = { 4D [1-2] 03 }", "$h", pe));
    assert!(holds("$h = { 4D [1-] 03 }", "$h", pe));
    assert!(holds("$h = { 4D [-] 03 }", "$h", pe));
    assert!(!holds("$h = { 03 [-] 4D }", "$h", pe));
    assert!(holds("$h = { 5A ( 91 | 90 ) 00 }", "$h", pe));
    assert!(!holds("$h = { 5A ( 91 | 92 ) 00 }", "$h", pe));
    assert!(holds("$h = { 5A ( 91 | 90 00 ( 04 | 03 ) ) }", "$h", pe));
    assert!(holds("$h = { 5A ( 91 | 90 [1] 03 ) }", "$h", pe));
    // A newline is a byte like any other for a wildcard or a jump.
    assert!(holds("$h = { 41 ?? 42 [1] 43 }", "$h", b"A\nB\nC"));
}

#[test]
fn regular_expressions_follow_yara_flags_and_escapes() {
    assert!(holds("$r = /ev+il/", "$r", b"an evvvil plan"));
    assert!(!holds("$r = /ev+il/", "$r", b"an EVIL plan"));
    assert!(holds("$r = /ev+il/i", "$r", b"an EVIL plan"));
    assert!(holds("$r = /ev+il/ nocase", "$r", b"an EVIL plan"));
    assert!(!holds("$r = /a.b/", "$r", b"a\nb"));
    assert!(holds("$r = /a.b/s", "$r", b"a\nb"));
    assert!(holds("$r = /\\bnc\\s+-e\\b/", "$r", b"x nc  -e y"));
    assert!(!holds("$r = /\\bnc\\s+-e\\b/", "$r", b"xnc -e y"));
    assert!(holds(
        "$r = /\\/dev\\/tcp\\/\\d{1,3}\\./",
        "$r",
        b"/dev/tcp/10.0.0.1"
    ));
    // Set operators of the regex crate are literal characters to YARA.
    assert!(holds("$r = /[a&&b]/", "$r", b"&"));
    assert!(holds("$r = /x{,2}y/", "$r", b"xxy"));
    assert!(holds("$r = /a\\{/", "$r", b"a{"));
    assert!(holds("$r = /(?:ab)+c/", "$r", b"ababc"));
    assert!(holds("$r = /ab/ii", "$r", b"AB"));
    assert!(holds("$r = /[]a]/", "$r", b"]"));
    assert!(holds("$r = /[^a-c]/", "$r", b"d"));
    assert!(!holds("$r = /^[^a-c]+$/", "$r", b"abc"));
    assert!(holds("$r = /[a\\-c]/", "$r", b"-"));
    assert!(holds("$r = /\\x41\\t\\./", "$r", b"A\t."));
    assert!(holds("$r = /caf\u{e9}/", "$r", "caf\u{e9}".as_bytes()));
    assert!(holds("$r = /\\xff+/", "$r", b"\x00\xff\xff"));
    assert!(holds("$r = /ab*?c/", "$r", b"abbc"));
}

#[test]
fn counts_offsets_and_lengths_are_yaras() {
    // A literal is counted at every place it starts, overlapping ones included.
    assert!(holds("$a = \"aa\"", "#a == 3", b"aaaa"));
    assert!(!holds("$a = \"aa\"", "#a == 2", b"aaaa"));
    assert!(holds("$a = \"b\"", "#a == 0", b"aaaa"));
    assert!(holds(
        "$a = \"ab\"",
        "@a[1] == 1 and @a[2] == 4 and @a == 1",
        b"xabxab"
    ));
    assert!(!holds(
        "$a = \"ab\"",
        "@a[3] == 0 or not (@a[3] == 0)",
        b"xabxab"
    ));
    assert!(holds("$a = /ab+/", "!a[1] == 3 and !a[2] == 2", b"abb ab"));
    assert!(holds("$a = \"ab\"", "$a at 4", b"xabxab"));
    assert!(!holds("$a = \"ab\"", "$a at 3", b"xabxab"));
    assert!(holds("$a = \"ab\"", "$a in (2..4)", b"xabxab"));
    assert!(!holds("$a = \"ab\"", "$a in (2..3)", b"xabxab"));
}

#[test]
fn the_count_stays_exact_past_the_kept_places() {
    let data = vec![b'a'; super::matcher::KEPT_MATCHES * 3];
    let count = super::matcher::KEPT_MATCHES * 3;
    assert!(holds("$a = \"a\"", &format!("#a == {count}"), &data));
    assert!(holds("$a = \"a\"", "@a[1] == 0", &data));
}

#[test]
fn filesize_and_reads_look_at_the_whole_file() {
    let rule = "rule r { condition: filesize > 1KB }";
    assert!(matching_sized(rule, b"short", 2048).contains(&"r".to_owned()));
    assert!(matching_sized(rule, b"short", 1024).is_empty());
    let pe = b"MZ\x90\x00\xff\xfe";
    assert!(holds("$a = \"MZ\"", "$a and uint16(0) == 0x5A4D", pe));
    assert!(holds("$a = \"MZ\"", "$a and uint16be(0) == 0x4D5A", pe));
    assert!(holds("$a = \"MZ\"", "$a and uint32(0) == 0x00905A4D", pe));
    assert!(holds(
        "$a = \"MZ\"",
        "$a and uint8(4) == 255 and int8(4) == -1",
        pe
    ));
    assert!(holds("$a = \"MZ\"", "$a and int16(4) == -257", pe));
    assert!(holds("$a = \"MZ\"", "$a and int32be(2) == -1878982658", pe));
    // Past the end is undefined: false, and `not` of it is still false.
    assert!(!holds("$a = \"MZ\"", "$a and uint32(4) == 0", pe));
    assert!(!holds("$a = \"MZ\"", "$a and not (uint32(4) == 0)", pe));
    assert!(holds("$a = \"MZ\"", "$a and (uint32(4) == 0 or true)", pe));
    assert!(!holds("$a = \"MZ\"", "$a and uint8(-1) == 0", pe));
}

#[test]
fn quantifiers_and_logic_decide_as_yara_does() {
    let strings = "$a = \"a\" $b1 = \"b\" $b2 = \"c\"";
    let cases: &[(&str, &[u8], bool)] = &[
        ("any of them", b"xxb", true),
        ("any of them", b"xxx", false),
        ("all of them", b"abc", true),
        ("all of them", b"ab", false),
        ("none of them", b"xyz", true),
        ("none of them", b"xyc", false),
        ("2 of them", b"ac", true),
        ("2 of them", b"c", false),
        ("4 of them", b"abc", false),
        ("any of ($b*)", b"c", true),
        ("any of ($b*)", b"a", false),
        ("all of ($a, $b2)", b"ac", true),
        ("all of ($a, $b2)", b"ab", false),
        ("$a and $b1", b"ab", true),
        ("$a and $b1", b"a", false),
        ("$a or $b1", b"b", true),
        ("$a or $b1", b"c", false),
        ("not $a", b"b", true),
        ("not $a", b"a", false),
        ("$a and not ($b1 or $b2)", b"a", true),
        ("$a and not ($b1 or $b2)", b"ac", false),
        ("$a or $b1 and $b2", b"a", true),
        ("($a or $b1) and $b2", b"a", false),
        ("true and not false", b"", true),
        ("false or false", b"abc", false),
        ("#a == 2 and #b1 < 1", b"aa", true),
        ("#a != 2 or #b1 >= 1", b"aa", false),
    ];
    for (condition, data, expected) in cases {
        // YARA refuses a string no condition names: name them all, changing nothing.
        let source = format!(
            "rule r {{ strings: {strings} condition: ({condition}) and (any of them or true) }}"
        );
        assert_eq!(
            !matching(&source, data).is_empty(),
            *expected,
            "{condition} on {:?}",
            String::from_utf8_lossy(data)
        );
    }
}

#[test]
fn anonymous_strings_count_in_them() {
    assert!(holds("$ = \"x\" $ = \"y\"", "all of them", b"xy"));
    assert!(!holds("$ = \"x\" $ = \"y\"", "all of them", b"x"));
    assert!(holds("$ = \"x\" $ = \"y\"", "any of ($*)", b"y"));
}

#[test]
fn a_hit_is_placed_at_the_first_public_string() {
    let source =
        "rule r { strings: $early = \"aaa\" private $late = \"zzz\" condition: all of them }";
    let compiled = compile(&[("t.yar", source)]).unwrap();
    let hits = compiled.scan(b"aaa then zzz", 12);
    let place = hits[0].first.unwrap();
    assert_eq!(compiled.strings[place.string].name, "late");
    assert_eq!((place.offset, place.length), (9, 3));
    let without_strings = compile(&[("t.yar", "rule r { condition: filesize > 0 }")]).unwrap();
    assert_eq!(without_strings.scan(b"x", 1)[0].first, None);
}

#[test]
fn many_rules_share_one_pass_and_each_is_judged_alone() {
    let source = r#"
        rule one { strings: $a = "alpha" condition: $a }
        rule two { strings: $a = "ALPHA" nocase $b = /be+ta/ condition: $a and $b }
        rule three { strings: $a = { 67 61 6D 6D 61 } condition: not $a }
    "#;
    assert_eq!(matching(source, b"alpha beeta"), ["one", "two", "three"]);
    assert_eq!(matching(source, b"alpha gamma"), ["one"]);
    assert_eq!(matching(source, b"ALPHA"), ["three"]);
}

/// The automaton changes kind after its first files (an NFA, then a full DFA):
/// every file is judged the same before and after, overlapping and case-folded matches and
/// counts included.
#[test]
fn the_automaton_finds_the_same_after_it_changes_kind() {
    let source = r#"
        rule one { strings: $a = "alpha" condition: #a == 2 }
        rule two { strings: $a = "ALPHA" nocase $b = /be+ta/ condition: $a and $b }
        rule three { strings: $a = "aa" condition: #a == 3 }
        rule four { strings: $a = { 67 61 6D 6D 61 } condition: not $a }
    "#;
    let compiled = compile(&[("test.yar", source)]).unwrap_or_else(|error| panic!("{error}"));
    let files: [&[u8]; 4] = [b"alpha Alpha alpha beeta", b"aaaa gamma", b"ALPHA bta", b""];
    let first: Vec<_> = files
        .iter()
        .map(|data| compiled.scan(data, data.len() as u64))
        .collect();
    assert_eq!(
        first[0].iter().map(|hit| hit.rule).collect::<Vec<_>>(),
        [0, 1, 3]
    );
    assert_eq!(first[1].iter().map(|hit| hit.rule).collect::<Vec<_>>(), [2]);
    for _ in 0..40 {
        for (data, expected) in files.iter().zip(&first) {
            assert_eq!(&compiled.scan(data, data.len() as u64), expected);
        }
    }
}

/// The written table holds every expression of the shipped rules with the atoms derived
/// from it, and nothing else.
#[test]
fn the_written_atoms_are_the_shipped_rules_own() {
    let compiled =
        compile(&crate::analyzers::SHIPPED_RULE_FILES).unwrap_or_else(|error| panic!("{error}"));
    let derived: Vec<(String, Option<Vec<Vec<u8>>>)> = compiled
        .expressions
        .iter()
        .map(|expression| {
            let pattern = expression.pattern().to_owned();
            let atoms = super::atoms::derived(&pattern);
            (pattern, atoms)
        })
        .collect();
    let written: Vec<(String, Option<Vec<Vec<u8>>>)> = super::written::ATOMS
        .iter()
        .map(|(pattern, atoms)| {
            let atoms = atoms.map(|atoms| atoms.iter().map(|atom| atom.to_vec()).collect());
            ((*pattern).to_owned(), atoms)
        })
        .collect();
    assert!(derived.len() > 30, "{}", derived.len());
    if derived != written {
        let bytes = |atom: &[u8]| {
            let mut out = String::from("b\"");
            for &byte in atom {
                match byte {
                    b'"' | b'\\' => out.push_str(&format!("\\{}", char::from(byte))),
                    0x20..=0x7e => out.push(char::from(byte)),
                    _ => out.push_str(&format!("\\x{byte:02x}")),
                }
            }
            out.push('"');
            out
        };
        let mut table = String::from("pub(super) const ATOMS: &[(&str, Option<&[&[u8]]>)] = &[\n");
        for (pattern, atoms) in &derived {
            let atoms = match atoms {
                Some(atoms) => {
                    let atoms: Vec<String> = atoms.iter().map(|atom| bytes(atom)).collect();
                    format!("Some(&[{}])", atoms.join(", "))
                }
                None => "None".to_owned(),
            };
            table.push_str(&format!("    ({pattern:?}, {atoms}),\n"));
        }
        table.push_str("];\n");
        panic!("yara/written.rs is stale; its table is now:\n{table}");
    }
}
