//! The `instructions` analyzer: what the text of a skill tells the agent to do.
//!
//! Every text file the agent may read (`SKILL.md`, `references/*.md`, other Markdown, JSON
//! and YAML the skill points at) is scanned for phrases of a few families ([`Family`]):
//! overriding the agent's instructions (in English, Spanish, French, German, Portuguese,
//! Italian, Russian, Chinese, Japanese and Korean), reassigning its role, hiding what it
//! does from the user, turning off safety settings or the sandbox, fetching further
//! instructions from an address, sending secrets or data out, reading credential stores,
//! extracting the system prompt, forged chat-template markers and pressure tags. Two rules
//! combine them (reading credentials then sending data; hiding and sending), and one
//! compares the body with the description the catalog shows.
//!
//! The phrases are in `patterns.rs`, looked for over the text with invisible characters
//! taken out (so a zero-width space inside "ign​ore" hides nothing), each compiled and run
//! only when the text holds the literals it requires (`literals.rs`);
//! `context.rs` decides whether a match is said to the agent or only quoted or described
//! (code fences, inline code, quotation marks, "attackers may…", a list introduced as
//! examples), and a quoted match is reported once per file and family as `INSTR_QUOTED`
//! (info) instead of its family's rule. Text in HTML comments is left to the `hidden`
//! analyzer, which scans it with these same phrases ([`scan`]).

pub(in crate::analyzers) mod context;
pub(in crate::analyzers) mod markdown;
mod patterns;
mod required;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, OnceLock};

use regex::Regex;
use regex_automata::Input;
use skills_types::audit::{Category, Severity};

use super::literals::Gate;
use crate::files::{FileKind, ScannedFile, Skill};
use crate::findings::{Collector, Rule};
use markdown::{Region, Spans};
use patterns::PATTERNS;

const ANALYZER: &str = "instructions";

const OVERRIDE: Rule = Rule {
    id: "INSTR_OVERRIDE",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::PromptInjection,
    title: "Instruction override",
    remediation: "Remove the text that tells the agent to ignore or replace its instructions.",
};

const ROLE: Rule = Rule {
    id: "INSTR_ROLE_REASSIGNMENT",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::PromptInjection,
    title: "Role reassignment",
    remediation: "Remove the text that gives the agent a new, unrestricted role.",
};

const HIDE: Rule = Rule {
    id: "INSTR_HIDE_FROM_USER",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::PromptInjection,
    title: "Hides actions from the user",
    remediation: "A skill must let the agent tell the user what it does: remove the request \
                  to keep actions secret.",
};

const DISABLE_SAFETY: Rule = Rule {
    id: "INSTR_DISABLE_SAFETY",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::PolicyViolation,
    title: "Disables safety settings or the sandbox",
    remediation: "Remove the request to skip permissions, leave the sandbox or loosen the \
                  agent's settings; ask the user to change their configuration themselves.",
};

const REMOTE: Rule = Rule {
    id: "INSTR_REMOTE_INSTRUCTIONS",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::PromptInjection,
    title: "Fetches further instructions from an address",
    remediation: "Ship the instructions in the skill, where they are reviewed and pinned by \
                  its digest, instead of following whatever an address serves.",
};

const EXFILTRATION: Rule = Rule {
    id: "INSTR_EXFILTRATION",
    analyzer: ANALYZER,
    severity: Severity::Critical,
    category: Category::DataExfiltration,
    title: "Sends secrets out",
    remediation: "Remove the request to send credentials, the environment or the \
                  conversation to an outside address.",
};

const SEND_DATA: Rule = Rule {
    id: "INSTR_SEND_DATA",
    analyzer: ANALYZER,
    severity: Severity::Medium,
    category: Category::DataExfiltration,
    title: "Sends data to an outside address",
    remediation: "Say in the description what is sent where, or remove the request.",
};

const CREDENTIAL_ACCESS: Rule = Rule {
    id: "INSTR_CREDENTIAL_ACCESS",
    analyzer: ANALYZER,
    severity: Severity::Medium,
    category: Category::CredentialAccess,
    title: "Reads credential stores",
    remediation: "Use the credentials a tool is given, never the user's key files, \
                  keychains, browser profiles or every environment variable.",
};

const PROMPT_EXTRACTION: Rule = Rule {
    id: "INSTR_PROMPT_EXTRACTION",
    analyzer: ANALYZER,
    severity: Severity::Medium,
    category: Category::PromptInjection,
    title: "Asks for the system prompt",
    remediation: "Remove the request to reveal the agent's system prompt or instructions.",
};

const CHAT_MARKERS: Rule = Rule {
    id: "INSTR_CHAT_MARKERS",
    analyzer: ANALYZER,
    severity: Severity::Medium,
    category: Category::PromptInjection,
    title: "Forged chat-template or system markers",
    remediation: "Remove the role markers (`<|im_start|>`, `[INST]`, `<system>`): skill text \
                  must not pose as the system or another turn.",
};

const PRESSURE: Rule = Rule {
    id: "INSTR_PRESSURE",
    analyzer: ANALYZER,
    severity: Severity::Low,
    category: Category::SocialEngineering,
    title: "Pressure tags",
    remediation: "`<IMPORTANT>` tags and \"required for compliance\" are the shape of tool \
                  poisoning; say plainly what the step does and why.",
};

const COLLECT_AND_SEND: Rule = Rule {
    id: "INSTR_COLLECT_AND_SEND",
    analyzer: ANALYZER,
    severity: Severity::Critical,
    category: Category::DataExfiltration,
    title: "Reads credentials, then sends data out",
    remediation: "Remove the steps that gather credentials and send them to an outside \
                  address.",
};

const COVERT_SEND: Rule = Rule {
    id: "INSTR_COVERT_SEND",
    analyzer: ANALYZER,
    severity: Severity::Critical,
    category: Category::DataExfiltration,
    title: "Sends data out and hides it",
    remediation: "Remove the request to send data out without the user knowing.",
};

const DESCRIPTION_MISMATCH: Rule = Rule {
    id: "INSTR_DESCRIPTION_MISMATCH",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::SocialEngineering,
    title: "Body does what the description does not say",
    remediation: "Say in the description that the skill reads credentials or sends data, \
                  or remove what it does not need.",
};

const QUOTED: Rule = Rule {
    id: "INSTR_QUOTED",
    analyzer: ANALYZER,
    severity: Severity::Info,
    category: Category::PromptInjection,
    title: "Injection phrases quoted or described",
    remediation: "Nothing, if the skill documents attacks or shows commands; otherwise \
                  rewrite the text as what it is.",
};

/// This analyzer's rules.
pub(crate) const RULES: &[Rule] = &[
    OVERRIDE,
    ROLE,
    HIDE,
    DISABLE_SAFETY,
    REMOTE,
    EXFILTRATION,
    SEND_DATA,
    CREDENTIAL_ACCESS,
    PROMPT_EXTRACTION,
    CHAT_MARKERS,
    PRESSURE,
    COLLECT_AND_SEND,
    COVERT_SEND,
    DESCRIPTION_MISMATCH,
    QUOTED,
];

/// What a phrase is evidence of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::analyzers) enum Family {
    Override,
    Role,
    Hide,
    DisableSafety,
    Remote,
    Exfiltration,
    SendData,
    CredentialAccess,
    PromptExtraction,
    ChatMarkers,
    Pressure,
}

impl Family {
    #[cfg(test)]
    const ALL: [Self; 11] = [
        Self::Override,
        Self::Role,
        Self::Hide,
        Self::DisableSafety,
        Self::Remote,
        Self::Exfiltration,
        Self::SendData,
        Self::CredentialAccess,
        Self::PromptExtraction,
        Self::ChatMarkers,
        Self::Pressure,
    ];

    /// The rule a match of this family is reported under.
    pub(in crate::analyzers) fn rule(self) -> &'static Rule {
        match self {
            Self::Override => &OVERRIDE,
            Self::Role => &ROLE,
            Self::Hide => &HIDE,
            Self::DisableSafety => &DISABLE_SAFETY,
            Self::Remote => &REMOTE,
            Self::Exfiltration => &EXFILTRATION,
            Self::SendData => &SEND_DATA,
            Self::CredentialAccess => &CREDENTIAL_ACCESS,
            Self::PromptExtraction => &PROMPT_EXTRACTION,
            Self::ChatMarkers => &CHAT_MARKERS,
            Self::Pressure => &PRESSURE,
        }
    }

    /// What a match of this family asks, in a few words.
    pub(in crate::analyzers) fn label(self) -> &'static str {
        match self {
            Self::Override => "tells the agent to ignore its instructions",
            Self::Role => "gives the agent an unrestricted role",
            Self::Hide => "tells the agent to hide what it does from the user",
            Self::DisableSafety => "turns off permissions, safety settings or the sandbox",
            Self::Remote => "tells the agent to follow instructions fetched from an address",
            Self::Exfiltration => "tells the agent to send secrets to an outside address",
            Self::SendData => "tells the agent to send data to an outside address",
            Self::CredentialAccess => "tells the agent to read credential stores",
            Self::PromptExtraction => "asks for the agent's system prompt",
            Self::ChatMarkers => "poses as the system with chat-template markers",
            Self::Pressure => "pressure tags of the tool-poisoning kind",
        }
    }
}

/// How a text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::analyzers) enum Reading {
    /// Markdown or plain text: code, quotes and descriptions lower a match.
    Markdown,
    /// JSON, YAML, TOML and the like: everything is quoted, so quotes say nothing; a
    /// describing sentence still lowers a match.
    Structured,
    /// Text a reader does not see (an HTML comment): a describing sentence lowers a match.
    Hidden,
    /// Text recovered from an encoding or invisible characters: nothing lowers a match.
    Payload,
}

/// One phrase found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::analyzers) struct Hit {
    /// What it is evidence of.
    pub(in crate::analyzers) family: Family,
    /// Where, in bytes of the text scanned.
    pub(in crate::analyzers) start: usize,
    pub(in crate::analyzers) end: usize,
    /// The Markdown region it lies in, if any.
    pub(in crate::analyzers) region: Option<Region>,
    /// Why it reads as quoted or described, when it does.
    pub(in crate::analyzers) lowered: Option<&'static str>,
}

/// A pattern as written turned into the `regex` crate's syntax: spaces stand for any run of
/// white space or emphasis, `\b` is the ASCII word boundary.
fn expand(pattern: &str) -> String {
    let boundary = pattern.replace(r"\b", r"(?-u:\b)");
    boundary.replace(' ', r"[\s*_]+")
}

/// One part of a phrase, compiled ([`super::lean`]), with a prefilter or without.
fn build(source: &str, prefilter: bool) -> Option<Part> {
    super::lean(&expand(source), 16 << 20, prefilter)
}

/// How many texts a pattern's anchor is searched in before it is built again with its
/// prefilter. A prefilter costs about as much to build as the rest of the part, and pays only
/// over many texts: a process scanning one skill never builds it, a batch builds it once.
const ANCHOR_TEXTS_BEFORE_PREFILTER: usize = 4;

/// A compiled part of a phrase ([`build`]).
type Part = super::Lean;

/// The first match of `part` in `text` at or after `at`, as `regex::Regex::find_at` gives it.
fn find_at(part: &Part, text: &str, at: usize) -> Option<(usize, usize)> {
    if at > text.len() {
        return None;
    }
    part.find(Input::new(text).range(at..))
        .map(|found| (found.start(), found.end()))
}

/// One pattern, compiled: its parts in order, the most characters allowed between each part
/// and the next on the same line, and the part searched for first.
///
/// A bounded gap inside one automaton (`send[^\n]{0,80}?key`) makes the DFA count: after
/// every "send" it tracks each distance at once, and a set of such patterns spends its time
/// building states. Matching the parts one after the other keeps every automaton small: the
/// anchor parts (the rarest part of each pattern: a credential path, an address, "system
/// prompt") run as one set over the text, and the other parts are looked for only in the
/// short windows before and after the anchor.
///
/// Nothing is compiled up front but the literals every part requires (`literals.rs`); a
/// part is compiled the first time a text holds the literals of every part of its pattern,
/// so a scan pays for the patterns its text comes near.
struct Compiled {
    /// Each part, as its place among the table's distinct parts ([`Parts`]).
    parts: Vec<usize>,
    /// The anchor with its prefilter, once it has been searched in
    /// [`ANCHOR_TEXTS_BEFORE_PREFILTER`] texts; its matches are the same.
    anchor_prefiltered: OnceLock<Option<Part>>,
    anchor_searches: AtomicUsize,
    gaps: Vec<usize>,
    anchor: usize,
}

/// The distinct parts of all the phrases, each compiled without a prefilter on first use: a
/// part written the same in two phrases (a list of credential words, of outside addresses)
/// is compiled once. The other parts are only searched in the short windows beside an
/// anchor's match.
struct Parts {
    sources: Vec<&'static str>,
    built: Vec<OnceLock<Option<Part>>>,
}

impl Parts {
    /// The places of `sources` among the distinct parts, adding those not met before
    /// (`places` knows where each one met is).
    fn place(
        &mut self,
        places: &mut HashMap<&'static str, usize>,
        sources: &[&'static str],
    ) -> Vec<usize> {
        sources
            .iter()
            .map(|&source| {
                *places.entry(source).or_insert_with(|| {
                    self.sources.push(source);
                    self.built.push(OnceLock::new());
                    self.sources.len() - 1
                })
            })
            .collect()
    }
}

impl Compiled {
    fn part<'a>(&self, parts: &'a Parts, index: usize) -> Option<&'a Part> {
        let place = *self.parts.get(index)?;
        let source = parts.sources.get(place)?;
        parts
            .built
            .get(place)?
            .get_or_init(|| build(source, false))
            .as_ref()
    }

    /// The anchor, for a search over a whole text.
    fn anchor_part<'a>(&'a self, parts: &'a Parts) -> Option<&'a Part> {
        if self.anchor_searches.fetch_add(1, Ordering::Relaxed) < ANCHOR_TEXTS_BEFORE_PREFILTER {
            return self.part(parts, self.anchor);
        }
        let source = parts.sources.get(*self.parts.get(self.anchor)?)?;
        self.anchor_prefiltered
            .get_or_init(|| build(source, true))
            .as_ref()
    }
}

struct Table {
    /// The literals each pattern's parts require, for one pass over the text that says
    /// which patterns can match it at all (`literals.rs`).
    gate: Gate,
    patterns: Vec<Compiled>,
    parts: Parts,
}

/// The parts of `pattern` (its expression split at the gaps) and the gaps between them.
fn split(pattern: &patterns::Pattern) -> (Vec<&'static str>, Vec<usize>) {
    let mut parts = Vec::new();
    let mut gaps = Vec::new();
    for (index, piece) in pattern.regex.split(patterns::GAP).enumerate() {
        if index % 2 == 0 {
            parts.push(piece);
        } else {
            gaps.push(piece.parse().unwrap_or(0));
        }
    }
    (parts, gaps)
}

/// The literals `pattern`'s matches require, derived by parsing it: every part must match for
/// the pattern to, so the literals of each are required. What `required.rs` writes out.
#[cfg(test)]
fn derive_required(pattern: &patterns::Pattern) -> Vec<Vec<String>> {
    split(pattern)
        .0
        .iter()
        .flat_map(|part| super::literals::required(&expand(part)))
        .collect()
}

static COMPILED: LazyLock<Table> = LazyLock::new(|| {
    let mut patterns = Vec::with_capacity(PATTERNS.len());
    let mut parts = Parts {
        sources: Vec::new(),
        built: Vec::new(),
    };
    let mut places = HashMap::new();
    for pattern in PATTERNS {
        let (sources, gaps) = split(pattern);
        let anchor = pattern.anchor.min(sources.len().saturating_sub(1));
        patterns.push(Compiled {
            parts: parts.place(&mut places, &sources),
            anchor_prefiltered: OnceLock::new(),
            anchor_searches: AtomicUsize::new(0),
            gaps,
            anchor,
        });
    }
    // The literals as written beside the table (no pattern is parsed at start); a pattern
    // the written table does not reach is always a candidate.
    let written = required::REQUIRED.iter().map(|sets| {
        sets.iter()
            .map(|set| set.iter().map(|literal| (*literal).to_owned()).collect())
            .collect()
    });
    let required = written
        .chain(std::iter::repeat_with(Vec::new))
        .take(PATTERNS.len());
    Table {
        gate: Gate::of_sets(required),
        patterns,
        parts,
    }
});

/// Every pattern of this analyzer compiled case-insensitively through [`super::unfolded`],
/// as the regex syntax reads them.
#[cfg(test)]
pub(in crate::analyzers) fn case_insensitive_sources() -> Vec<String> {
    PATTERNS
        .iter()
        .flat_map(|pattern| split(pattern).0.into_iter().map(expand))
        .chain(context::SOURCES.iter().map(|source| (*source).to_owned()))
        .chain([CREDENTIAL_WORDS.to_owned(), SENDING_WORDS.to_owned()])
        .collect()
}

/// The most bytes a part's own match is looked for beyond its gap.
const PART_REACH: usize = 256;

/// The offset `count` characters after `from`, at most `bound`.
fn chars_after(text: &str, from: usize, count: usize, bound: usize) -> usize {
    text[from..bound]
        .char_indices()
        .nth(count)
        .map_or(bound, |(at, _)| from + at)
}

/// The offset `count` characters before `from`, at least `bound`.
fn chars_before(text: &str, from: usize, count: usize, bound: usize) -> usize {
    if count == 0 {
        return from;
    }
    text[bound..from]
        .char_indices()
        .rev()
        .nth(count - 1)
        .map_or(bound, |(at, _)| bound + at)
}

/// Where `pattern` matches whole in `text`, each match as a byte range.
fn find_all(parts: &Parts, pattern: &Compiled, text: &str) -> Vec<(usize, usize)> {
    let Some(anchor) = pattern.anchor_part(parts) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    'matches: for head in anchor.find_iter(text) {
        let (mut start, mut end) = (head.start(), head.end());
        // The parts before the anchor, nearest first: each must end at most its gap before
        // what follows it.
        for index in (0..pattern.anchor).rev() {
            let (Some(part), Some(&gap)) = (pattern.part(parts, index), pattern.gaps.get(index))
            else {
                continue 'matches;
            };
            let line_start = context::line_start(text, start);
            let limit = chars_before(text, start, gap, line_start);
            let from = context::floor(text, limit.saturating_sub(PART_REACH).max(line_start));
            let mut nearest = None;
            let mut at = from;
            while let Some((earlier_start, earlier_end)) = find_at(part, &text[..start], at) {
                if earlier_end >= limit {
                    nearest = Some(earlier_start);
                }
                at = context::ceil(text, earlier_end.max(earlier_start + 1));
                if at >= start {
                    break;
                }
            }
            match nearest {
                Some(earlier) => start = earlier,
                None => continue 'matches,
            }
        }
        // The parts after it: each must start at most its gap after what precedes it.
        for index in pattern.anchor + 1..pattern.parts.len() {
            let (Some(part), Some(&gap)) =
                (pattern.part(parts, index), pattern.gaps.get(index - 1))
            else {
                continue 'matches;
            };
            let line_end = context::line_end(text, end);
            let limit = chars_after(text, end, gap, line_end);
            let reach = context::floor(text, (limit + PART_REACH).min(line_end));
            match find_at(part, &text[..reach], end) {
                Some((next_start, next_end)) if next_start <= limit => end = next_end,
                _ => continue 'matches,
            }
        }
        found.push((start, end));
    }
    found
}

/// Characters that change nothing a reader sees and may be put inside a word to break a
/// phrase apart: zero-width, joiners, bidi controls, soft hyphens, tags, variation selectors.
pub(in crate::analyzers) fn is_invisible(character: char) -> bool {
    matches!(character,
        '\u{00ad}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
        | '\u{fe00}'..='\u{fe0f}' | '\u{e0000}'..='\u{e007f}' | '\u{e0100}'..='\u{e01ef}')
}

/// A text with invisible characters taken out and full-width ASCII folded, and the way back
/// to the original's offsets.
struct Normalised<'a> {
    text: std::borrow::Cow<'a, str>,
    /// For each byte of `text`, its offset in the original; one more entry for the end.
    origin: Vec<usize>,
}

impl<'a> Normalised<'a> {
    fn new(original: &'a str) -> Self {
        let changed = |c: char| is_invisible(c) || ('\u{ff01}'..='\u{ff5e}').contains(&c);
        if original.is_ascii() || !original.chars().any(changed) {
            return Self {
                text: std::borrow::Cow::Borrowed(original),
                origin: Vec::new(),
            };
        }
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len() + 1);
        for (offset, character) in original.char_indices() {
            if is_invisible(character) {
                continue;
            }
            let folded = if ('\u{ff01}'..='\u{ff5e}').contains(&character) {
                char::from_u32(u32::from(character) - 0xfee0).unwrap_or(character)
            } else {
                character
            };
            text.push(folded);
            origin.extend(std::iter::repeat_n(offset, folded.len_utf8()));
        }
        origin.push(original.len());
        Self {
            text: std::borrow::Cow::Owned(text),
            origin,
        }
    }

    /// The range of `original` that `start..end` of the normalised text came from.
    fn original(&self, original: &str, start: usize, end: usize) -> (usize, usize) {
        if self.origin.is_empty() {
            return (start, end);
        }
        let at = |offset: usize| self.origin.get(offset).copied().unwrap_or(original.len());
        let from = at(start);
        // Just past the original character that gave the match's last byte.
        let last = end.checked_sub(1).map_or(from, at);
        let width = original
            .get(last..)
            .and_then(|rest| rest.chars().next())
            .map_or(0, char::len_utf8);
        (from, (last + width).max(from))
    }
}

/// Every phrase of the instruction rules in `text`, read as `reading`, in order.
pub(in crate::analyzers) fn scan(text: &str, reading: Reading) -> Vec<Hit> {
    let table = &*COMPILED;
    let normal = Normalised::new(text);
    let candidates = table.gate.candidates(&normal.text);
    if candidates.is_empty() {
        return Vec::new();
    }
    let markdown = reading == Reading::Markdown;
    let mut spans = None;
    let mut hits = Vec::new();
    for index in candidates {
        let (Some(pattern), Some(compiled)) = (PATTERNS.get(index), table.patterns.get(index))
        else {
            continue;
        };
        for (found_start, found_end) in find_all(&table.parts, compiled, &normal.text) {
            let (start, end) = normal.original(text, found_start, found_end);
            let (start, end) = (
                context::floor(text, start),
                context::ceil(text, end.min(text.len())),
            );
            let end = through_address(text, start, end);
            if start >= end || voided(pattern, text, start, end) {
                continue;
            }
            if pattern.negatable && context::negated(text, start) {
                continue;
            }
            if pattern.conditional && context::conditional(text, start, end) {
                continue;
            }
            // Read the Markdown structure only for a text that has a phrase.
            let spans = spans.get_or_insert_with(|| {
                if markdown {
                    Spans::markdown(text)
                } else {
                    Spans::default()
                }
            });
            let region = spans.region(start);
            let lowered = match (reading, region) {
                (Reading::Payload, _) => None,
                (_, Some(Region::Fence)) => Some("in a code block"),
                (_, Some(Region::InlineCode)) => Some("in inline code"),
                _ if markdown && context::quoted(text, start, end) => Some("in quotation marks"),
                _ if markdown && context::in_link_text(text, start, end) => {
                    Some("the text of a link")
                }
                _ => context::described(text, spans, start, end, markdown),
            };
            hits.push(Hit {
                family: pattern.family,
                start,
                end,
                region,
                lowered,
            });
        }
    }
    hits.sort_by_key(|hit| (hit.start, hit.end));
    // One hit per family where phrases of a family overlap.
    let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
    for hit in hits {
        let overlaps = kept
            .iter()
            .rev()
            .take_while(|earlier| earlier.end > hit.start)
            .any(|earlier| earlier.family == hit.family);
        if !overlaps {
            kept.push(hit);
        }
    }
    kept
}

/// A match that stops inside an address (`… to https://`) is taken to the address's end, so
/// the message shows where, and the host is not read as words of the sentence.
fn through_address(text: &str, start: usize, end: usize) -> usize {
    if !text[start..end].contains("://") {
        return end;
    }
    let rest = &text[end..];
    end + rest
        .find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | '"' | '\'' | '`' | ']'))
        .unwrap_or(rest.len())
}

/// Whether a match is voided by its line or by what follows it.
fn voided(pattern: &patterns::Pattern, text: &str, start: usize, end: usize) -> bool {
    if !pattern.unless.is_empty() {
        let line = context::line_at(text, start).to_lowercase();
        if pattern.unless.iter().any(|word| line.contains(word)) {
            return true;
        }
    }
    if !pattern.not_followed_by.is_empty() {
        let after = &text[end..context::line_end(text, end)];
        let after = after.trim_start().to_lowercase();
        if pattern
            .not_followed_by
            .iter()
            .any(|word| after.starts_with(word))
        {
            return true;
        }
    }
    false
}

/// How a file of the skill is read, from its name: `None` for code and configuration in
/// languages the agent runs rather than reads (shell rc files, Go, C): their strings and
/// comments are not orders to the agent, and the `scripts` analyzer reads the code it runs.
pub(in crate::analyzers) fn reading_of(path: &str) -> Option<Reading> {
    const STRUCTURED: [&str; 12] = [
        ".json", ".jsonl", ".yaml", ".yml", ".toml", ".xml", ".ini", ".cfg", ".conf", ".csv",
        ".tsv", ".ipynb",
    ];
    const PROSE: [&str; 10] = [
        ".md",
        ".markdown",
        ".mdx",
        ".mdc",
        ".txt",
        ".text",
        ".rst",
        ".adoc",
        ".html",
        ".htm",
    ];
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    if STRUCTURED.iter().any(|extension| name.ends_with(extension)) {
        Some(Reading::Structured)
    } else if PROSE.iter().any(|extension| name.ends_with(extension))
        || !name.trim_start_matches('.').contains('.') && !name.starts_with('.')
    {
        Some(Reading::Markdown)
    } else {
        None
    }
}

/// A short, single-line quote of `text[start..end]` for a message.
pub(in crate::analyzers) fn quote(text: &str, start: usize, end: usize) -> String {
    let matched: String = text[start..end]
        .chars()
        .filter(|c| !is_invisible(*c))
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = matched.split(' ').filter(|w| !w.is_empty()).collect();
    let joined = words.join(" ");
    if joined.chars().count() > 80 {
        let cut: String = joined.chars().take(77).collect();
        format!("{cut}…")
    } else {
        joined
    }
}

/// One file's phrases with their lines, for the rules that combine them.
struct Placed<'a> {
    file: &'a ScannedFile,
    hit: Hit,
    line: usize,
}

/// Lines apart within which reading and sending, or hiding and sending, are one request.
const NEAR_LINES: usize = 3;

/// Adds this analyzer's findings about `skill` to `out`.
pub(crate) fn analyze(skill: &Skill, out: &mut Collector) {
    let mut evidence: Option<(&ScannedFile, Hit, &'static str)> = None;
    for file in &skill.files {
        if file.kind != FileKind::Text {
            continue;
        }
        let (Some(text), Some(reading)) = (file.text(), reading_of(&file.path)) else {
            continue;
        };
        let hits = scan(text, reading);
        let mut quoted: Vec<(Family, Hit, usize)> = Vec::new();
        let mut placed: Vec<Placed<'_>> = Vec::new();
        for hit in hits {
            if hit.region == Some(Region::Comment) {
                continue;
            }
            if hit.lowered.is_some() {
                match quoted
                    .iter_mut()
                    .find(|(family, _, _)| *family == hit.family)
                {
                    Some((_, _, count)) => *count += 1,
                    None => quoted.push((hit.family, hit, 1)),
                }
                continue;
            }
            let rule = hit.family.rule();
            out.at(
                rule,
                file,
                hit.start,
                hit.end - hit.start,
                format!(
                    "{}: \"{}\"",
                    capitalised(hit.family.label()),
                    quote(text, hit.start, hit.end)
                ),
            );
            let line = text[..hit.start].bytes().filter(|&b| b == b'\n').count();
            placed.push(Placed { file, hit, line });
        }
        combine(text, &placed, out);
        for (family, hit, count) in quoted {
            out.at(
                &QUOTED,
                file,
                hit.start,
                hit.end - hit.start,
                format!(
                    "{count} phrase(s) that {} ({}), read as quoted or described: \"{}\"",
                    family.label(),
                    hit.lowered.unwrap_or("quoted"),
                    quote(text, hit.start, hit.end)
                ),
            );
        }
        if evidence.is_none()
            && let Some(found) = placed
                .iter()
                .find_map(|placed| mismatch_evidence(placed.hit.family).map(|what| (placed, what)))
        {
            evidence = Some((found.0.file, found.0.hit.clone(), found.1));
        }
    }
    description_mismatch(skill, evidence, out);
}

fn capitalised(text: &str) -> String {
    let mut characters = text.chars();
    characters.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(characters).collect()
    })
}

/// The combined rules over one file's phrases: reading credentials near sending data, and
/// hiding near sending.
fn combine(text: &str, placed: &[Placed<'_>], out: &mut Collector) {
    let near = |a: &Placed<'_>, b: &Placed<'_>| a.line.abs_diff(b.line) <= NEAR_LINES;
    for send in placed
        .iter()
        .filter(|p| matches!(p.hit.family, Family::SendData | Family::Exfiltration))
    {
        let message = |what: &str, other: &Placed<'_>| {
            format!(
                "{what} (line {}: \"{}\"), then sends data out: \"{}\"",
                other.line + 1,
                quote(text, other.hit.start, other.hit.end),
                quote(text, send.hit.start, send.hit.end)
            )
        };
        if let Some(read) = placed
            .iter()
            .find(|p| p.hit.family == Family::CredentialAccess && near(p, send))
        {
            out.at(
                &COLLECT_AND_SEND,
                send.file,
                send.hit.start,
                send.hit.end - send.hit.start,
                message("Reads credentials", read),
            );
        }
        if let Some(hide) = placed
            .iter()
            .find(|p| p.hit.family == Family::Hide && near(p, send))
        {
            out.at(
                &COVERT_SEND,
                send.file,
                send.hit.start,
                send.hit.end - send.hit.start,
                message("Hides it from the user", hide),
            );
        }
    }
    // "Silently upload …" is both in one phrase.
    for hide in placed.iter().filter(|p| p.hit.family == Family::Hide) {
        let phrase = text[hide.hit.start..hide.hit.end].to_lowercase();
        let sending = [
            "send",
            "upload",
            "post",
            "transmit",
            "forward",
            "exfiltrate",
            "email",
        ]
        .iter()
        .any(|verb| phrase.contains(verb));
        if sending {
            out.at(
                &COVERT_SEND,
                hide.file,
                hide.hit.start,
                hide.hit.end - hide.hit.start,
                format!(
                    "Sends data out without the user knowing: \"{}\"",
                    quote(text, hide.hit.start, hide.hit.end)
                ),
            );
        }
    }
}

/// What a phrase of `family` shows the skill does, for comparing with its description.
fn mismatch_evidence(family: Family) -> Option<&'static str> {
    match family {
        Family::CredentialAccess => Some("reads credential stores"),
        Family::Exfiltration => Some("sends secrets out"),
        Family::SendData => Some("sends data to an outside address"),
        _ => None,
    }
}

/// Words in a description that make credential access expected.
const CREDENTIAL_WORDS: &str = r"(?-u:\b)(secur\w*|credential\w*|secret\w*|auth\w*|log ?in|sign ?in|tokens?|keys?|passwords?|passphrases?|ssh|gpg|pgp|vault|keychain|certificates?|certs?|encrypt\w*|decrypt\w*|deploy\w*|cloud|aws|azure|gcp|gcloud|kubernetes|k8s|kubectl|docker|registry|github|gitlab|git|ci|oauth|sso|iam|identity|accounts?|env|environment|config\w*|setup|install\w*|pentest\w*|audit\w*|forensic\w*|incident\w*|malware|vulnerab\w*|red ?team\w*|api|apis|sessions?|cookies?|browser\w*|wallets?|crypto\w*|migrat\w*|backup\w*|sync\w*)(?-u:\b)";

/// Words in a description that make sending data out expected.
const SENDING_WORDS: &str = r"(?-u:\b)(send\w*|upload\w*|post\w*|shar\w*|sync\w*|publish\w*|push\w*|deploy\w*|notif\w*|e?-?mail\w*|slack|discord|teams|telegram|webhooks?|api|apis|cloud|servers?|remote|https?|web|online|report\w*|export\w*|backup\w*|s3|buckets?|storage|drive|dropbox|integrat\w*|monitor\w*|telemetry|analytics|track\w*|log\w*|submit\w*|forward\w*|transfer\w*|messag\w*|upload|connect\w*|servic\w*|endpoints?)(?-u:\b)";

// Each is only asked whether it matches a description ([`super::lean`]), within the
// `regex` crate's default size.
static CREDENTIAL_WORDS_RE: LazyLock<Option<super::Lean>> =
    LazyLock::new(|| super::lean(CREDENTIAL_WORDS, 10 << 20, false));

static SENDING_WORDS_RE: LazyLock<Option<super::Lean>> =
    LazyLock::new(|| super::lean(SENDING_WORDS, 10 << 20, false));

/// Credential stores read by a bundled script: the paths and calls that only a tool about
/// credentials has a reason to touch. (The `scripts` analyzer reports these on their own;
/// here they only count against a description that says nothing of them.)
const SCRIPT_CREDENTIALS: &str = r"(~/\.ssh|\.ssh/id_|\bid_rsa\b|\bid_ed25519\b|\.aws/credentials|\.netrc\b|\.git-credentials|\.docker/config\.json|\.kube/config|/proc/[^/\s]+/environ|Login Data|cookies\.sqlite|find-generic-password|find-internet-password|dump-keychain|wallet\.dat|\.bash_history|\.zsh_history)";

static SCRIPT_CREDENTIALS_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(SCRIPT_CREDENTIALS).ok());

/// `INSTR_DESCRIPTION_MISMATCH`: the body reads credentials or sends data out and the
/// description, which is what the user and the catalog see, says nothing related.
fn description_mismatch(
    skill: &Skill,
    evidence: Option<(&ScannedFile, Hit, &'static str)>,
    out: &mut Collector,
) {
    let description = skill.description.trim();
    if description.is_empty() {
        return;
    }
    let mentions = |regex: &LazyLock<Option<super::Lean>>| {
        regex
            .as_ref()
            .is_some_and(|regex| regex.is_match(description))
    };
    let short: String = description.chars().take(80).collect();
    if let Some((file, hit, what)) = evidence {
        let expected = match hit.family {
            Family::SendData => mentions(&SENDING_WORDS_RE),
            _ => mentions(&CREDENTIAL_WORDS_RE),
        };
        if !expected {
            let text = file.text().unwrap_or_default();
            out.at(
                &DESCRIPTION_MISMATCH,
                file,
                hit.start,
                hit.end - hit.start,
                format!(
                    "The description (\"{short}\") says nothing of it, but the skill {what}: \"{}\"",
                    quote(text, hit.start, hit.end)
                ),
            );
            return;
        }
    }
    let scripts = || {
        skill
            .files
            .iter()
            .filter(|file| matches!(file.kind, FileKind::Script(_)))
            .filter_map(|file| Some((file, file.text()?)))
    };
    // Without a script to read there is nothing to find, and the words are not compiled.
    if scripts().next().is_none() || mentions(&CREDENTIAL_WORDS_RE) {
        return;
    }
    let Some(regex) = SCRIPT_CREDENTIALS_RE.as_ref() else {
        return;
    };
    for (file, text) in scripts() {
        if let Some(found) = regex.find(text) {
            out.at(
                &DESCRIPTION_MISMATCH,
                file,
                found.start(),
                found.len(),
                format!(
                    "The description (\"{short}\") says nothing of credentials, but {} reads `{}`",
                    file.path,
                    found.as_str()
                ),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests;
