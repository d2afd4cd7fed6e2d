//! The whole-value sanitiser: every string and key, at any depth, in either form (a value or
//! its text), with the forms chosen by member name, the message `id` echoed, and text that is
//! not JSON still unable to carry an escaped control.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

/// A character [`block`] may keep: line feeds, tabs, the CR of a CRLF pair and the two
/// joiners (Persian, emoji sequences; see `block`).
fn kept_by_block(character: char) -> bool {
    matches!(character, '\n' | '\t' | '\r' | '\u{200c}' | '\u{200d}')
}

/// Every string and key of `value`, each with whether it sits where multi-line text may.
fn strings(value: &Value, multi_line: bool, found: &mut Vec<(String, bool)>) {
    match value {
        Value::String(text) => found.push((text.clone(), multi_line)),
        Value::Array(items) => {
            for item in items {
                strings(item, multi_line, found);
            }
        }
        Value::Object(members) => {
            for (name, member) in members {
                found.push((name.clone(), false));
                strings(member, MULTI_LINE_KEYS.contains(&name.as_str()), found);
            }
        }
        _ => {}
    }
}

/// Panics naming the first string of `value` that holds a character it must not.
fn assert_clean(value: &Value) {
    let mut found = Vec::new();
    strings(value, true, &mut found);
    for (text, multi_line) in found {
        let bad: Vec<char> = text
            .chars()
            .filter(|&character| {
                if multi_line {
                    is_removed(character) && !kept_by_block(character)
                } else {
                    is_removed(character) || is_line_break(character)
                }
            })
            .collect();
        assert!(bad.is_empty(), "{text:?} holds {bad:?} in {value}");
    }
}

/// What the issue reported: a declared tool's schema with raw ESC, BEL and U+202E nested in
/// its descriptions and title, as `tools/list` answers it.
fn tools_list() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "tools": [{
                "name": "evil__greet",
                "description": "Greets \u{1b}[31mwhom\u{1b}[0m",
                "inputSchema": {
                    "type": "object",
                    "title": "T\u{202e}itle",
                    "properties": {
                        "who": {
                            "type": "string",
                            "description": "Who \u{7} \u{1b}]0;owned\u{7}\nnext",
                            "items": [{ "title": "deep \u{9b}2J" }],
                        },
                    },
                },
            }],
        },
    })
}

#[test]
fn every_nested_description_and_title_of_a_message_is_cleaned() {
    let mut value = tools_list();
    message(&mut value);
    assert_clean(&value);
    let tool = &value["result"]["tools"][0];
    assert_eq!(tool["description"], "Greets whom");
    let schema = &tool["inputSchema"];
    assert_eq!(schema["title"], "Title");
    assert_eq!(
        schema["properties"]["who"]["description"], "Who   next",
        "a single-line field keeps its words, its line break a space"
    );
    assert_eq!(schema["properties"]["who"]["items"][0]["title"], "deep ");
    assert_eq!(value["id"], 7);
}

#[test]
fn the_text_form_agrees_with_the_value_form_and_keeps_the_bytes_it_does_not_change() {
    let value = tools_list();
    let text = serde_json::to_string(&value).unwrap();
    let cleaned = message_text(&text);
    let parsed: Value = serde_json::from_str(&cleaned).unwrap();
    let mut expected = value;
    message(&mut expected);
    assert_eq!(parsed, expected);
    // Spacing and number spelling of the original survive.
    let spaced = "{ \"id\" : 1.50 , \"result\" : { \"text\" : \"a\\u0007b\" } }";
    assert_eq!(
        message_text(spaced),
        "{ \"id\" : 1.50 , \"result\" : { \"text\" : \"ab\" } }"
    );
}

#[test]
fn bodies_keep_their_lines_and_single_line_fields_do_not() {
    let mut value = json!({
        "body": "# Title\n\n\u{1b}[2Jstep\tone\r\n",
        "content": "file \u{202e}text\n",
        "stdout": ["out\u{7}\n", "more\n"],
        "name": "two\nlines",
        "path": "a\u{200b}b",
    });
    json(&mut value);
    assert_eq!(value["body"], "# Title\n\nstep\tone\r\n");
    assert_eq!(value["content"], "file text\n");
    assert_eq!(value["stdout"], json!(["out\n", "more\n"]));
    assert_eq!(value["name"], "two lines");
    assert_eq!(value["path"], "ab");
}

#[test]
fn keys_are_cleaned_and_stay_distinct() {
    let mut value = json!({ "a\u{200b}": 1, "a": 2, "b\u{1b}[31m": { "c\n": 3 } });
    json(&mut value);
    assert_clean(&value);
    assert_eq!(value["a"], 2);
    assert_eq!(value["a\\u{200b}"], 1);
    assert_eq!(value["b\\u{1b}[31m"]["c\\u{a}"], 3);
    let text = r#"{"a\u200b":1,"a":2}"#;
    let parsed: Value = serde_json::from_str(&message_text(text)).unwrap();
    assert_eq!(parsed, json!({ "a\\u{200b}": 1, "a": 2 }));
}

#[test]
fn the_message_id_is_echoed_exactly_and_nothing_else_is() {
    let text =
        r#"{"jsonrpc":"2.0","id":"a\u001bb","result":{"id":"x\u0007y","skill":{"id":"p\u202eq"}}}"#;
    let parsed: Value = serde_json::from_str(&message_text(text)).unwrap();
    assert_eq!(
        parsed["id"], "a\u{1b}b",
        "the client's own id, to match the answer"
    );
    assert_eq!(parsed["result"]["id"], "xy");
    assert_eq!(parsed["result"]["skill"]["id"], "pq");
    let batch = r#"[{"id":"a\u0007","error":{"message":"m\u0007"}},{"id":2}]"#;
    let parsed: Value = serde_json::from_str(&message_text(batch)).unwrap();
    assert_eq!(parsed[0]["id"], "a\u{7}");
    assert_eq!(parsed[0]["error"]["message"], "m");
    let mut value: Value = serde_json::from_str(batch).unwrap();
    message(&mut value);
    assert_eq!(value[0]["id"], "a\u{7}");
    assert_eq!(value[0]["error"]["message"], "m");
    // Only a string is an id a client could have sent; anything else under `id` is cleaned.
    let parsed: Value =
        serde_json::from_str(&message_text(r#"{"id":{"a\u0007":["b\u0007"]}}"#)).unwrap();
    assert_eq!(parsed, json!({ "id": { "a\\u{7}": ["b"] } }));
    let mut value = json!({ "id": { "a\u{7}": ["b\u{7}"] } });
    message(&mut value);
    assert_eq!(value, json!({ "id": { "a\\u{7}": ["b"] } }));
    // Outside a message an `id` is a field like any other.
    let mut plain = json!({ "id": "a\u{7}" });
    json(&mut plain);
    assert_eq!(plain["id"], "a");
    assert_eq!(json_text(r#"{"id":"a\u0007"}"#), r#"{"id":"a"}"#);
    assert_eq!(json_text(r#"[{"id":"a\u0007"}]"#), r#"[{"id":"a"}]"#);
}

#[test]
fn no_depth_is_too_deep() {
    let depth = 10_000;
    let text = format!(
        "{}\"\\u001b[31mdeep\\u202e\"{}",
        "{\"structuredContent\":[".repeat(depth),
        "]}".repeat(depth)
    );
    let cleaned = message_text(&text);
    assert!(
        cleaned.contains("\"deep\""),
        "{}",
        &cleaned[cleaned.len() - 100..]
    );
    assert!(!cleaned.contains("\\u001b") && !cleaned.contains("\\u202e"));
    let mut value = Value::String("\u{1b}[31mdeep".to_owned());
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    json(&mut value);
    let mut inner = &value;
    while let Value::Array(items) = inner {
        inner = &items[0];
    }
    assert_eq!(inner, "deep");
    // Dropping a value this deep recurses in serde_json itself; keep it off this stack.
    std::mem::forget(value);
}

#[test]
fn text_that_is_not_json_carries_no_escaped_control_either() {
    for text in [
        "{\"text\":\"a\\u001b[31m\\u0007",
        "not json \u{1b}[31m at all \u{202e}",
        "{\"a\": \u{7}\u{202e}, \"b\": \"\\ud800\\u001b\"}",
        "\"\\",
        "\"",
        "{\"k\\",
    ] {
        let cleaned = message_text(text);
        assert!(
            !cleaned
                .chars()
                .any(|character| is_removed(character) && !matches!(character, '\n' | '\t' | '\r')),
            "{text:?} -> {cleaned:?}"
        );
        for escaped in ["\\u001b", "\\u0007", "\\u202e"] {
            assert!(!cleaned.contains(escaped), "{text:?} -> {cleaned:?}");
        }
    }
}

#[test]
fn escapes_decode_as_json_reads_them() {
    let text = r#"{"a":"\ud83d\ude00 \u00e9\/\"\\ \ud800x \u0007\b\f"}"#;
    let parsed: Value = serde_json::from_str(&message_text(text)).unwrap();
    // BEL and backspace removed, the form feed a line break: one space.
    assert_eq!(parsed["a"], "😀 é/\"\\ \u{fffd}x  ");
}

#[test]
fn clean_text_is_borrowed() {
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        r##"{"body":"# Title\n\nStep one.\n","name":"pdf"}"##,
        r#"{"name":"café 😀 \"quoted\" \\ back"}"#,
        "",
    ] {
        assert!(matches!(message_text(text), Cow::Borrowed(_)), "{text}");
    }
}

/// A string drawn with everything that steers: escape sequences, controls, bidi, zero-width
/// and tag characters, line breaks and the characters JSON escapes.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        any::<char>().prop_map(String::from),
        prop::sample::select(vec![
            "\u{1b}[31m",
            "\u{1b}]0;t\u{7}",
            "\u{9b}2J",
            "\u{202e}",
            "\u{2066}",
            "\u{200b}",
            "\u{200d}",
            "\u{feff}",
            "\u{e0041}",
            "\u{fdd0}",
            "\u{2028}",
            "\u{85}",
            "\0",
            "\u{7f}",
            "\n",
            "\r\n",
            "\r",
            "\t",
            "\"",
            "\\",
            "/",
            "id",
            "text",
            "body",
            "a",
        ])
        .prop_map(str::to_owned),
    ];
    proptest::collection::vec(pieces, 0..12).prop_map(|pieces| pieces.concat())
}

fn hostile_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        hostile_text().prop_map(Value::String),
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    prop_oneof![
                        hostile_text(),
                        prop::sample::select(MULTI_LINE_KEYS).prop_map(str::to_owned),
                        Just("id".to_owned()),
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the value, nothing that steers is left in it (but the echoed `id` of a
    /// message), the text form agrees with the value form, and a second pass changes nothing.
    #[test]
    fn no_string_or_key_of_any_value_steers(value in hostile_value()) {
        let mut cleaned = value.clone();
        json(&mut cleaned);
        assert_clean(&cleaned);

        let mut again = cleaned.clone();
        json(&mut again);
        prop_assert_eq!(&again, &cleaned);

        let wrapped = json!({ "result": value.clone() });
        let text = serde_json::to_string(&wrapped).unwrap();
        let from_text: Value = serde_json::from_str(&message_text(&text)).unwrap();
        let mut from_value = wrapped;
        message(&mut from_value);
        prop_assert_eq!(&from_text, &from_value);
        assert_clean(&from_text);
        let from_json_text: Value =
            serde_json::from_str(&json_text(&serde_json::to_string_pretty(&value).unwrap())).unwrap();
        prop_assert_eq!(&from_json_text, &cleaned);
        let pretty = serde_json::to_string_pretty(&json!({ "result": value })).unwrap();
        let from_pretty: Value = serde_json::from_str(&message_text(&pretty)).unwrap();
        prop_assert_eq!(&from_pretty, &from_value);
    }

    /// Text that is not JSON at all (or is cut anywhere) still holds no removed character
    /// and no escape of one.
    #[test]
    fn any_text_comes_out_without_an_escaped_control(value in hostile_value(), cut in 0usize..400) {
        // Wrapped, so that no `id` of the value is a message's echoed one.
        let text = serde_json::to_string(&json!({ "result": value })).unwrap();
        let end = text.char_indices().map(|(at, _)| at).find(|&at| at >= cut).unwrap_or(text.len());
        let cleaned = message_text(&text[..end]);
        prop_assert!(!cleaned.chars().any(|character| is_removed(character)
            && !matches!(character, '\n' | '\t' | '\r' | '\u{200c}' | '\u{200d}')), "{:?}", cleaned);
    }
}

/// `text` written through a [`SanitizingWriter`] in pieces cut at the byte offsets `cuts`
/// (taken modulo the length, so a cut may fall inside a character).
fn written_in_pieces(text: &str, cuts: &[usize], is_message: bool) -> Vec<u8> {
    use std::io::Write as _;
    let bytes = text.as_bytes();
    let mut offsets: Vec<usize> = cuts
        .iter()
        .map(|cut| cut % (bytes.len() + 1))
        .chain([0, bytes.len()])
        .collect();
    offsets.sort_unstable();
    let mut writer = if is_message {
        SanitizingWriter::for_messages(Vec::new())
    } else {
        SanitizingWriter::new(Vec::new())
    };
    for piece in offsets.windows(2) {
        writer.write_all(&bytes[piece[0]..piece[1]]).unwrap();
        // A flush between pieces must not end a literal or a character early.
        writer.flush().unwrap();
    }
    writer.finish().unwrap()
}

/// Text that is JSON, JSON cut short, or anything at all.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        hostile_value().prop_map(|value| serde_json::to_string_pretty(&value).unwrap()),
        hostile_value()
            .prop_map(
                |value| serde_json::to_string(&json!({ "id": "\u{1b}", "result": value })).unwrap()
            ),
        (hostile_value(), 0usize..400).prop_map(|(value, cut)| {
            let text = serde_json::to_string(&value).unwrap();
            let end = text
                .char_indices()
                .map(|(at, _)| at)
                .find(|&at| at >= cut)
                .unwrap_or(text.len());
            text[..end].to_owned()
        }),
        hostile_text(),
        proptest::collection::vec(
            prop::sample::select(vec![
                "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "00", "1b", " ", "\n", "id",
                "text", "é", "\u{202e}", "\u{7}"
            ]),
            0..40,
        )
        .prop_map(|pieces| pieces.concat()),
    ]
}

#[test]
fn the_writer_keeps_literals_and_characters_cut_between_writes() {
    let text = "{\"text\": \"a\\u001b[31m\u{e9}\u{202e}\", \"n\\\"ame\": \"\u{1f600}\"}";
    let whole = json_text(text).into_owned().into_bytes();
    // Every single cut, and every byte a write of its own.
    for cut in 0..=text.len() {
        assert_eq!(
            written_in_pieces(text, &[cut], false),
            whole,
            "cut at {cut}"
        );
    }
    let every: Vec<usize> = (0..text.len()).collect();
    assert_eq!(written_in_pieces(text, &every, false), whole);
}

#[test]
fn the_writer_reads_bytes_that_are_not_utf8_as_replacement_characters() {
    use std::io::Write as _;
    let mut writer = SanitizingWriter::new(Vec::new());
    writer.write_all(b"{\"a\": \"x\xffy\xe2\x82\"}").unwrap();
    writer.write_all(b"\xe2\x82").unwrap();
    let written = writer.finish().unwrap();
    assert_eq!(
        String::from_utf8(written).unwrap(),
        "{\"a\": \"x\u{fffd}y\u{fffd}\"}\u{fffd}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// The streaming writer writes, for any text cut into any pieces, exactly what the text
    /// form makes of the whole text: one scanner, whatever the pieces.
    #[test]
    fn the_writer_writes_what_the_text_form_makes_of_the_whole(
        text in any_text(),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        is_message in any::<bool>(),
    ) {
        let whole = if is_message { message_text(&text) } else { json_text(&text) };
        let written = written_in_pieces(&text, &cuts, is_message);
        prop_assert_eq!(String::from_utf8(written).unwrap(), whole.into_owned());
    }
}
