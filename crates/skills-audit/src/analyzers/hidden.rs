//! The `hidden` analyzer: what a reader of a skill does not see but a model does.
//!
//! - Bidirectional controls (U+202A–U+202E, U+2066–U+2069) reorder what an editor or a
//!   review page shows, so a line can read as harmless while its bytes say otherwise (the
//!   "Trojan Source" class of attack).
//! - Zero-width characters inside a word break it for a reader's search and a filter's
//!   phrase list while the model still reads the word; long runs of them carry data.
//! - Unicode tag characters (U+E0000–U+E007F) and runs of variation selectors are invisible
//!   everywhere and spell out ASCII or bytes ("ASCII smuggling"): they are decoded and what
//!   they carry is scanned with the instruction rules.
//! - HTML comments and invisible Markdown (link definitions used as comments, empty links
//!   whose title carries text, HTML styled not to show) are not rendered: a comment that
//!   holds orders, commands or words addressed to the model is reported, a plain comment is
//!   not.
//! - A name that looks like, or is one keystroke from, another installed skill's.
//! - Long base64, hex and gzip blobs, and short literals at a decoding call: decoded
//!   (`decode.rs`, bounded) and scanned for instructions, commands and addresses.

mod decode;
mod names;
pub(in crate::analyzers) mod payload;

use std::sync::{LazyLock, OnceLock};

use regex::{Regex, RegexBuilder};
use skills_types::audit::{Category, Severity};

use crate::analyzers::instructions::markdown::{Region, Spans};
use crate::analyzers::instructions::{self, Reading};
use crate::files::{FileKind, ScannedFile, Skill};
use crate::findings::{Collector, Rule};
use decode::Content;

const ANALYZER: &str = "hidden";

const BIDI: Rule = Rule {
    id: "HIDDEN_BIDI_CONTROL",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::UnicodeSteganography,
    title: "Bidirectional control character",
    remediation: "Remove the bidirectional control characters; if right-to-left text is \
                  intended, write it without explicit overrides.",
};

const ZERO_WIDTH: Rule = Rule {
    id: "HIDDEN_ZERO_WIDTH",
    analyzer: ANALYZER,
    severity: Severity::Medium,
    category: Category::UnicodeSteganography,
    title: "Zero-width characters inside words",
    remediation: "Remove the zero-width characters: inside a word they only hide it from a \
                  search or a filter.",
};

const ZERO_WIDTH_RUN: Rule = Rule {
    id: "HIDDEN_ZERO_WIDTH_RUN",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::UnicodeSteganography,
    title: "Run of zero-width characters",
    remediation: "Remove the run of zero-width characters: it carries data no reader sees.",
};

const TAG_CHARACTERS: Rule = Rule {
    id: "HIDDEN_TAG_CHARACTERS",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::UnicodeSteganography,
    title: "Unicode tag characters",
    remediation: "Remove the tag characters: they spell out text that is invisible to every \
                  reader.",
};

const VARIATION_SELECTORS: Rule = Rule {
    id: "HIDDEN_VARIATION_SELECTORS",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::UnicodeSteganography,
    title: "Run of variation selectors",
    remediation: "Remove the variation selectors: a run of them encodes bytes, not a glyph \
                  variant.",
};

const SMUGGLED_INSTRUCTIONS: Rule = Rule {
    id: "HIDDEN_SMUGGLED_INSTRUCTIONS",
    analyzer: ANALYZER,
    severity: Severity::Critical,
    category: Category::PromptInjection,
    title: "Instructions in invisible characters",
    remediation: "Remove the invisible characters: they carry instructions or commands no \
                  reader can see.",
};

const COMMENT_INSTRUCTIONS: Rule = Rule {
    id: "HIDDEN_COMMENT_INSTRUCTIONS",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::PromptInjection,
    title: "Instructions in an HTML comment",
    remediation: "Move the text out of the comment where a reader sees it, or remove it.",
};

const INVISIBLE_INSTRUCTIONS: Rule = Rule {
    id: "HIDDEN_INVISIBLE_INSTRUCTIONS",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::PromptInjection,
    title: "Instructions in invisible Markdown",
    remediation: "Write the text where a reader sees it, or remove it.",
};

const INVISIBLE_TEXT: Rule = Rule {
    id: "HIDDEN_INVISIBLE_TEXT",
    analyzer: ANALYZER,
    severity: Severity::Low,
    category: Category::Obfuscation,
    title: "Text styled not to show",
    remediation: "Text the agent reads should be text a reader sees: remove the hiding style \
                  or the empty link's title.",
};

const HOMOGLYPH_NAME: Rule = Rule {
    id: "HIDDEN_HOMOGLYPH_NAME",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::SupplyChainAttack,
    title: "Name imitates another skill",
    remediation: "Check where this skill comes from: its name looks like another installed \
                  skill's but is not the same.",
};

const SIMILAR_NAME: Rule = Rule {
    id: "HIDDEN_SIMILAR_NAME",
    analyzer: ANALYZER,
    severity: Severity::Medium,
    category: Category::SupplyChainAttack,
    title: "Name one keystroke from another skill's",
    remediation: "Check that this is the skill you meant: its name differs from another \
                  installed skill's by one character.",
};

const ENCODED_COMMAND: Rule = Rule {
    id: "HIDDEN_ENCODED_COMMAND",
    analyzer: ANALYZER,
    severity: Severity::Critical,
    category: Category::Obfuscation,
    title: "Encoded dangerous command",
    remediation: "Remove the encoded blob: it decodes to a command that downloads, connects \
                  out, destroys or reads credentials.",
};

const ENCODED_INSTRUCTIONS: Rule = Rule {
    id: "HIDDEN_ENCODED_INSTRUCTIONS",
    analyzer: ANALYZER,
    severity: Severity::Critical,
    category: Category::Obfuscation,
    title: "Encoded instructions",
    remediation: "Remove the encoded blob: it decodes to instructions for the agent that a \
                  reader cannot see.",
};

const ENCODED_URL: Rule = Rule {
    id: "HIDDEN_ENCODED_URL",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::Obfuscation,
    title: "Encoded address",
    remediation: "Write the address in plain text: encoding it only hides where the skill \
                  connects.",
};

const ENCODED_EXECUTABLE: Rule = Rule {
    id: "HIDDEN_ENCODED_EXECUTABLE",
    analyzer: ANALYZER,
    severity: Severity::High,
    category: Category::Obfuscation,
    title: "Encoded executable",
    remediation: "Ship no programs inside text: remove the encoded executable.",
};

const ENCODED_BLOB: Rule = Rule {
    id: "HIDDEN_ENCODED_BLOB",
    analyzer: ANALYZER,
    severity: Severity::Info,
    category: Category::Obfuscation,
    title: "Encoded blob",
    remediation: "Nothing dangerous was found in it; prefer plain files to encoded data.",
};

/// This analyzer's rules.
pub(crate) const RULES: &[Rule] = &[
    BIDI,
    ZERO_WIDTH,
    ZERO_WIDTH_RUN,
    TAG_CHARACTERS,
    VARIATION_SELECTORS,
    SMUGGLED_INSTRUCTIONS,
    COMMENT_INSTRUCTIONS,
    INVISIBLE_INSTRUCTIONS,
    INVISIBLE_TEXT,
    HOMOGLYPH_NAME,
    SIMILAR_NAME,
    ENCODED_COMMAND,
    ENCODED_INSTRUCTIONS,
    ENCODED_URL,
    ENCODED_EXECUTABLE,
    ENCODED_BLOB,
];

/// Zero-width characters in a row that carry data rather than a join or a break.
const ZERO_WIDTH_RUN_LENGTH: usize = 8;
/// Variation selectors in a row that encode bytes (one selects a glyph; several never do).
const VARIATION_RUN_LENGTH: usize = 4;
/// The most characters of smuggled text kept for scanning and the message.
const SMUGGLED_CHARS: usize = 4096;
/// The longest decoded text an encoded address is looked for in: a longer text is data
/// that happens to hold addresses.
const ADDRESS_TEXT: usize = 256;

/// The bidirectional embedding, override and isolate controls.
fn is_bidi_control(character: char) -> bool {
    matches!(character, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Characters with no width that join, break or mark nothing a reader sees.
fn is_zero_width(character: char) -> bool {
    matches!(character, '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{180e}')
}

fn is_tag(character: char) -> bool {
    ('\u{e0000}'..='\u{e007f}').contains(&character)
}

/// The byte a variation selector stands for in the usual smuggling scheme (VS1–VS16 for
/// 0–15, VS17–VS256 for 16–255), if it is one.
fn variation_byte(character: char) -> Option<u8> {
    let code = u32::from(character);
    match code {
        0xfe00..=0xfe0f => u8::try_from(code - 0xfe00).ok(),
        0xe0100..=0xe01ef => u8::try_from(code - 0xe0100 + 16).ok(),
        _ => None,
    }
}

/// Adds this analyzer's findings about `skill` to `out`.
pub(crate) fn analyze(skill: &Skill, out: &mut Collector) {
    name_imitation(skill, out);
    for file in &skill.files {
        if file.kind == FileKind::Binary {
            continue;
        }
        let Some(text) = file.text() else { continue };
        if !text.is_ascii() {
            invisible_characters(file, text, out);
        }
        if file.kind == FileKind::Text {
            match markup(&file.path) {
                Markup::Markdown => {
                    let spans = Spans::markdown(text);
                    comments(file, text, spans.comments(text), out);
                    invisible_markdown(file, text, &spans, out);
                }
                Markup::Html => comments(file, text, html_comments(text), out),
                Markup::None => {}
            }
        }
        encoded(file, text, out);
    }
}

/// What kind of comments a text file has.
enum Markup {
    Markdown,
    Html,
    None,
}

fn markup(path: &str) -> Markup {
    let lower = path.to_ascii_lowercase();
    if [".html", ".htm", ".svg", ".xml", ".xhtml"]
        .iter()
        .any(|extension| lower.ends_with(extension))
    {
        Markup::Html
    } else if instructions::reading_of(path) == Some(Reading::Markdown) {
        Markup::Markdown
    } else {
        Markup::None
    }
}

/// What one pass over a text's characters found.
#[derive(Default)]
struct Invisible {
    bidi: Option<(usize, char)>,
    bidi_count: usize,
    /// The first zero-width character between two letters or digits, and how many.
    in_word: Option<(usize, usize)>,
    in_word_count: usize,
    /// The first long run of zero-width characters: where, how long, and the run.
    run: Option<(usize, usize, Vec<char>)>,
    /// Tag characters outside flag emoji: the first's place, their count, what they spell.
    tags: Option<usize>,
    tag_count: usize,
    tag_text: String,
    /// Runs of variation selectors: the first's place, the bytes they encode.
    selectors: Option<usize>,
    selector_bytes: Vec<u8>,
}

/// Bidi controls, zero-width characters, tag characters and variation selectors, in one pass.
fn invisible_characters(file: &ScannedFile, text: &str, out: &mut Collector) {
    let mut found = Invisible::default();
    let mut characters = text.char_indices().peekable();
    let mut previous: Option<char> = None;
    while let Some((offset, character)) = characters.next() {
        if is_bidi_control(character) {
            // Listed, not used: inside a character class of a detector,
            // `[\u{202a}-\u{202e}]`, every neighbour is a bracket, a range dash or another
            // invisible character. An override that reorders text sits next to the text it
            // reorders.
            let listed = |c: Option<char>| c.is_some_and(|c| "[]-".contains(c));
            let next = characters.peek().map(|(_, c)| *c);
            let listed_or_bidi =
                |c: Option<char>| listed(c) || c.is_some_and(instructions::is_invisible);
            if !(listed_or_bidi(previous) && listed_or_bidi(next)) {
                found.bidi.get_or_insert((offset, character));
                found.bidi_count += 1;
            }
        } else if is_zero_width(character) && !(offset == 0 && character == '\u{feff}') {
            let mut run = vec![character];
            while let Some((_, next)) = characters.next_if(|(_, c)| is_zero_width(*c)) {
                if run.len() < SMUGGLED_CHARS * 8 {
                    run.push(next);
                }
            }
            let after = characters.peek().map(|(_, c)| *c);
            if run.len() >= ZERO_WIDTH_RUN_LENGTH {
                if found.run.is_none() {
                    found.run = Some((offset, run.len(), run));
                }
            } else if previous.is_some_and(|c| c.is_ascii_alphanumeric())
                && after.is_some_and(|c| c.is_ascii_alphanumeric())
            {
                found.in_word.get_or_insert((offset, run.len()));
                found.in_word_count += 1;
            }
            // What comes before the next character is the run, not a letter.
            previous = Some(character);
            continue;
        } else if is_tag(character) {
            let flag = previous == Some('\u{1f3f4}');
            let mut count = 1;
            let mut spelled = vec![character];
            while let Some((_, next)) = characters.next_if(|(_, c)| is_tag(*c)) {
                count += 1;
                spelled.push(next);
            }
            if !flag {
                found.tags.get_or_insert(offset);
                found.tag_count += count;
                for tag in spelled {
                    let ascii = u32::from(tag) - 0xe0000;
                    if (0x20..0x7f).contains(&ascii) && found.tag_text.len() < SMUGGLED_CHARS {
                        found.tag_text.extend(char::from_u32(ascii));
                    }
                }
            }
        } else if let Some(byte) = variation_byte(character) {
            let mut bytes = vec![byte];
            while let Some((_, next)) = characters.next_if(|(_, c)| variation_byte(*c).is_some()) {
                bytes.extend(variation_byte(next));
            }
            if bytes.len() >= VARIATION_RUN_LENGTH {
                found.selectors.get_or_insert(offset);
                let room = SMUGGLED_CHARS.saturating_sub(found.selector_bytes.len());
                found.selector_bytes.extend(bytes.into_iter().take(room));
            }
        }
        previous = Some(character);
    }
    report_invisible(file, found, out);
}

fn report_invisible(file: &ScannedFile, found: Invisible, out: &mut Collector) {
    if let Some((offset, character)) = found.bidi {
        out.at(
            &BIDI,
            file,
            offset,
            character.len_utf8(),
            format!(
                "{} bidirectional control character(s), the first U+{:04X}",
                found.bidi_count,
                u32::from(character)
            ),
        );
    }
    if let Some((offset, length)) = found.in_word {
        out.at(
            &ZERO_WIDTH,
            file,
            offset,
            length,
            format!(
                "{} place(s) where zero-width characters split a word",
                found.in_word_count
            ),
        );
    }
    if let Some((offset, length, run)) = found.run {
        let carried = zero_width_bits(&run);
        smuggled(
            file,
            offset,
            &format!("{length} zero-width characters in a row"),
            carried.as_deref(),
            &ZERO_WIDTH_RUN,
            out,
        );
    }
    if let Some(offset) = found.tags {
        let text = (!found.tag_text.is_empty()).then_some(found.tag_text.as_str());
        smuggled(
            file,
            offset,
            &format!("{} tag character(s)", found.tag_count),
            text,
            &TAG_CHARACTERS,
            out,
        );
    }
    if let Some(offset) = found.selectors {
        let text = String::from_utf8(found.selector_bytes).ok();
        smuggled(
            file,
            offset,
            "a run of variation selectors",
            text.as_deref().filter(|text| !text.trim().is_empty()),
            &VARIATION_SELECTORS,
            out,
        );
    }
}

/// Reports invisible characters that carry `text`: as instructions when it holds any, else
/// under `rule` with what it spells.
fn smuggled(
    file: &ScannedFile,
    offset: usize,
    what: &str,
    text: Option<&str>,
    rule: &Rule,
    out: &mut Collector,
) {
    let Some(text) = text else {
        out.at(
            rule,
            file,
            offset,
            1,
            format!("{what}, invisible to a reader"),
        );
        return;
    };
    let spelled = instructions::quote(text, 0, text.len());
    match payload::verdict(text, Reading::Payload, true) {
        Some(said) => out.at(
            &SMUGGLED_INSTRUCTIONS,
            file,
            offset,
            1,
            format!("{what} spell out text that {said}"),
        ),
        None => out.at(
            rule,
            file,
            offset,
            1,
            format!("{what} spell out \"{spelled}\""),
        ),
    }
}

/// ASCII carried by a run of two kinds of zero-width character, eight to a byte, if it
/// reads as text either way round.
fn zero_width_bits(run: &[char]) -> Option<String> {
    let mut kinds: Vec<char> = run.to_vec();
    kinds.sort_unstable();
    kinds.dedup();
    let [zero, one] = kinds[..] else {
        return None;
    };
    [(zero, one), (one, zero)].into_iter().find_map(|(low, _)| {
        let bytes: Vec<u8> = run
            .chunks_exact(8)
            .map(|bits| {
                bits.iter()
                    .fold(0u8, |byte, bit| byte << 1 | u8::from(*bit != low))
            })
            .collect();
        let text = String::from_utf8(bytes).ok()?;
        let printable = text.chars().all(|c| c == '\n' || (' '..='~').contains(&c));
        (printable && text.trim().len() >= 3).then_some(text)
    })
}

/// HTML comments outside Markdown: every `<!--` to its `-->` (or the end).
fn html_comments(text: &str) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let start = from + text.get(from..)?.find("<!--")?;
        let inner = start + 4;
        let end = text[inner..]
            .find("-->")
            .map_or(text.len(), |at| inner + at);
        from = (end + 3).min(text.len()).max(inner);
        Some((start, inner..end))
    })
}

/// `HIDDEN_COMMENT_INSTRUCTIONS`: comments that give orders, commands, or speak to the model.
fn comments(
    file: &ScannedFile,
    text: &str,
    comments: impl Iterator<Item = (usize, std::ops::Range<usize>)>,
    out: &mut Collector,
) {
    for (start, inner) in comments {
        let Some(content) = text.get(inner) else {
            continue;
        };
        if content.trim().len() < 8 {
            continue;
        }
        if let Some(said) = payload::verdict(content, Reading::Hidden, true) {
            out.at(
                &COMMENT_INSTRUCTIONS,
                file,
                start,
                4,
                format!("An HTML comment, which is not rendered, {said}"),
            );
        }
    }
}

/// Markdown that renders as nothing: a link definition used as a comment, an empty link or
/// image whose title holds text, HTML styled not to show.
const INVISIBLE: &[(&str, &str)] = &[
    (
        "a link definition used as a comment",
        r#"(?m)^[ ]{0,3}\[[^\]\n]{1,40}\]:[ \t]*(?:#|<>)[ \t]*(?:\(([^\n]*)\)|"([^\n]*)"|'([^\n]*)')[ \t]*$"#,
    ),
    (
        "an empty link whose title holds text",
        r#"!?\[[ \t]*\]\([ \t]*[^)\s]*[ \t]+(?:"([^"\n]+)"|'([^'\n]+)')[ \t]*\)"#,
    ),
    (
        "HTML styled not to show",
        r#"(?i)<(span|div|p|section|font|small|a|b|i|em|strong|label|article|aside)\b([^>]*)>"#,
    ),
];

/// The styles and attribute that keep an element from showing.
const HIDING_STYLE: &str = r#"(?i)display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(\.0+)?(px|pt|em|rem|%)?\s*(;|"|'|$)|opacity\s*:\s*0(\.0+)?\s*(;|"|'|$)|(^|[^-])color\s*:\s*(white|#fff\b|#ffffff\b|transparent)|(^|\s)hidden(\s|=|/|$)"#;

static HIDING_STYLE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(HIDING_STYLE).ok());

/// Each of [`INVISIBLE`], compiled the first time a text holds the literal it requires (the
/// link definition's bounded label is a large automaton, and most texts hold no `]:`).
static INVISIBLE_RES: [OnceLock<Option<Regex>>; INVISIBLE.len()] =
    [const { OnceLock::new() }; INVISIBLE.len()];

/// The most text read inside a hidden HTML element.
const HIDDEN_ELEMENT_CHARS: usize = 2000;

/// `HIDDEN_INVISIBLE_*`: invisible Markdown that holds instructions (high) or text (low;
/// link definitions used as comments are the Markdown comment idiom and count only with
/// instructions).
fn invisible_markdown(file: &ScannedFile, text: &str, spans: &Spans, out: &mut Collector) {
    // What each of [`INVISIBLE`] requires, in its order: `\]:`, `\]\(`, `<`.
    let wanted = [text.contains("]:"), text.contains("]("), text.contains('<')];
    for (index, (what, pattern)) in INVISIBLE.iter().enumerate() {
        if !wanted.get(index).copied().unwrap_or(true) {
            continue;
        }
        let compiled = INVISIBLE_RES.get(index).and_then(|regex| {
            regex
                .get_or_init(|| RegexBuilder::new(pattern).size_limit(8 << 20).build().ok())
                .as_ref()
        });
        let Some(regex) = compiled else { continue };
        for captures in regex.captures_iter(text) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            if matches!(
                spans.region(whole.start()),
                Some(Region::Fence | Region::InlineCode | Region::Comment)
            ) {
                continue;
            }
            let content = if index == 2 {
                let attributes = captures.get(2).map_or("", |m| m.as_str());
                let hiding = HIDING_STYLE_RE
                    .as_ref()
                    .is_some_and(|regex| regex.is_match(attributes));
                if !hiding {
                    continue;
                }
                element_text(
                    text,
                    whole.end(),
                    captures.get(1).map_or("", |m| m.as_str()),
                )
            } else {
                captures
                    .iter()
                    .skip(1)
                    .flatten()
                    .next()
                    .map_or("", |m| m.as_str())
            };
            if content.trim().is_empty() {
                continue;
            }
            if let Some(said) = payload::verdict(content, Reading::Hidden, true) {
                out.at(
                    &INVISIBLE_INSTRUCTIONS,
                    file,
                    whole.start(),
                    whole.len().min(80),
                    format!("{}, which does not render, {said}", capitalised(what)),
                );
            } else if index > 0 && content.trim().chars().count() >= 12 {
                out.at(
                    &INVISIBLE_TEXT,
                    file,
                    whole.start(),
                    whole.len().min(80),
                    format!(
                        "{} holds \"{}\"",
                        capitalised(what),
                        instructions::quote(content, 0, content.len())
                    ),
                );
            }
        }
    }
}

/// The text of an HTML element from just after its opening tag to its closing tag (or a
/// bound).
fn element_text<'a>(text: &'a str, from: usize, tag: &str) -> &'a str {
    let rest = &text[from..];
    let bound = instructions::context::floor(rest, HIDDEN_ELEMENT_CHARS);
    let closing = format!("</{}", tag.to_ascii_lowercase());
    let window = &rest[..bound];
    let end = window
        .to_ascii_lowercase()
        .find(&closing)
        .unwrap_or(window.len());
    &window[..instructions::context::floor(window, end)]
}

fn capitalised(text: &str) -> String {
    let mut characters = text.chars();
    characters.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(characters).collect()
    })
}

/// `HIDDEN_ENCODED_*`: blobs decoded and what they hold.
fn encoded(file: &ScannedFile, text: &str, out: &mut Collector) {
    let blobs = decode::blobs(text);
    let mut reported: Vec<usize> = Vec::new();
    let mut quiet = Vec::new();
    for blob in &blobs {
        let layers = blob.layers.join(" → ");
        let described = format!(
            "A {}-character {} ({layers})",
            blob.length,
            match blob.origin {
                decode::Origin::Run => "blob",
                decode::Origin::Decoder => "literal decoded by the code",
                decode::Origin::Quoted => "quoted string",
            }
        );
        let length = (blob.end - blob.start).min(80);
        match &blob.content {
            Content::Media(_) => {}
            Content::Executable(kind) => {
                out.at(
                    &ENCODED_EXECUTABLE,
                    file,
                    blob.start,
                    length,
                    format!("{described} decodes to {kind}"),
                );
                reported.push(blob.start);
            }
            Content::Binary(size) => {
                if !blob.origin.short() {
                    quiet.push((
                        blob,
                        format!("{described} decodes to {size} bytes of binary data"),
                    ));
                }
            }
            Content::Text(decoded) => {
                let finding = if let Some((what, command)) = payload::command(decoded) {
                    Some((
                        &ENCODED_COMMAND,
                        format!("{described} decodes to a command that {what}: \"{command}\""),
                    ))
                } else if let Some(said) = payload::verdict(decoded, Reading::Payload, false) {
                    Some((
                        &ENCODED_INSTRUCTIONS,
                        format!("{described} decodes to text that {said}"),
                    ))
                } else if decoded.len() <= ADDRESS_TEXT && decoded.contains("://") {
                    Some((
                        &ENCODED_URL,
                        format!(
                            "{described} decodes to an address: \"{}\"",
                            instructions::quote(decoded, 0, decoded.len())
                        ),
                    ))
                } else {
                    None
                };
                match finding {
                    Some((rule, message)) => {
                        out.at(rule, file, blob.start, length, message);
                        reported.push(blob.start);
                    }
                    None if !blob.origin.short() => {
                        let head = instructions::quote(
                            decoded,
                            0,
                            instructions::context::floor(decoded, 120),
                        );
                        quiet.push((blob, format!("{described} decodes to text: \"{head}\"")));
                    }
                    None => {}
                }
            }
        }
    }
    for (blob, message) in quiet {
        if !reported.contains(&blob.start) {
            out.at(
                &ENCODED_BLOB,
                file,
                blob.start,
                (blob.end - blob.start).min(80),
                message,
            );
        }
    }
}

/// `HIDDEN_HOMOGLYPH_NAME` and `HIDDEN_SIMILAR_NAME`: the skill's name against its
/// neighbours', and a name that mixes Latin letters with look-alikes from other scripts.
fn name_imitation(skill: &Skill, out: &mut Collector) {
    let name = skill.name.as_str();
    let mut worst: Option<(&Rule, String)> = None;
    // Letters only: a dash or a full-width form is not a letter from another script.
    let mixed = name.chars().any(|c| c.is_ascii_alphabetic())
        && name.chars().any(|c| {
            !c.is_ascii()
                && c.is_alphabetic()
                && !('\u{ff01}'..='\u{ff5e}').contains(&c)
                && names::skeleton(&c.to_string())
                    .chars()
                    .all(|letter| letter.is_ascii_alphabetic())
        });
    if mixed {
        worst = Some((
            &HOMOGLYPH_NAME,
            format!(
                "The name \"{name}\" mixes Latin letters with look-alikes from other scripts (it reads as \"{}\")",
                names::skeleton(name)
            ),
        ));
    }
    let mine = names::form(name);
    let forms = skill.neighbours.forms(names::form);
    for (neighbour, theirs) in skill.neighbours.names().iter().zip(forms) {
        match names::likeness_of(name, &mine, neighbour, theirs) {
            Some(names::Likeness::Homoglyph) => {
                worst = Some((
                    &HOMOGLYPH_NAME,
                    format!(
                        "The name \"{name}\" looks the same as the installed skill \"{neighbour}\""
                    ),
                ));
                break;
            }
            Some(names::Likeness::OneEdit) if worst.is_none() => {
                worst = Some((
                    &SIMILAR_NAME,
                    format!(
                        "The name \"{name}\" is one character from the installed skill \"{neighbour}\""
                    ),
                ));
            }
            _ => {}
        }
    }
    let Some((rule, message)) = worst else { return };
    let Some(file) = skill.definition().or_else(|| skill.files.first()) else {
        return;
    };
    let offset = file.text().map_or(0, |text| name_offset(text, name));
    out.at(rule, file, offset, name.len(), message);
}

/// Where the frontmatter of `text` gives `name` (the start of the file when it does not).
fn name_offset(text: &str, name: &str) -> usize {
    if !text.starts_with("---") {
        return 0;
    }
    let mut offset = 0;
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 && line.trim_end() == "---" {
            break;
        }
        if let Some(value) = line.trim_start().strip_prefix("name:") {
            let at = line.len() - value.len();
            return offset + line[at..].find(name).map_or(at, |found| at + found);
        }
        offset += line.len() + 1;
    }
    0
}

#[cfg(test)]
mod tests;
