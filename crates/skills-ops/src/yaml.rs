//! The one module that touches YAML.
//!
//! Frontmatter text goes in; a small [`Node`] tree comes out, in which every scalar keeps its
//! source text (`version: 1.10` stays `"1.10"`, never the float `1.1`). Nothing else in the
//! workspace names the YAML crate, so swapping it is a change to this file alone.
//!
//! The common shapes (one-line values, block scalars, small maps and lists) are read by a fast
//! path (`fast`) that declines anything else; the rest goes to the full parser, `serde_yaml`
//! (libyaml underneath). Two things it does not give us are added
//! here:
//!
//! - **Source text of plain scalars.** `deserialize_any` resolves `1.10`, `true` and `~` into
//!   typed values and drops their text, while `deserialize_str` hands back the text of any
//!   scalar but refuses collections. So the tree is built with `deserialize_any`; when it holds
//!   a typed scalar, a second pass over the same text, guided by the shape the first pass found,
//!   asks for every scalar as a string. Most frontmatters are all strings and parse once.
//! - **Bounds on hostile input.** libyaml's cost grows with the square of flow nesting (a
//!   megabyte of `[` takes minutes), so the number of `[` and `{` is bounded before parsing;
//!   serde_yaml's own alias-repetition limit is backed by budgets on the nodes and scalar bytes
//!   the expansion may build, and by a depth limit far below its own.

mod fast;

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use skills_types::limits::{
    MAX_YAML_DEPTH, MAX_YAML_EXPANDED_BYTES, MAX_YAML_FLOW_COLLECTIONS, MAX_YAML_NODES,
};

/// A parsed YAML value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    Scalar(Scalar),
    Sequence(Vec<Node>),
    /// Entries in source order; keys are the keys' source text, and unique.
    Mapping(Vec<(String, Node)>),
}

/// A scalar with its source text and the type YAML 1.2 resolves it to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Scalar {
    pub(crate) text: String,
    pub(crate) kind: ScalarKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ScalarKind {
    Null,
    Bool(bool),
    Integer(i128),
    Float(f64),
    String,
}

/// Why a frontmatter could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub(crate) message: String,
    /// 1-based line within the parsed text, when the parser knows it.
    pub(crate) line: Option<u32>,
    /// The input is hostile or absurd (too deep, too many aliases) rather than mistyped.
    pub(crate) too_complex: bool,
}

impl Node {
    /// The scalar's source text, or `None` for a collection.
    pub(crate) fn as_text(&self) -> Option<&str> {
        match self {
            Self::Scalar(scalar) => Some(&scalar.text),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(
            self,
            Self::Scalar(Scalar {
                kind: ScalarKind::Null,
                ..
            })
        )
    }

    /// A short name of the node's type, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Self::Scalar(scalar) => match scalar.kind {
                ScalarKind::Null => "null",
                ScalarKind::Bool(_) => "boolean",
                ScalarKind::Integer(_) | ScalarKind::Float(_) => "number",
                ScalarKind::String => "string",
            },
            Self::Sequence(_) => "list",
            Self::Mapping(_) => "mapping",
        }
    }

    /// The value as JSON: typed scalars become JSON scalars, collections JSON collections.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Self::Scalar(scalar) => match scalar.kind {
                ScalarKind::Null => Value::Null,
                ScalarKind::Bool(flag) => Value::Bool(flag),
                ScalarKind::Integer(number) => i64::try_from(number)
                    .map(Value::from)
                    .or_else(|_| u64::try_from(number).map(Value::from))
                    .unwrap_or_else(|_| Value::String(scalar.text.clone())),
                ScalarKind::Float(number) => serde_json::Number::from_f64(number)
                    .map_or_else(|| Value::String(scalar.text.clone()), Value::Number),
                ScalarKind::String => Value::String(scalar.text.clone()),
            },
            Self::Sequence(items) => Value::Array(items.iter().map(Self::to_json).collect()),
            Self::Mapping(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(key, value)| (key.clone(), value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Writes a value as YAML text (the frontmatter between the fences). serde_yaml quotes every
/// string that would otherwise read back as something else (`"1.0"`, `"yes"`, a leading `-`),
/// and a multi-line string never produces a line that is exactly `---`, so written text always
/// parses back to the same values.
pub(crate) fn to_text(value: &impl serde::Serialize) -> Result<String, String> {
    serde_yaml::to_string(value).map_err(|error| error.to_string())
}

/// Parses frontmatter text. Empty text, or text holding only comments, is an empty mapping.
pub(crate) fn parse(text: &str) -> Result<Node, ParseError> {
    let flow_collections = text.bytes().filter(|b| matches!(b, b'[' | b'{')).count();
    if flow_collections > MAX_YAML_FLOW_COLLECTIONS {
        return Err(ParseError {
            message: format!(
                "the frontmatter has {flow_collections} `[` or `{{` characters; at most {MAX_YAML_FLOW_COLLECTIONS} are accepted"
            ),
            line: None,
            too_complex: true,
        });
    }
    // Without aliases the tree holds no more text than the source, so the fast path stays
    // inside the expansion budget by staying inside this one.
    if text.len() <= MAX_YAML_EXPANDED_BYTES
        && let Some(node) = fast::parse(text)
    {
        return Ok(node);
    }
    parse_full(text)
}

/// [`parse`] by the full YAML parser alone.
fn parse_full(text: &str) -> Result<Node, ParseError> {
    let budget = Budget::default();
    let mut node = NodeSeed {
        budget: &budget,
        depth: 0,
    }
    .deserialize(serde_yaml::Deserializer::from_str(text))
    .map_err(|error| budget.explain(&error))?;

    if node.is_null() {
        // An empty document (or one holding only comments) is an empty frontmatter.
        return Ok(Node::Mapping(Vec::new()));
    }
    if budget.typed_scalars.get() && !matches!(node, Node::Scalar(_)) {
        TextSeed { node: &mut node }
            .deserialize(serde_yaml::Deserializer::from_str(text))
            .map_err(|error| budget.explain(&error))?;
    }
    Ok(node)
}

/// What the first pass may still build, and what it saw.
#[derive(Default)]
struct Budget {
    nodes: Cell<usize>,
    bytes: Cell<usize>,
    typed_scalars: Cell<bool>,
    exceeded: Cell<Option<&'static str>>,
}

impl Budget {
    fn spend<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        let nodes = self.nodes.get() + 1;
        let total = self.bytes.get().saturating_add(bytes);
        self.nodes.set(nodes);
        self.bytes.set(total);
        if nodes > MAX_YAML_NODES {
            return Err(self.exceed("the frontmatter expands to too many values"));
        }
        if total > MAX_YAML_EXPANDED_BYTES {
            return Err(self.exceed("the frontmatter expands to too much text"));
        }
        Ok(())
    }

    fn exceed<E: de::Error>(&self, why: &'static str) -> E {
        self.exceeded.set(Some(why));
        E::custom(why)
    }

    fn explain(&self, error: &serde_yaml::Error) -> ParseError {
        let message = error.to_string();
        // serde_yaml reports its own alias-repetition and recursion limits only as text.
        let own_limit = message.contains("repetition limit") || message.contains("recursion limit");
        match self.exceeded.get() {
            Some(why) => ParseError {
                message: format!("{why} (aliases or nesting beyond the limits)"),
                line: None,
                too_complex: true,
            },
            None => ParseError {
                line: error
                    .location()
                    .and_then(|location| u32::try_from(location.line()).ok()),
                message,
                too_complex: own_limit,
            },
        }
    }
}

struct NodeSeed<'b> {
    budget: &'b Budget,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = Node;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl NodeSeed<'_> {
    fn typed<E: de::Error>(self, kind: ScalarKind) -> Result<Node, E> {
        self.budget.spend(0)?;
        self.budget.typed_scalars.set(true);
        Ok(Node::Scalar(Scalar {
            text: String::new(),
            kind,
        }))
    }

    fn child(&self) -> NodeSeed<'_> {
        NodeSeed {
            budget: self.budget,
            depth: self.depth + 1,
        }
    }

    fn enter<E: de::Error>(&self) -> Result<(), E> {
        if self.depth >= MAX_YAML_DEPTH {
            return Err(self
                .budget
                .exceed("the frontmatter nests collections too deeply"));
        }
        self.budget.spend(0)
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Node, E> {
        self.typed(ScalarKind::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Node, E> {
        self.typed(ScalarKind::Integer(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Node, E> {
        self.typed(ScalarKind::Integer(value.into()))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Node, E> {
        self.typed(ScalarKind::Integer(value))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Node, E> {
        match i128::try_from(value) {
            Ok(value) => self.typed(ScalarKind::Integer(value)),
            Err(_) => self.typed(ScalarKind::Float(value as f64)),
        }
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Node, E> {
        self.typed(ScalarKind::Float(value))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Node, E> {
        self.budget.spend(value.len())?;
        Ok(Node::Scalar(Scalar {
            text: value.to_owned(),
            kind: ScalarKind::String,
        }))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        self.typed(ScalarKind::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        self.typed(ScalarKind::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Node, A::Error> {
        self.enter()?;
        let mut items = Vec::new();
        while let Some(item) = access.next_element_seed(self.child())? {
            items.push(item);
        }
        Ok(Node::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Node, A::Error> {
        self.enter()?;
        let mut entries: Vec<(String, Node)> = Vec::new();
        let mut seen = HashSet::new();
        while let Some(key) = access.next_key_seed(KeySeed {
            budget: self.budget,
        })? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let value = access.next_value_seed(self.child())?;
            entries.push((key, value));
        }
        Ok(Node::Mapping(entries))
    }
}

/// Reads a mapping key as its source text; a collection used as a key is refused.
struct KeySeed<'b> {
    budget: &'b Budget,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = String;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar mapping key")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        self.budget.spend(value.len())?;
        Ok(value.to_owned())
    }
}

/// The second pass: walks the tree the first pass built and replaces the text of every scalar
/// with its source text, which `deserialize_str` returns for any scalar.
struct TextSeed<'n> {
    node: &'n mut Node,
}

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.node {
            Node::Scalar(scalar) => {
                if scalar.kind != ScalarKind::String {
                    scalar.text = deserializer.deserialize_str(SourceText)?;
                } else {
                    deserializer.deserialize_ignored_any(IgnoredAny)?;
                }
                Ok(())
            }
            Node::Sequence(items) => deserializer.deserialize_seq(SequenceText { items }),
            Node::Mapping(entries) => deserializer.deserialize_map(MappingText { entries }),
        }
    }
}

struct SourceText;

impl Visitor<'_> for SourceText {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        Ok(value.to_owned())
    }
}

struct SequenceText<'n> {
    items: &'n mut [Node],
}

impl<'de> Visitor<'de> for SequenceText<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the sequence the first pass saw")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<(), A::Error> {
        for node in self.items.iter_mut() {
            if access.next_element_seed(TextSeed { node })?.is_none() {
                return Err(de::Error::custom("the sequence changed between passes"));
            }
        }
        Ok(())
    }
}

struct MappingText<'n> {
    entries: &'n mut [(String, Node)],
}

impl<'de> Visitor<'de> for MappingText<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the mapping the first pass saw")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<(), A::Error> {
        for (_, node) in self.entries.iter_mut() {
            if access.next_key::<IgnoredAny>()?.is_none() {
                return Err(de::Error::custom("the mapping changed between passes"));
            }
            access.next_value_seed(TextSeed { node })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(text: &str) -> Vec<(String, Node)> {
        match parse(text).unwrap() {
            Node::Mapping(entries) => entries,
            other => panic!("not a mapping: {other:?}"),
        }
    }

    fn text_of<'a>(entries: &'a [(String, Node)], key: &str) -> &'a str {
        entries
            .iter()
            .find(|(name, _)| name == key)
            .and_then(|(_, node)| node.as_text())
            .unwrap()
    }

    #[test]
    fn typed_scalars_keep_their_source_text() {
        let entries = mapping("a: 1.0\nb: 1.10\nc: 007\nd: True\ne: ~\nf: 0x1F\ng: 1e3\nh: -0\n");
        for (key, text) in [
            ("a", "1.0"),
            ("b", "1.10"),
            ("c", "007"),
            ("d", "True"),
            ("e", "~"),
            ("f", "0x1F"),
            ("g", "1e3"),
            ("h", "-0"),
        ] {
            assert_eq!(text_of(&entries, key), text, "{key}");
        }
        assert_eq!(entries[0].1.to_json(), serde_json::json!(1.0));
        assert_eq!(entries[3].1.to_json(), serde_json::json!(true));
        assert!(entries[4].1.is_null());
    }

    #[test]
    fn nested_typed_scalars_keep_their_text() {
        let entries = mapping("m:\n  v: 2.50\n  l: [1.0, x, {k: 3.0}]\n");
        let Node::Mapping(inner) = &entries[0].1 else {
            panic!()
        };
        assert_eq!(text_of(inner, "v"), "2.50");
        let Node::Sequence(items) = &inner[1].1 else {
            panic!()
        };
        assert_eq!(items[0].as_text(), Some("1.0"));
        assert_eq!(items[1].as_text(), Some("x"));
        let Node::Mapping(deep) = &items[2] else {
            panic!()
        };
        assert_eq!(text_of(deep, "k"), "3.0");
    }

    #[test]
    fn empty_and_comment_only_text_is_an_empty_mapping() {
        assert_eq!(parse("").unwrap(), Node::Mapping(Vec::new()));
        assert_eq!(parse("# nothing\n").unwrap(), Node::Mapping(Vec::new()));
    }

    #[test]
    fn syntax_errors_carry_a_line() {
        let error = parse("a: b\n  c: d: e\n").unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(!error.too_complex);
    }

    #[test]
    fn duplicate_keys_and_collection_keys_are_errors() {
        assert!(
            parse("a: 1\na: 2\n")
                .unwrap_err()
                .message
                .contains("duplicate key `a`")
        );
        assert!(parse("? [a]\n: b\n").is_err());
    }

    #[test]
    fn alias_bomb_fails_fast() {
        let mut bomb = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let mut previous = "a".to_owned();
        for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
            let refs = vec![format!("*{previous}"); 9].join(",");
            bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
            previous = name.to_owned();
        }
        // Refused by the expansion count, before the work grows: no clock needed to show it.
        let error = parse(&bomb).unwrap_err();
        assert!(error.too_complex, "{error:?}");
    }

    #[test]
    fn string_alias_bomb_hits_the_byte_budget() {
        let big = "x".repeat(100_000);
        let text = format!(
            "a: &a \"{big}\"\nb: &b [{}]\nc: [{}]\n",
            vec!["*a"; 100].join(","),
            vec!["*b"; 100].join(",")
        );
        let error = parse(&text).unwrap_err();
        assert!(error.too_complex, "{error:?}");
    }

    /// Frontmatters in the shapes the fast path is for; each must be taken by it.
    const COMMON: [&str; 12] = [
        "name: pdf\ndescription: Fill PDF forms, and split them.\n",
        "name: a\ndescription: \"Quoted: with \\\"escapes\\\" and \\\\ and # hash\"\nlicense: MIT\n",
        "name: a\ndescription: 'it''s single: quoted'\n",
        "name: a\ndescription: >\n  Folded text\n  over lines.\n\n  New paragraph.\nlicense: MIT\n",
        "name: a\ndescription: |\n  Literal\n  lines\n\nnext: x\n",
        "description: >-\n  stripped\n  folded\nname: a\n",
        "description: |+\n  kept\n\n\nname: a\n",
        "metadata:\n  version: \"1.2.0\"\n  author: someone\n  n: 1.10\n  count: 007\nname: a\n",
        "metadata:\n  version: 1.0\n  int: 42\n  flag: true\n  none: ~\n  word: null\nname: a\n",
        "allowed-tools: [Read, Write, \"Bash(git status:*)\"]\nplatforms:\n  - linux\n  - 'mac os'\n",
        "triggers:\n- one\n- \"two\"\nname: a\ndescription: Use C# and http://x.y/z?q=1, [a] {b}.\n",
        "name: ünïcode-名前\ndescription: Ωmega — “quotes” …\nmetadata:\n  tags: []\n  deep:\n    deeper: yes\n",
    ];

    /// Frontmatters the fast path must leave to the full parser.
    const DECLINED: [&str; 23] = [
        "",
        "# only a comment\n",
        "name: a # comment\n",
        "name: a\n# comment\n",
        "name: a\r\n",
        "name:\ta\n",
        "name: a\n  continued plain\n",
        "name: &x a\nother: *x\n",
        "name: !tag a\n",
        "name: a\nname: b\n",
        "metadata: {a: b}\n",
        "name: \"a\\nb\"\n",
        "name: \"open\n  close\"\n",
        "description: |2\n   indented\n",
        "description: >\n  a\n    more indented\n  b\n",
        "description: |\n\n  leading empty\n",
        "description: >\n  trailing space \n  b\n",
        "name: 0x1F\n",
        "name: 1e3\n",
        "name: -1\n",
        "name: a: b\n",
        "key:\n",
        "name: a",
    ];

    #[test]
    fn the_fast_path_takes_the_common_shapes_and_agrees_with_the_full_parser() {
        for text in COMMON {
            let fast = fast::parse(text).unwrap_or_else(|| panic!("declined {text:?}"));
            assert_eq!(Ok(fast), parse_full(text), "{text:?}");
        }
    }

    #[test]
    fn the_fast_path_declines_what_it_does_not_know() {
        for text in DECLINED {
            assert_eq!(fast::parse(text), None, "{text:?}");
            // And the answer is still the full parser's, error or tree.
            assert_eq!(parse(text), parse_full(text), "{text:?}");
        }
    }

    /// Lines built from the pieces where YAML's rules are subtle: typed and quoted scalars,
    /// indicators, block scalar headers, indentation, comments, odd characters.
    fn frontmatter_lines() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let keys = prop::sample::select(vec![
            "name",
            "description",
            "metadata",
            "a",
            "on",
            "x-y",
            "k_1",
            "1",
            "a b",
            "-",
        ]);
        let separators = prop::sample::select(vec![": ", ":", ":  ", " : ", ":\t", "- "]);
        let values = prop::sample::select(vec![
            "",
            "plain",
            "two words",
            "1",
            "1.0",
            "1.10",
            "007",
            "0",
            "01.5",
            "0x1F",
            "0o7",
            "0b1",
            "1e3",
            "1.",
            ".5",
            "+1",
            "-1",
            "-.inf",
            ".nan",
            "inf",
            "nan",
            "true",
            "True",
            "FALSE",
            "yes",
            "~",
            "null",
            "Null",
            "\"q\"",
            "\"a\\\"b\"",
            "\"a\\nb\"",
            "\"open",
            "'s'",
            "'it''s'",
            "'open",
            "|",
            ">",
            "|-",
            ">+",
            "|2",
            "> #c",
            "[a, b]",
            "[]",
            "[1.0, x]",
            "[a, [b]]",
            "{a: b}",
            "a: b",
            "a #c",
            "a#c",
            "x:",
            "- a",
            "&a x",
            "*a",
            "!t x",
            "%x",
            "@x",
            "`x",
            "Bash(git:*)",
            "ü",
            "\u{2028}",
            "\u{85}",
            "\u{feff}x",
            "a\"b'c",
            "C#",
            "http://x",
            "? q",
        ]);
        let line = (0..5usize, keys, separators, values).prop_map(|(indent, key, sep, value)| {
            format!("{}{key}{sep}{value}", " ".repeat(indent))
        });
        let text_line = (
            0..5usize,
            prop::sample::select(vec!["text", "# c", "", "more text: x"]),
        )
            .prop_map(|(indent, text)| format!("{}{text}", " ".repeat(indent)));
        let any_line = prop_oneof![3 => line, 2 => text_line];
        proptest::collection::vec(any_line, 0..10).prop_map(|lines| {
            let mut text = lines.join("\n");
            text.push('\n');
            text
        })
    }

    /// A frontmatter built from a seed: mostly the shapes the fast path takes (so that it
    /// really answers), each value drawn from pieces where YAML's rules are subtle.
    fn structured_frontmatter(seed: u64) -> String {
        struct Rng(u64);
        impl Rng {
            fn below(&mut self, n: usize) -> usize {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                (self.0 % n as u64) as usize
            }
            fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
                items[self.below(items.len())]
            }
        }
        const KEYS: [&str; 10] = [
            "name",
            "description",
            "license",
            "metadata",
            "a",
            "b-c",
            "k_1",
            "on",
            "yes",
            "x",
        ];
        const SCALARS: [&str; 40] = [
            "plain",
            "two words",
            "1",
            "1.0",
            "1.10",
            "007",
            "0",
            "01.5",
            "0x1F",
            "1e3",
            "-1",
            "true",
            "True",
            "FALSE",
            "yes",
            "~",
            "null",
            "\"q\"",
            "\"a\\\"b\\\\\"",
            "'s'",
            "'it''s'",
            "[a, b]",
            "[]",
            "[1.0, x, 'y']",
            "a #c",
            "a#c",
            "C#",
            "http://x",
            "ü",
            "Bash(git:*)",
            "a\"b'c",
            "x:",
            "a: b",
            "\"a\\nb\"",
            "[a, [b]]",
            "{a: b}",
            "&a x",
            "!t x",
            "-x",
            "99999999999999999999",
        ];
        const LINES: [&str; 8] = [
            "a",
            "b c",
            "# not a comment",
            "x: y",
            "",
            "\"q\"",
            "- i",
            "  more",
        ];
        fn mapping(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
            for _ in 0..1 + rng.below(4) {
                let pad = " ".repeat(indent);
                let key = rng.pick(&KEYS);
                match rng.below(if depth < 2 { 6 } else { 3 }) {
                    0 | 1 => {
                        let value = rng.pick(&SCALARS);
                        out.push_str(&format!("{pad}{key}: {value}\n"));
                    }
                    2 => {
                        let header = rng.pick(&["|", "|-", "|+", ">", ">-", ">+", "| ", ">2"]);
                        out.push_str(&format!("{pad}{key}: {header}\n"));
                        let inner = indent + 1 + rng.below(3);
                        for _ in 0..1 + rng.below(4) {
                            let line = rng.pick(&LINES);
                            let extra = if rng.below(8) == 0 { 1 } else { 0 };
                            if line.is_empty() {
                                out.push('\n');
                            } else {
                                out.push_str(&format!("{}{line}\n", " ".repeat(inner + extra)));
                            }
                        }
                    }
                    3 => {
                        out.push_str(&format!("{pad}{key}:\n"));
                        let inner = indent + 1 + rng.below(3);
                        mapping(rng, out, inner, depth + 1);
                    }
                    4 => {
                        out.push_str(&format!("{pad}{key}:\n"));
                        let inner = indent + 2 * rng.below(2);
                        for _ in 0..1 + rng.below(3) {
                            let item = rng.pick(&SCALARS);
                            out.push_str(&format!("{}- {item}\n", " ".repeat(inner)));
                        }
                    }
                    _ => out.push_str(&format!("{pad}{key}:\n")),
                }
                if rng.below(10) == 0 {
                    out.push('\n');
                }
            }
        }
        let mut rng = Rng(seed | 1);
        let mut out = String::new();
        mapping(&mut rng, &mut out, 0, 0);
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

        /// Whatever the fast path accepts, the full parser reads the same way: same tree, same
        /// scalar texts and types, and never a tree where the full parser reports an error.
        #[test]
        fn the_fast_path_never_disagrees(text in frontmatter_lines()) {
            if let Some(fast) = fast::parse(&text) {
                proptest::prop_assert_eq!(Ok(fast), parse_full(&text), "{:?}", text);
            }
        }

        /// The same on documents mostly in the subset, so that the fast path answers often.
        #[test]
        fn the_fast_path_agrees_on_structured_documents(seed in proptest::prelude::any::<u64>()) {
            let text = structured_frontmatter(seed);
            if let Some(fast) = fast::parse(&text) {
                proptest::prop_assert_eq!(Ok(fast), parse_full(&text), "{:?}", text);
            }
        }
    }

    #[test]
    fn deep_nesting_is_refused() {
        let flow = format!("a: {}", "[".repeat(200_000));
        let error = parse(&flow).unwrap_err();
        assert!(error.too_complex);

        let block = format!("a:\n{}x\n", "- ".repeat(100_000));
        let error = parse(&block).unwrap_err();
        assert!(error.too_complex, "{error:?}");

        let just_deep = format!("a: {}1{}\n", "[".repeat(40), "]".repeat(40));
        assert!(parse(&just_deep).unwrap_err().too_complex);
        let fine = format!("a: {}1{}\n", "[".repeat(10), "]".repeat(10));
        assert!(parse(&fine).is_ok());
    }
}
