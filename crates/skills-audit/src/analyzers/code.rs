//! Code as the `scripts` and `manifest` analyzers read it: comments blanked, string literals
//! located, calls' argument spans found, and the code blocks of Markdown told apart by what
//! the text around them says about them.
//!
//! A comment saying `# never run curl | sh` is not code, and a string in a list of patterns a
//! linter looks for is not a command: rules ask these helpers where code, strings and calls
//! are instead of matching raw text. Blanking keeps every byte offset (comments become
//! spaces, newlines stay), so a finding's place is the place in the file.

use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use skills_types::run::ScriptLanguage;

/// The syntax a piece of code is read with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lang {
    Python,
    /// JavaScript and TypeScript.
    JavaScript,
    Shell,
    /// A language the runtime runs through the skill's `[interpreters]` table (Ruby, Perl…):
    /// `#` and `//` comments, quoted strings; only the rules that hold in any language.
    Generic,
}

impl Lang {
    pub(super) fn of_script(language: ScriptLanguage) -> Self {
        match language {
            ScriptLanguage::Python => Self::Python,
            ScriptLanguage::JavaScript | ScriptLanguage::TypeScript => Self::JavaScript,
            ScriptLanguage::Sh | ScriptLanguage::Bash => Self::Shell,
        }
    }

    /// The language of a fenced block's info string (```` ```bash ````); `None` for one that
    /// is not code an agent runs (output, data, other languages).
    pub(super) fn of_fence(info: &str) -> Option<Self> {
        let word = info
            .trim()
            .trim_start_matches('{')
            .split(|c: char| c.is_whitespace() || c == ',' || c == '}')
            .next()
            .unwrap_or("")
            .trim_start_matches('.')
            .to_ascii_lowercase();
        match word.as_str() {
            "" | "bash" | "sh" | "shell" | "zsh" | "console" | "shell-session" | "shellsession"
            | "terminal" | "ksh" | "dash" => Some(Self::Shell),
            "python" | "py" | "python3" | "ipython" | "pycon" => Some(Self::Python),
            "javascript" | "js" | "node" | "nodejs" | "mjs" | "cjs" | "typescript" | "ts"
            | "jsx" | "tsx" => Some(Self::JavaScript),
            _ => None,
        }
    }
}

/// What kind of literal a [`Literal`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LiteralKind {
    /// A quoted string (f-strings and template literals included).
    Text,
    /// A JavaScript regular expression literal.
    Pattern,
}

/// A literal's content (quotes excluded) in the lexed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Literal {
    pub(super) range: Range<usize>,
    pub(super) kind: LiteralKind,
}

/// Code with its comments blanked and its literals located.
#[derive(Clone, Debug, Default)]
pub(super) struct Lexed {
    /// The same bytes as the input, comments replaced by spaces (newlines kept).
    pub(super) code: String,
    /// Every literal, in order.
    pub(super) literals: Vec<Literal>,
}

impl Lexed {
    /// The literal whose content holds `offset`.
    pub(super) fn literal_at(&self, offset: usize) -> Option<&Literal> {
        let index = self
            .literals
            .partition_point(|literal| literal.range.end < offset);
        self.literals
            .get(index)
            .filter(|literal| literal.range.start <= offset && offset <= literal.range.end)
    }

    /// The literals inside `range`.
    pub(super) fn literals_in(&self, range: Range<usize>) -> &[Literal] {
        let from = self
            .literals
            .partition_point(|literal| literal.range.start < range.start);
        let to = self
            .literals
            .partition_point(|literal| literal.range.start < range.end);
        self.literals.get(from..to.max(from)).unwrap_or_default()
    }

    /// The text of a literal.
    pub(super) fn text(&self, literal: &Literal) -> &str {
        self.code.get(literal.range.clone()).unwrap_or_default()
    }

    /// The literal whose content holds `index` (`start <= index < end`).
    pub(super) fn inside_literal(&self, index: usize) -> Option<&Literal> {
        self.literal_at(index)
            .filter(|literal| literal.range.start <= index && index < literal.range.end)
    }

    /// Walks the code from `from` to `end` outside literals, giving `step` each offset and
    /// byte until it says stop; that offset, or `None` at the end. Linear: the literals are
    /// passed with a cursor, not looked up at each byte.
    pub(super) fn walk(
        &self,
        from: usize,
        end: usize,
        mut step: impl FnMut(usize, u8) -> bool,
    ) -> Option<usize> {
        let bytes = self.code.as_bytes();
        let end = end.min(bytes.len());
        let mut cursor = self
            .literals
            .partition_point(|literal| literal.range.end <= from);
        let mut index = from;
        while index < end {
            if let Some(literal) = self.literals.get(cursor)
                && literal.range.start <= index
            {
                index = index.max(literal.range.end);
                cursor += 1;
                continue;
            }
            if step(index, bytes[index]) {
                return Some(index);
            }
            index += 1;
        }
        None
    }

    /// The argument span of the call whose `(` is at `open`: up to the matching `)`, skipping
    /// literals; the end of the code when it is not closed.
    pub(super) fn call_span(&self, open: usize) -> Range<usize> {
        let mut depth = 0usize;
        let close = self.walk(open, self.code.len(), |_, byte| {
            match byte {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    return depth == 0;
                }
                _ => {}
            }
            false
        });
        open + 1
            ..close
                .unwrap_or(self.code.len())
                .max(open + 1)
                .min(self.code.len().max(open + 1))
    }

    /// Where the statement that continues at `from` ends: the first newline (or `;`) outside
    /// brackets and literals.
    pub(super) fn statement_end(&self, from: usize) -> usize {
        let mut depth = 0usize;
        self.walk(from, self.code.len(), |_, byte| {
            match byte {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b'\n' | b';' => return depth == 0,
                _ => {}
            }
            false
        })
        .unwrap_or(self.code.len())
    }

    /// What a literal at `start` is an element or argument of: the name before the nearest
    /// unclosed `(` (`re.compile`, with the bracket's offset), `[` for a list, `{` for a set
    /// or mapping; looks back at most `limit` bytes.
    pub(super) fn enclosing(&self, start: usize, limit: usize) -> Option<(&str, usize)> {
        let bytes = self.code.as_bytes();
        let floor = start.saturating_sub(limit);
        let mut depth = 0usize;
        let mut index = start.min(bytes.len());
        while index > floor {
            index -= 1;
            if let Some(literal) = self.inside_literal(index) {
                index = literal.range.start;
                continue;
            }
            match bytes[index] {
                b')' | b']' | b'}' => depth += 1,
                b'(' | b'[' | b'{' if depth > 0 => depth -= 1,
                b'(' => {
                    let mut name_start = index;
                    while name_start > 0 {
                        let byte = bytes[name_start - 1];
                        if byte == b'_' || byte == b'.' || byte.is_ascii_alphanumeric() {
                            name_start -= 1;
                        } else {
                            break;
                        }
                    }
                    return Some((&self.code[name_start..index], index));
                }
                b'[' => return Some(("[", index)),
                b'{' => return Some(("{", index)),
                _ => {}
            }
        }
        None
    }
}

/// Lexes `text` in `lang`.
pub(super) fn lex(text: &str, lang: Lang) -> Lexed {
    match lang {
        Lang::Python => lex_with(text, Syntax::PYTHON),
        Lang::JavaScript => lex_with(text, Syntax::JAVASCRIPT),
        Lang::Shell => lex_with(text, Syntax::SHELL),
        Lang::Generic => lex_with(text, Syntax::GENERIC),
    }
}

/// What a language's comments and strings look like.
#[derive(Clone, Copy)]
struct Syntax {
    hash_comments: bool,
    slash_comments: bool,
    triple_quotes: bool,
    backtick_strings: bool,
    regex_literals: bool,
    /// Whether `#` starts a comment only at a word's start (shell: `a#b` is a word).
    hash_at_word_start: bool,
    /// Whether a single-quoted string ends at the end of its line (Python, JavaScript).
    line_strings: bool,
}

impl Syntax {
    const PYTHON: Self = Self {
        hash_comments: true,
        slash_comments: false,
        triple_quotes: true,
        backtick_strings: false,
        regex_literals: false,
        hash_at_word_start: false,
        line_strings: true,
    };
    const JAVASCRIPT: Self = Self {
        hash_comments: false,
        slash_comments: true,
        triple_quotes: false,
        backtick_strings: true,
        regex_literals: true,
        hash_at_word_start: false,
        line_strings: true,
    };
    const SHELL: Self = Self {
        hash_comments: true,
        slash_comments: false,
        triple_quotes: false,
        backtick_strings: false,
        regex_literals: false,
        hash_at_word_start: true,
        line_strings: false,
    };
    const GENERIC: Self = Self {
        hash_comments: true,
        slash_comments: true,
        triple_quotes: true,
        backtick_strings: true,
        regex_literals: false,
        hash_at_word_start: true,
        line_strings: false,
    };
}

fn lex_with(text: &str, syntax: Syntax) -> Lexed {
    let bytes = text.as_bytes();
    let mut code = bytes.to_vec();
    let mut literals = Vec::new();
    let mut index = 0;
    let mut previous_significant = b'\n';
    while index < bytes.len() {
        let byte = bytes[index];
        let at_word_start = index == 0 || bytes[index - 1].is_ascii_whitespace();
        if syntax.hash_comments && byte == b'#' && (!syntax.hash_at_word_start || at_word_start)
            // `#!` on the first line is not a comment worth keeping either way.
            || syntax.slash_comments && bytes[index..].starts_with(b"//")
        {
            let end = text[index..]
                .find('\n')
                .map_or(bytes.len(), |found| index + found);
            blank(&mut code, index..end);
            index = end;
            continue;
        }
        if syntax.slash_comments && bytes[index..].starts_with(b"/*") {
            let end = text[index + 2..]
                .find("*/")
                .map_or(bytes.len(), |found| index + 2 + found + 2);
            blank(&mut code, index..end);
            index = end;
            continue;
        }
        if syntax.regex_literals
            && byte == b'/'
            && starts_expression(previous_significant)
            && let Some(end) = regex_end(bytes, index)
        {
            literals.push(Literal {
                range: index + 1..end,
                kind: LiteralKind::Pattern,
            });
            index = end + 1;
            previous_significant = b'/';
            continue;
        }
        let quote = match byte {
            b'\'' | b'"' => Some(byte),
            b'`' if syntax.backtick_strings => Some(byte),
            _ => None,
        };
        if let Some(quote) = quote {
            let triple = syntax.triple_quotes && bytes[index..].starts_with(&[quote; 3]);
            let open = if triple { 3 } else { 1 };
            let raw = syntax.triple_quotes
                && index > 0
                && matches!(bytes[index - 1], b'r' | b'R')
                && !bytes.get(index.wrapping_sub(2)).is_some_and(|b| {
                    b.is_ascii_alphanumeric() && !matches!(b, b'f' | b'b' | b'F' | b'B')
                });
            let start = index + open;
            let mut end = start;
            let mut closed = false;
            while end < bytes.len() {
                let current = bytes[end];
                if current == b'\\' && (!raw || bytes.get(end + 1) == Some(&quote)) {
                    end += 2;
                    continue;
                }
                if current == b'\\' {
                    end += 1;
                    continue;
                }
                if triple {
                    if bytes[end..].starts_with(&[quote; 3]) {
                        closed = true;
                        break;
                    }
                } else if current == quote {
                    closed = true;
                    break;
                } else if current == b'\n' && syntax.line_strings && quote != b'`' {
                    break;
                }
                end += 1;
            }
            let end = end.min(bytes.len());
            literals.push(Literal {
                range: start..end,
                kind: LiteralKind::Text,
            });
            index = if closed { end + open } else { end };
            previous_significant = quote;
            continue;
        }
        if !byte.is_ascii_whitespace() {
            previous_significant = byte;
        }
        index += 1;
    }
    let code = String::from_utf8(code)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
    Lexed { code, literals }
}

/// Replaces `range` by spaces, keeping newlines (and so every later offset and line).
fn blank(code: &mut [u8], range: Range<usize>) {
    for byte in &mut code[range] {
        if *byte != b'\n' {
            *byte = b' ';
        }
    }
}

/// Whether a `/` after `previous` starts a regular expression rather than a division.
fn starts_expression(previous: u8) -> bool {
    matches!(
        previous,
        b'(' | b',' | b'=' | b':' | b'[' | b'!' | b'&' | b'|' | b'?' | b'{' | b'}' | b';' | b'\n'
    )
}

/// Where a regular expression literal starting at `start` ends (its closing `/`), on the
/// same line.
fn regex_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut index = start + 1;
    let mut in_class = false;
    if matches!(bytes.get(index), Some(b'/' | b'*')) {
        return None;
    }
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'/' if !in_class => return Some(index),
            b'\n' => return None,
            _ => {}
        }
        index += 1;
    }
    None
}

/// How a Markdown code block is presented to the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Presented {
    /// Under a heading or sentence that tells the agent to run it ("Usage", "Run:").
    Instructed,
    /// Shown, neither told to run nor discussed as something bad.
    Shown,
    /// Shown as an example of what not to do, an attack, a vulnerable pattern.
    Discussed,
}

/// A fenced code block of a Markdown file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Block {
    pub(super) lang: Lang,
    /// The content's byte range in the file.
    pub(super) range: Range<usize>,
    pub(super) presented: Presented,
}

/// Words around a block saying it shows something bad: text that discusses an attack is
/// not the skill doing it.
const DISCUSSED: &[&str] = &[
    "vulnerab",
    "malicious",
    "attack",
    "exploit",
    "payload",
    "insecure",
    "unsafe",
    "dangerous",
    "don't",
    "do not",
    "never",
    "avoid",
    "anti-pattern",
    "antipattern",
    "bad:",
    "bad example",
    "bad pattern",
    "wrong",
    "red flag",
    "detect",
    "example of",
    "indicator",
    "cve-",
    "backdoor",
    "incorrect",
    "❌",
    "bypass",
    "proof of concept",
    "poc",
    "injection",
    "threat",
    "risky",
    "suspicious",
    "compromise",
    "finding",
    "flag",
    "audit",
    "scan",
    "vector",
    "before:",
    "problem",
];

/// Headings and lead-in sentences that tell the agent to run the block.
const INSTRUCTED_HEADINGS: &[&str] = &[
    "usage",
    "quick start",
    "quickstart",
    "setup",
    "set up",
    "install",
    "getting started",
    "command",
    "instructions",
    "how to use",
    "run",
    "entry point",
];

/// Verbs of a lead-in sentence that tells the agent to run the block.
const INSTRUCTED_VERBS: &[&str] = &[
    "run", "execute", "invoke", "call", "paste", "start", "launch", "load",
];

/// The fenced code blocks of a Markdown text, in a language an agent runs.
pub(super) fn fenced_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    // The open headings, outermost first, with their level: a block under "## Commands" /
    // "### build" is under both.
    let mut headings: Vec<(usize, &str)> = Vec::new();
    let mut recent: Vec<&str> = Vec::new();
    let mut offset = 0;
    let mut open: Option<(String, usize, usize, Option<Lang>, Presented)> = None;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some((fence, fence_len, start, lang, presented)) = &open {
            // A closing fence is at least as long as the opening one and has nothing after
            // it but spaces.
            let closes = indent < 4
                && trimmed.len() >= *fence_len
                && trimmed.starts_with(fence.as_str())
                && trimmed
                    .trim_start_matches(fence.chars().next().unwrap_or('`'))
                    .trim()
                    .is_empty();
            if closes {
                if let Some(lang) = lang {
                    blocks.push(Block {
                        lang: *lang,
                        range: *start..line_start,
                        presented: *presented,
                    });
                }
                open = None;
                recent.clear();
            }
            continue;
        }
        let fence_char = trimmed.chars().next();
        if indent < 4 && matches!(fence_char, Some('`' | '~')) {
            let fence_char = fence_char.unwrap_or('`');
            let fence_len = trimmed.chars().take_while(|c| *c == fence_char).count();
            if fence_len >= 3 {
                let info = trimmed[fence_len..].trim();
                let lang = Lang::of_fence(info);
                let presented = presented(&headings, &recent);
                open = Some((
                    fence_char.to_string().repeat(fence_len),
                    fence_len,
                    offset,
                    lang,
                    presented,
                ));
                continue;
            }
        }
        if trimmed.starts_with('#') {
            let level = trimmed.chars().take_while(|c| *c == '#').count();
            while headings.last().is_some_and(|(open, _)| *open >= level) {
                headings.pop();
            }
            headings.push((level, trimmed.trim_start_matches('#').trim()));
            recent.clear();
        } else if !trimmed.trim().is_empty() {
            recent.push(trimmed.trim());
            if recent.len() > 3 {
                recent.remove(0);
            }
        }
    }
    if let Some((_, _, start, Some(lang), presented)) = open {
        blocks.push(Block {
            lang,
            range: start..text.len(),
            presented,
        });
    }
    blocks
}

static DISCUSSED_WORDS: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(DISCUSSED));
static INSTRUCTED_HEADING_WORDS: LazyLock<AhoCorasick> =
    LazyLock::new(|| automaton(INSTRUCTED_HEADINGS));
static INSTRUCTED_VERB_WORDS: LazyLock<AhoCorasick> = LazyLock::new(|| automaton(INSTRUCTED_VERBS));

#[expect(
    clippy::expect_used,
    reason = "the word lists are constants of this module; the tests build each one"
)]
fn automaton(words: &[&str]) -> AhoCorasick {
    // Leftmost-first lets the automaton use its vectorised prefilter.
    AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
        .build(words)
        .expect("a constant word list builds")
}

/// Whether one of the automaton's words starts a word of `text`.
fn has_word(automaton: &AhoCorasick, text: &str) -> bool {
    automaton.find_iter(text).any(|found| {
        !text[..found.start()]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
    })
}

/// How a block under `headings` (outermost first) after the lines `recent` is presented. The
/// nearest heading decides, and a section heading above it (level 2 or deeper, not the
/// document's title) counts too: a block under "## Commands" / "### encode" is one of the
/// commands, and one under "## Attacks" / "### Reverse shell" is discussed.
fn presented(headings: &[(usize, &str)], recent: &[&str]) -> Presented {
    let nearest = headings.len().saturating_sub(1);
    let applying: Vec<String> = headings
        .iter()
        .enumerate()
        .filter(|(index, (level, _))| *index == nearest || *level >= 2)
        .map(|(_, (_, heading))| heading.to_lowercase())
        .collect();
    let lead = recent.join(" ").to_lowercase();
    let discussed = |text: &str| has_word(&DISCUSSED_WORDS, text);
    if applying.iter().any(|heading| discussed(heading)) || discussed(&lead) {
        return Presented::Discussed;
    }
    let instructed_heading = applying
        .iter()
        .any(|heading| has_word(&INSTRUCTED_HEADING_WORDS, heading));
    let instructed_lead = recent
        .last()
        .is_some_and(|last| has_word(&INSTRUCTED_VERB_WORDS, &last.to_lowercase()));
    if instructed_heading || instructed_lead {
        Presented::Instructed
    } else {
        Presented::Shown
    }
}

/// In a `console`-style block, the commands are the lines after a `$ ` prompt; the other
/// lines are output. Returns the block with output lines blanked when it has prompts.
pub(super) fn strip_prompts(text: &str) -> Option<String> {
    let has_prompts = text.lines().any(|line| line.trim_start().starts_with("$ "));
    if !has_prompts {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(command) = trimmed.strip_prefix("$ ") {
            out.push_str(&" ".repeat(line.len() - command.len()));
            out.push_str(command);
        } else {
            out.push_str(&blanked(line));
        }
    }
    Some(out)
}

/// `text` with every byte but newlines made a space: the same length, nothing left to match.
pub(super) fn blanked(text: &str) -> String {
    text.bytes()
        .map(|byte| if byte == b'\n' { '\n' } else { ' ' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanked_and_offsets_kept() {
        let text = "x = 1  # curl | sh\ny = '# not a comment'\n";
        let lexed = lex(text, Lang::Python);
        assert_eq!(lexed.code.len(), text.len());
        assert!(!lexed.code.contains("curl"));
        assert!(lexed.code.contains("'# not a comment'"));
        assert_eq!(lexed.literals.len(), 1);
        assert_eq!(lexed.text(&lexed.literals[0]), "# not a comment");
    }

    #[test]
    fn javascript_comments_regexes_and_templates() {
        let text = "// rm -rf /\nconst re = /rm -rf \\//; /* x */ const t = `a ${b}`;\n";
        let lexed = lex(text, Lang::JavaScript);
        assert!(!lexed.code.contains("x */"));
        assert!(lexed.code.starts_with("           \n"));
        let kinds: Vec<LiteralKind> = lexed.literals.iter().map(|l| l.kind).collect();
        assert_eq!(kinds, [LiteralKind::Pattern, LiteralKind::Text]);
        assert_eq!(lexed.text(&lexed.literals[1]), "a ${b}");
    }

    #[test]
    fn python_triple_quotes_and_shell_hashes() {
        let lexed = lex("s = \"\"\"a\n'b'\n\"\"\"\nt = r'\\d'\n", Lang::Python);
        assert_eq!(lexed.literals.len(), 2);
        let shell = lex("echo a#b # comment\ncurl x", Lang::Shell);
        assert!(shell.code.contains("a#b"));
        assert!(!shell.code.contains("comment"));
    }

    #[test]
    fn calls_and_their_context() {
        let lexed = lex("re.compile(r'curl .* \\| sh', x) + f(\"a)\")", Lang::Python);
        let open = lexed.code.find('(').unwrap();
        let span = lexed.call_span(open);
        assert_eq!(&lexed.code[span], "r'curl .* \\| sh', x");
        let literal = &lexed.literals[0];
        assert_eq!(
            lexed
                .enclosing(literal.range.start, 200)
                .map(|(name, _)| name),
            Some("re.compile")
        );
        let list = lex("PATTERNS = [\n  'a',\n  'curl x | sh',\n]", Lang::Python);
        assert_eq!(
            list.enclosing(list.literals[1].range.start, 200)
                .map(|(name, _)| name),
            Some("[")
        );
    }

    #[test]
    fn blocks_are_found_with_their_presentation() {
        let text = "# Tool\n\n## Usage\n\n```bash\ncurl x | sh\n```\n\n## Vulnerable pattern\n\n```python\nexec(x)\n```\n\n## Other\n\nSee:\n\n```json\n{}\n```\n\n```\nls\n```\n";
        let blocks = fenced_blocks(text);
        assert_eq!(blocks.len(), 3, "{blocks:?}");
        assert_eq!(blocks[0].lang, Lang::Shell);
        assert_eq!(&text[blocks[0].range.clone()], "curl x | sh\n");
        assert_eq!(blocks[0].presented, Presented::Instructed);
        assert_eq!(blocks[1].presented, Presented::Discussed);
        assert_eq!(blocks[2].presented, Presented::Shown);
    }

    #[test]
    fn a_section_heading_applies_to_its_subsections_but_the_title_does_not() {
        let text = "# Setup helper\n\n## Commands\n\n### build\n\nUse the defaults.\n\n```bash\nmake\n```\n\n## Notes\n\n```bash\nls\n```\n\n## Attacks\n\n### Step one\n\n```bash\nid\n```\n";
        let blocks = fenced_blocks(text);
        assert_eq!(blocks.len(), 3, "{blocks:?}");
        assert_eq!(blocks[0].presented, Presented::Instructed);
        // The title's "Setup" does not make every block an instruction.
        assert_eq!(blocks[1].presented, Presented::Shown);
        assert_eq!(blocks[2].presented, Presented::Discussed);
    }

    #[test]
    fn a_fence_line_with_wide_characters_does_not_break_the_reader() {
        let text = "```bash\nls\n```` 标识）\n```\nx\n";
        let _ = fenced_blocks(text);
        let blocks = fenced_blocks("```bash\nls\n```\n");
        assert_eq!(blocks.len(), 1);
    }

    #[test]
    fn prompts_select_the_commands_of_a_console_block() {
        let stripped = strip_prompts("$ curl x | sh\nok\n").unwrap();
        assert_eq!(stripped, "  curl x | sh\n  \n");
        assert!(strip_prompts("ls\n").is_none());
    }
}
