//! A small shell reader for the `scripts` analyzer: commands, their words as the shell would
//! see them (quotes removed), pipes, redirections, heredocs and substitutions.
//!
//! Rules about commands must see commands, not text: `grep 'rm -rf /' log`, `echo "curl x |
//! sh"` and a heredoc written to a file are data, while `bash -c "$(curl …)"` runs what it
//! downloads. A regular expression over the line cannot tell these apart; this reader can.
//! It is forgiving (an unclosed quote ends at the end of the text) and linear: every byte is
//! looked at a bounded number of times, and substitutions are parsed again only by the
//! caller, once each.

/// One word of a command, its quotes removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Word {
    /// The word as the command receives it, with quotes removed and substitutions kept as
    /// written (`$(curl x)`, `$HOME`).
    pub(super) text: String,
    /// Byte range of the word in the parsed text (plus the base offset).
    pub(super) start: usize,
    pub(super) end: usize,
    /// Whether any part of it was quoted.
    pub(super) quoted: bool,
}

/// A redirection: its operator and target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Redirect {
    /// `>`, `>>`, `<`, `<<<`, `<<` (heredoc; the target is its delimiter), `>&`.
    pub(super) op: &'static str,
    pub(super) target: Word,
}

/// One simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Command {
    /// Its words, leading `NAME=value` assignments included.
    pub(super) words: Vec<Word>,
    pub(super) redirects: Vec<Redirect>,
    /// Byte ranges of the code inside `$(…)`, backticks, `<(…)` and `>(…)` in its words and
    /// redirections, to be parsed as commands of their own.
    pub(super) substitutions: Vec<(usize, usize)>,
    /// The byte range of a heredoc's body fed to this command.
    pub(super) heredoc: Option<(usize, usize)>,
    /// Where the command starts.
    pub(super) start: usize,
    /// The index of the program's word (see [`Command::program_index`]), set once parsed.
    program: usize,
}

/// Commands joined by `|`.
pub(super) type Pipeline = Vec<Command>;

/// Programs that run the command given after them (and their options).
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "nohup", "exec", "command", "time", "nice", "timeout", "stdbuf",
    "setsid", "builtin", "xargs", "then", "do", "else", "elif", "if", "while", "until", "!",
];

impl Command {
    /// Where the program's word is: leading assignments and wrappers (`sudo -E`, `env A=b`,
    /// `nohup`, `timeout 5`, `xargs -0`) skipped.
    fn program_index(&self) -> usize {
        self.program
    }

    /// Finds [`Command::program`] in the words.
    fn find_program(&self) -> usize {
        let mut index = 0;
        let mut last_wrapper = None;
        while let Some(word) = self.words.get(index) {
            let text = word.text.as_str();
            if is_assignment(text) {
                index += 1;
                continue;
            }
            if !WRAPPERS.contains(&program_name(text)) {
                break;
            }
            last_wrapper = Some(index);
            index += 1;
            // The wrapper's own options, `sudo -u USER` and `timeout`'s duration.
            while let Some(next) = self.words.get(index) {
                let next = next.text.as_str();
                let is_option = next.starts_with('-') && next.len() > 1;
                let is_duration = text == "timeout"
                    && next
                        .trim_end_matches(['s', 'm', 'h'])
                        .parse::<f64>()
                        .is_ok();
                let is_user = matches!(text, "sudo" | "doas")
                    && index
                        .checked_sub(1)
                        .and_then(|previous| self.words.get(previous))
                        .is_some_and(|previous| {
                            matches!(previous.text.as_str(), "-u" | "-g" | "--user")
                        });
                if is_option || is_duration || is_user || is_assignment(next) {
                    index += 1;
                } else {
                    break;
                }
            }
        }
        // `env`, `sudo -l`, `time` alone: the wrapper is the program.
        match last_wrapper {
            Some(wrapper) if index >= self.words.len() => wrapper,
            _ => index,
        }
    }

    /// The words from the program on.
    pub(super) fn argv(&self) -> &[Word] {
        self.words.get(self.program_index()..).unwrap_or_default()
    }

    /// The program's name without its folder (`/usr/bin/curl` → `curl`), empty when none.
    pub(super) fn name(&self) -> &str {
        self.argv()
            .first()
            .map_or("", |word| program_name(&word.text))
    }

    /// The arguments after the program.
    pub(super) fn args(&self) -> &[Word] {
        self.argv().get(1..).unwrap_or_default()
    }

    /// Whether `sudo` or `doas` runs it.
    pub(super) fn is_elevated(&self) -> bool {
        self.words[..self.program_index().min(self.words.len())]
            .iter()
            .any(|word| matches!(program_name(&word.text), "sudo" | "doas"))
    }

    /// Whether it has the short flag `flag` (in a group: `-rf` has `r`) or one of the long
    /// ones.
    pub(super) fn has_flag(&self, short: char, long: &[&str]) -> bool {
        self.args().iter().any(|word| {
            let text = word.text.as_str();
            if let Some(name) = text.strip_prefix("--") {
                let name = name.split('=').next().unwrap_or(name);
                long.contains(&name)
            } else if let Some(group) = text.strip_prefix('-') {
                !group.is_empty()
                    && group.chars().all(|c| c.is_ascii_alphanumeric())
                    && group.contains(short)
            } else {
                false
            }
        })
    }

    /// The byte offset and length of the command's text, for a finding.
    pub(super) fn span(&self) -> (usize, usize) {
        let end = self
            .words
            .iter()
            .map(|word| word.end)
            .chain(self.redirects.iter().map(|redirect| redirect.target.end))
            .max()
            .unwrap_or(self.start);
        (self.start, end.saturating_sub(self.start))
    }
}

/// `NAME=value`.
pub(super) fn is_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .enumerate()
                .all(|(i, c)| c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
    })
}

/// A program's name without its folder.
pub(super) fn program_name(text: &str) -> &str {
    text.rsplit('/').next().unwrap_or(text)
}

/// Reads `text` (whose first byte is at `base` in the file) into pipelines.
pub(super) fn parse(text: &str, base: usize) -> Vec<Pipeline> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        text,
        at: 0,
        base,
        pipelines: Vec::new(),
        pipeline: Vec::new(),
        command: Command::default(),
        heredocs: Vec::new(),
    };
    parser.run();
    parser.pipelines
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    base: usize,
    pipelines: Vec<Pipeline>,
    pipeline: Pipeline,
    command: Command,
    /// Heredocs opened on the current line: (delimiter, index of the pipeline and of the
    /// command in it that receives the body).
    heredocs: Vec<(String, usize, usize)>,
}

impl Parser<'_> {
    fn run(&mut self) {
        while self.at < self.bytes.len() {
            let byte = self.bytes[self.at];
            match byte {
                b' ' | b'\t' | b'\r' => self.at += 1,
                b'\\' if self.bytes.get(self.at + 1) == Some(&b'\n') => self.at += 2,
                b'#' => {
                    while self.at < self.bytes.len() && self.bytes[self.at] != b'\n' {
                        self.at += 1;
                    }
                }
                b'\n' => {
                    self.at += 1;
                    self.end_pipeline();
                    self.read_heredocs();
                }
                b';' | b'(' | b')' => {
                    self.at += 1;
                    self.end_pipeline();
                }
                b'{' | b'}' if self.standalone(1) => {
                    self.at += 1;
                    self.end_pipeline();
                }
                b'&' => {
                    if self.bytes.get(self.at + 1) == Some(&b'>') {
                        self.redirect(2, "&>");
                    } else {
                        self.at += if self.bytes.get(self.at + 1) == Some(&b'&') {
                            2
                        } else {
                            1
                        };
                        self.end_pipeline();
                    }
                }
                // A line that starts with a pipe is a table or a diagram, not a command.
                b'|' if self.command.words.is_empty()
                    && self.command.redirects.is_empty()
                    && self.pipeline.is_empty()
                    && self.text[..self.at]
                        .rsplit('\n')
                        .next()
                        .is_some_and(|line| line.trim().is_empty()) =>
                {
                    while self.at < self.bytes.len() && self.bytes[self.at] != b'\n' {
                        self.at += 1;
                    }
                }
                b'|' => {
                    if self.bytes.get(self.at + 1) == Some(&b'|') {
                        self.at += 2;
                        self.end_pipeline();
                    } else {
                        self.at += if self.bytes.get(self.at + 1) == Some(&b'&') {
                            2
                        } else {
                            1
                        };
                        self.end_command();
                    }
                }
                b'<' | b'>' if self.bytes.get(self.at + 1) != Some(&b'(') => self.operator(),
                b'0'..=b'9' if self.is_fd_redirect() => {
                    while self.bytes[self.at].is_ascii_digit() {
                        self.at += 1;
                    }
                    self.operator();
                }
                _ => {
                    let word = self.word();
                    self.command.words.push(word);
                }
            }
        }
        self.end_pipeline();
    }

    /// Whether the byte at `at` stands alone (whitespace or an end after `len` bytes).
    fn standalone(&self, len: usize) -> bool {
        let before = self.at == 0 || matches!(self.bytes[self.at - 1], b' ' | b'\t' | b'\n' | b';');
        let after = self
            .bytes
            .get(self.at + len)
            .is_none_or(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b';'));
        before && after
    }

    /// `2>`, `1>&2`: digits at a word's start directly followed by `<` or `>`.
    fn is_fd_redirect(&self) -> bool {
        let at_word_start = self.at == 0
            || matches!(
                self.bytes[self.at - 1],
                b' ' | b'\t' | b'\n' | b';' | b'|' | b'&'
            );
        if !at_word_start {
            return false;
        }
        let mut index = self.at;
        while index < self.bytes.len() && self.bytes[index].is_ascii_digit() {
            index += 1;
        }
        matches!(self.bytes.get(index), Some(b'<' | b'>'))
    }

    fn operator(&mut self) {
        let rest = &self.bytes[self.at..];
        if rest.starts_with(b"<<<") {
            self.redirect(3, "<<<");
        } else if rest.starts_with(b"<<-") {
            self.heredoc(3);
        } else if rest.starts_with(b"<<") {
            self.heredoc(2);
        } else if rest.starts_with(b">>") {
            self.redirect(2, ">>");
        } else if rest.starts_with(b">&") || rest.starts_with(b"<&") {
            self.redirect(2, ">&");
        } else if rest.starts_with(b">|") {
            self.redirect(2, ">");
        } else if rest.starts_with(b">") {
            self.redirect(1, ">");
        } else {
            self.redirect(1, "<");
        }
    }

    fn redirect(&mut self, len: usize, op: &'static str) {
        self.at += len;
        self.skip_blanks();
        if self.at >= self.bytes.len() || matches!(self.bytes[self.at], b'\n' | b';' | b'|' | b'&')
        {
            return;
        }
        let target = self.word();
        self.command.redirects.push(Redirect { op, target });
    }

    fn heredoc(&mut self, len: usize) {
        self.at += len;
        self.skip_blanks();
        if self.at >= self.bytes.len() {
            return;
        }
        let delimiter = self.word();
        let index = self.pipelines.len();
        self.heredocs
            .push((delimiter.text.clone(), index, self.pipeline.len()));
        self.command.redirects.push(Redirect {
            op: "<<",
            target: delimiter,
        });
    }

    /// The heredoc bodies that start after the line just ended.
    fn read_heredocs(&mut self) {
        for (delimiter, pipeline, command) in std::mem::take(&mut self.heredocs) {
            let start = self.at;
            let mut end = self.bytes.len();
            let mut next = self.bytes.len();
            let mut line_start = self.at;
            while line_start < self.bytes.len() {
                let line_end = self.text[line_start..]
                    .find('\n')
                    .map_or(self.bytes.len(), |index| line_start + index);
                if self.text[line_start..line_end].trim() == delimiter {
                    end = line_start;
                    next = (line_end + 1).min(self.bytes.len());
                    break;
                }
                line_start = line_end + 1;
            }
            self.at = next;
            if let Some(target) = self
                .pipelines
                .get_mut(pipeline)
                .and_then(|pipeline| pipeline.get_mut(command))
            {
                target.heredoc = Some((self.base + start, self.base + end));
            }
        }
    }

    fn skip_blanks(&mut self) {
        while self.at < self.bytes.len() && matches!(self.bytes[self.at], b' ' | b'\t') {
            self.at += 1;
        }
    }

    fn end_command(&mut self) {
        let mut command = std::mem::take(&mut self.command);
        command.program = command.find_program();
        if !command.words.is_empty() || !command.redirects.is_empty() {
            self.pipeline.push(command);
        }
    }

    fn end_pipeline(&mut self) {
        self.end_command();
        let pipeline = std::mem::take(&mut self.pipeline);
        if !pipeline.is_empty() {
            self.pipelines.push(pipeline);
        }
    }

    /// One word from `at`: quotes removed, substitutions kept as written and recorded.
    fn word(&mut self) -> Word {
        let start = self.at;
        if self.command.words.is_empty() && self.command.redirects.is_empty() {
            self.command.start = self.base + start;
        }
        let mut text = String::new();
        let mut quoted = false;
        while self.at < self.bytes.len() {
            let byte = self.bytes[self.at];
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' | b';' | b'|' | b'&' | b')' => break,
                b'(' if !text.is_empty() => {
                    // `name()` of a function definition: the word ends.
                    break;
                }
                b'<' | b'>' => {
                    if self.bytes.get(self.at + 1) == Some(&b'(') {
                        let (inner_start, inner_end) = self.balanced(self.at + 2, b'(', b')');
                        self.substitution(inner_start, inner_end, &mut text);
                    } else {
                        break;
                    }
                }
                b'\\' => {
                    if let Some(next) = self.text[self.at + 1..].chars().next() {
                        if next != '\n' {
                            text.push(next);
                        }
                        self.at += 1 + next.len_utf8();
                    } else {
                        self.at += 1;
                    }
                }
                b'\'' => {
                    quoted = true;
                    let from = self.at + 1;
                    let to = self.text[from..]
                        .find('\'')
                        .map_or(self.bytes.len(), |index| from + index);
                    text.push_str(&self.text[from..to]);
                    self.at = (to + 1).min(self.bytes.len());
                }
                b'"' => {
                    quoted = true;
                    self.at += 1;
                    self.double_quoted(&mut text);
                }
                b'`' => {
                    let from = self.at + 1;
                    let to = self.text[from..]
                        .find('`')
                        .map_or(self.bytes.len(), |index| from + index);
                    self.at = from;
                    self.substitution_at(from, to, "`", "`", &mut text);
                }
                b'$' if self.bytes.get(self.at + 1) == Some(&b'(') => {
                    if self.bytes.get(self.at + 2) == Some(&b'(') {
                        // Arithmetic: kept as text.
                        let (_, inner_end) = self.balanced(self.at + 2, b'(', b')');
                        text.push_str(&self.text[self.at..inner_end]);
                        self.at = (inner_end + 1).min(self.bytes.len());
                    } else {
                        let (inner_start, inner_end) = self.balanced(self.at + 2, b'(', b')');
                        self.substitution(inner_start, inner_end, &mut text);
                    }
                }
                b'$' if self.bytes.get(self.at + 1) == Some(&b'{') => {
                    let (_, inner_end) = self.balanced(self.at + 2, b'{', b'}');
                    let close = (inner_end + 1).min(self.bytes.len());
                    text.push_str(&self.text[self.at..close]);
                    self.at = close;
                }
                _ => {
                    let character = self.text[self.at..].chars().next().unwrap_or(' ');
                    text.push(character);
                    self.at += character.len_utf8();
                }
            }
        }
        Word {
            text,
            start: self.base + start,
            end: self.base + self.at,
            quoted,
        }
    }

    fn double_quoted(&mut self, text: &mut String) {
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b'"' => {
                    self.at += 1;
                    return;
                }
                b'\\' => {
                    if let Some(next) = self.text[self.at + 1..].chars().next() {
                        if !matches!(next, '"' | '\\' | '$' | '`') {
                            text.push('\\');
                        }
                        if next != '\n' {
                            text.push(next);
                        }
                        self.at += 1 + next.len_utf8();
                    } else {
                        self.at += 1;
                    }
                }
                b'`' => {
                    let from = self.at + 1;
                    let to = self.text[from..]
                        .find('`')
                        .map_or(self.bytes.len(), |index| from + index);
                    self.substitution_at(from, to, "`", "`", text);
                }
                b'$' if self.bytes.get(self.at + 1) == Some(&b'(') => {
                    let (inner_start, inner_end) = self.balanced(self.at + 2, b'(', b')');
                    self.substitution(inner_start, inner_end, text);
                }
                _ => {
                    let character = self.text[self.at..].chars().next().unwrap_or(' ');
                    text.push(character);
                    self.at += character.len_utf8();
                }
            }
        }
    }

    /// Records the substitution whose code is `inner_start..inner_end` and whose closing
    /// bracket follows it; moves past it.
    fn substitution(&mut self, inner_start: usize, inner_end: usize, text: &mut String) {
        let opener = &self.text[inner_start.saturating_sub(2)..inner_start];
        self.substitution_at(inner_start, inner_end, opener, ")", text);
    }

    fn substitution_at(
        &mut self,
        inner_start: usize,
        inner_end: usize,
        open: &str,
        close: &str,
        text: &mut String,
    ) {
        text.push_str(open);
        text.push_str(&self.text[inner_start..inner_end]);
        text.push_str(close);
        self.command
            .substitutions
            .push((self.base + inner_start, self.base + inner_end));
        self.at = (inner_end + 1).min(self.bytes.len());
    }

    /// The range inside brackets opened just before `from`, counting nested ones and
    /// skipping quotes: (from, index of the closing bracket or the end).
    fn balanced(&self, from: usize, open: u8, close: u8) -> (usize, usize) {
        let mut depth = 1usize;
        let mut index = from;
        while index < self.bytes.len() {
            match self.bytes[index] {
                b'\\' => index += 1,
                b'\'' => {
                    index = self.text[index + 1..]
                        .find('\'')
                        .map_or(self.bytes.len(), |found| index + 1 + found);
                }
                b'"' => {
                    let mut inner = index + 1;
                    while inner < self.bytes.len() && self.bytes[inner] != b'"' {
                        if self.bytes[inner] == b'\\' {
                            inner += 1;
                        }
                        inner += 1;
                    }
                    index = inner;
                }
                byte if byte == open => depth += 1,
                byte if byte == close => {
                    depth -= 1;
                    if depth == 0 {
                        return (from, index);
                    }
                }
                _ => {}
            }
            index += 1;
        }
        (from, self.bytes.len())
    }
}

/// The names of the variables a word expands (`$NAME`, `${NAME}`, `${NAME:-x}`).
pub(super) fn variables(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('$').filter_map(move |(index, _)| {
        let rest = &text[index + 1..];
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        let rest = rest.strip_prefix('(').unwrap_or(rest);
        let len = rest
            .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<Vec<String>> {
        parse(text, 0)
            .iter()
            .map(|pipeline| pipeline.iter().map(|c| c.name().to_owned()).collect())
            .collect()
    }

    #[test]
    fn commands_pipes_and_separators() {
        assert_eq!(
            names(
                "curl -s x | sudo -E bash -; echo ok && ls\n# rm -rf /\nFOO=1 env A=b python3 x.py"
            ),
            vec![
                vec!["curl".to_owned(), "bash".to_owned()],
                vec!["echo".to_owned()],
                vec!["ls".to_owned()],
                vec!["python3".to_owned()]
            ]
        );
    }

    #[test]
    fn quotes_are_removed_and_substitutions_recorded() {
        let text = r#"bash -c "$(curl -fsSL https://x.test/i.sh)" 'a b' c\ d"#;
        let pipelines = parse(text, 10);
        let command = &pipelines[0][0];
        assert_eq!(command.args()[0].text, "-c");
        assert_eq!(command.args()[1].text, "$(curl -fsSL https://x.test/i.sh)");
        assert_eq!(command.args()[2].text, "a b");
        assert_eq!(command.args()[3].text, "c d");
        let (start, end) = command.substitutions[0];
        assert_eq!(
            &text[start - 10..end - 10],
            "curl -fsSL https://x.test/i.sh"
        );
    }

    #[test]
    fn heredocs_and_redirections() {
        let text = "cat > run.py <<'EOF'\nimport os\nEOF\necho hi >> ~/.bashrc 2>&1\n";
        let pipelines = parse(text, 0);
        assert_eq!(pipelines.len(), 2, "{pipelines:#?}");
        let (start, end) = pipelines[0][0].heredoc.unwrap();
        assert_eq!(&text[start..end], "import os\n");
        assert_eq!(pipelines[1][0].redirects[0].op, ">>");
        assert_eq!(pipelines[1][0].redirects[0].target.text, "~/.bashrc");
    }

    #[test]
    fn flags_and_variables() {
        let pipelines = parse("rm -rf --no-preserve-root \"$HOME\" ${X:-y}", 0);
        let command = &pipelines[0][0];
        assert!(command.has_flag('r', &["recursive"]));
        assert!(command.has_flag('f', &["force"]));
        assert!(!command.has_flag('v', &[]));
        let found: Vec<&str> = command
            .args()
            .iter()
            .flat_map(|word| variables(&word.text))
            .collect();
        assert_eq!(found, ["HOME", "X"]);
    }

    #[test]
    fn unclosed_quotes_and_odd_bytes_do_not_panic() {
        for text in [
            "echo 'open",
            "echo \"$(",
            "`",
            "a <(",
            "x\\",
            "2>",
            "<<",
            "é|€",
        ] {
            let _ = parse(text, 0);
        }
    }
}
