//! What the parser makes of a rule file: rules with their meta, strings and condition, the
//! condition's string names already resolved to indices into the rule's strings (a name
//! that does not resolve is the parser's error, at its line).

/// One `rule NAME : tags { meta: strings: condition: }`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RuleDecl {
    pub(crate) name: String,
    /// 1-based line of the `rule` keyword.
    pub(crate) line: usize,
    pub(crate) tags: Vec<String>,
    pub(crate) meta: Vec<Meta>,
    pub(crate) strings: Vec<StringDecl>,
    pub(crate) condition: Expr,
}

/// One `key = value` of a rule's `meta:` section.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Meta {
    pub(crate) key: String,
    pub(crate) value: MetaValue,
    pub(crate) line: usize,
}

/// A meta value: YARA allows text, integers and booleans.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum MetaValue {
    Text(String),
    Integer(i64),
    Boolean(bool),
}

/// One `$name = pattern modifiers` of a rule's `strings:` section.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StringDecl {
    /// Without the `$`; empty for an anonymous string (`$ = "..."`).
    pub(crate) name: String,
    pub(crate) line: usize,
    pub(crate) pattern: Pattern,
    pub(crate) modifiers: Modifiers,
}

/// What a string looks for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Pattern {
    /// A text string, its escapes already turned into bytes.
    Text(Vec<u8>),
    /// A hex string.
    Hex(Vec<HexToken>),
    /// A regular expression as written between the slashes, with its `i` and `s` flags.
    Regex {
        source: String,
        nocase: bool,
        dotall: bool,
    },
}

/// One piece of a hex string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HexToken {
    /// A byte; `mask` says which bits must equal `value` (`4?` is value 0x40, mask 0xF0).
    Byte { value: u8, mask: u8 },
    /// `[min-max]` arbitrary bytes; `max` is `None` for `[min-]`.
    Jump { min: u32, max: Option<u32> },
    /// `( a | b | c )`.
    Alternatives(Vec<Vec<HexToken>>),
}

/// The modifiers of a string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Modifiers {
    pub(crate) nocase: bool,
    pub(crate) ascii: bool,
    pub(crate) wide: bool,
    pub(crate) fullword: bool,
    pub(crate) private: bool,
}

/// A condition. String operands are indices into the rule's strings.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    Bool(bool),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    /// `$a`.
    Found(usize),
    /// `$a at N`.
    At(usize, Int),
    /// `$a in (A..B)`.
    In(usize, Int, Int),
    /// `any of them`, `2 of ($a*, $b)`.
    Of(Quantifier, Vec<usize>),
    /// `#a > 2`, `filesize < 1MB`, `uint16(0) == 0x5A4D`.
    Compare(Int, Comparison, Int),
}

/// How many strings of a set must match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quantifier {
    Any,
    All,
    None,
    AtLeast(u64),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Comparison {
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

/// An integer operand.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Int {
    Literal(i64),
    /// The whole file's size.
    Filesize,
    /// `#a`.
    Count(usize),
    /// `@a[i]` (1-based; `@a` is `@a[1]`).
    Offset(usize, Box<Int>),
    /// `!a[i]`.
    Length(usize, Box<Int>),
    /// `uint16(offset)`, `int32be(offset)`, ...
    Read {
        bytes: u8,
        big_endian: bool,
        signed: bool,
        at: Box<Int>,
    },
}
