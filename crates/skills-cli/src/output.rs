//! Output conventions shared by every command: colour choice, styles, machine output and the
//! one-line error with its hint (05 §Conventions).
//!
//! Text a skill (or a registry, or a server) supplies reaches the terminal only through
//! [`shown`], [`shown_path`] or [`shown_description`]: the one sanitiser
//! (`skills::sanitize`) strips escape sequences, controls and bidi or zero-width
//! characters, so a description cannot recolour, retitle or rewrite the user's terminal.
//! Our own styling is added around the sanitised text, never run through it.
//!
//! Machine output is an agent's to read as much as a script's: every `--json` document
//! ([`print_json`]) and every JSON line of a stream ([`json_line`]) goes whole through the one
//! sanitiser ([`sanitize::json_text`]) — every string and key, at any depth — so no command's
//! JSON, today's or one added later, carries a control, escape, bidi or zero-width character.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::Path;

use anstream::{eprintln, println};
use anstyle::{AnsiColor, Effects, Style};
use skills::Error;
use skills::sanitize;

use crate::cli::{ColorWhen, Global};

pub(crate) const OK: Style = AnsiColor::Green.on_default().effects(Effects::BOLD);
pub(crate) const FAIL: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
pub(crate) const ERROR: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
pub(crate) const WARNING: Style = AnsiColor::Yellow.on_default().effects(Effects::BOLD);
pub(crate) const DIM: Style = Style::new().effects(Effects::DIMMED);

impl Global {
    /// Applies the colour choice and the log level for the whole process.
    pub(crate) fn apply(&self) {
        let choice = match self.color {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        };
        choice.write_global();
        let level = match (self.quiet, self.verbose) {
            (true, _) => "error",
            (false, 0) => "warn",
            (false, 1) => "info",
            (false, 2) => "debug",
            (false, _) => "trace",
        };
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(level))
            .with_writer(std::io::stderr)
            .with_ansi(log_colours(choice))
            .without_time()
            .init();
    }
}

/// Whether `-v` logs on stderr carry colour: as the rest of stderr does. `--color auto` (the
/// default) means a terminal and no `NO_COLOR`; a log redirected to a file stays plain text.
fn log_colours(choice: anstream::ColorChoice) -> bool {
    match choice {
        anstream::ColorChoice::Never => false,
        anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi => true,
        anstream::ColorChoice::Auto => {
            anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
        }
    }
}

/// Skill-supplied text for one line of human output: [`sanitize::line`].
pub(crate) fn shown(text: &str) -> Cow<'_, str> {
    sanitize::line(text)
}

/// A path for human output: a folder name is skill-supplied text too.
pub(crate) fn shown_path(path: &Path) -> String {
    sanitize::line(&path.to_string_lossy()).into_owned()
}

/// A description for human output: one line, capped ([`sanitize::description`]).
pub(crate) fn shown_description(text: &str) -> Cow<'_, str> {
    sanitize::description(text)
}

/// Prints a value as pretty JSON on stdout, sanitised: the whole of `--json` output.
///
/// Streamed through the sanitiser ([`sanitize::SanitizingWriter`]) as it is serialised: the
/// bytes are those of [`sanitize::json_text`] over the whole text, but no copy of the document
/// is held (a listing of ten thousand skills is megabytes of JSON, which would sit in memory
/// beside the records it is made from, twice when a string needed cleaning).
pub(crate) fn print_json(value: &impl serde::Serialize) {
    widen_pipe();
    // Buffered on both sides of the sanitiser. Before it: the serialiser writes a string in
    // several small pieces (the quotes, the runs between escapes), and the sanitiser reads a
    // string literal whole, so fed piece by piece it held and copied each one; fed 64 KiB at a
    // time it reads nearly every literal in one pass (a listing's output cost as much as its
    // discovery before). After it: stdout is line-buffered, and a large listing would
    // otherwise cost one system call per line.
    let stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut writer =
        std::io::BufWriter::with_capacity(1 << 16, sanitize::SanitizingWriter::new(stdout));
    // A closed pipe (`skills ... --json | head`) is not worth a panic or a second error.
    if serde_json::to_writer_pretty(&mut writer, value).is_err() {
        return;
    }
    let _ = writeln!(writer)
        .and_then(|()| {
            writer
                .into_inner()
                .map_err(std::io::IntoInnerError::into_error)
        })
        .and_then(sanitize::SanitizingWriter::finish)
        .and_then(|mut stdout| stdout.flush());
}

/// A pretty JSON document written in pieces, all through one sanitiser: for a document whose
/// parts come one at a time (`skills audit --json`'s reports as the scan hands them on), so
/// that neither the whole document nor every part of it is held. The bytes are those
/// [`print_json`] writes for the same document: each part is pretty printed alone and indented
/// to its depth (a JSON string holds no raw line feed, so every line feed of a part is a line
/// break of its layout), and the sanitiser reads text cut anywhere as it reads it whole.
pub(crate) struct JsonPieces<W: Write> {
    /// Buffered before the sanitiser, as [`print_json`] is: the pieces come line by line.
    writer: std::io::BufWriter<sanitize::SanitizingWriter<W>>,
    /// One part's text, reused: as large as the largest part.
    part: Vec<u8>,
    /// A write failed (a closed pipe): the rest is not worth writing.
    failed: bool,
}

impl JsonPieces<std::io::BufWriter<std::io::Stdout>> {
    /// Pieces to stdout, buffered. The lock is taken per buffer written, never held between
    /// two pieces: the pieces come from a scan whose worker threads must never wait on it.
    pub(crate) fn stdout() -> Self {
        widen_pipe();
        Self::new(std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout(),
        ))
    }
}

impl<W: Write> JsonPieces<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            writer: std::io::BufWriter::with_capacity(
                1 << 16,
                sanitize::SanitizingWriter::new(inner),
            ),
            part: Vec::new(),
            failed: false,
        }
    }

    /// The document's own punctuation and keys, as they are.
    pub(crate) fn text(&mut self, text: &str) {
        if !self.failed {
            self.failed = self.writer.write_all(text.as_bytes()).is_err();
        }
    }

    /// `value` pretty printed as it is at `depth` levels of nesting (two spaces a level).
    pub(crate) fn value(&mut self, value: &impl serde::Serialize, depth: usize) {
        if self.failed {
            return;
        }
        self.part.clear();
        if serde_json::to_writer_pretty(&mut self.part, value).is_err() {
            self.failed = true;
            return;
        }
        let indent = "  ".repeat(depth);
        let mut lines = self.part.split(|byte| *byte == b'\n');
        let mut result = lines
            .next()
            .map_or(Ok(()), |line| self.writer.write_all(line));
        for line in lines {
            result = result
                .and_then(|()| self.writer.write_all(b"\n"))
                .and_then(|()| self.writer.write_all(indent.as_bytes()))
                .and_then(|()| self.writer.write_all(line));
        }
        self.failed = result.is_err();
    }

    /// Writes what the sanitiser still holds and flushes; the writer underneath.
    pub(crate) fn finish(self) -> Option<W> {
        if self.failed {
            return None;
        }
        let mut inner = self.writer.into_inner().ok()?.finish().ok()?;
        inner.flush().ok()?;
        Some(inner)
    }
}

/// Text blocks written one after the other on stdout ([`block`] writes one): buffered, the
/// colour choice taken once. For output whose parts come one at a time (`skills audit`'s
/// reports); the lock is taken per buffer written, never held between two blocks.
pub(crate) struct Blocks {
    out: std::io::BufWriter<std::io::Stdout>,
    strip: bool,
}

impl Blocks {
    pub(crate) fn stdout() -> Self {
        let stdout = std::io::stdout();
        let strip = matches!(
            anstream::AutoStream::choice(&stdout),
            anstream::ColorChoice::Never
        );
        Self {
            out: std::io::BufWriter::with_capacity(1 << 16, stdout),
            strip,
        }
    }

    pub(crate) fn write(&mut self, text: &str) {
        // A closed pipe is not worth a panic or a second error.
        let _ = if self.strip {
            write!(self.out, "{}", anstream::adapter::strip_str(text))
        } else {
            self.out.write_all(text.as_bytes())
        };
    }

    pub(crate) fn finish(mut self) {
        let _ = self.out.flush();
    }
}

/// A value as pretty JSON text, sanitised like [`print_json`]: a document written to a file
/// (`skills audit --sarif FILE`).
pub(crate) fn json_document(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value)
        .map(|text| sanitize::json_text(&text).into_owned())
        .unwrap_or_default()
}

/// A value as one line of JSON, sanitised like [`print_json`]: one event of a stream.
pub(crate) fn json_line(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value)
        .map(|text| sanitize::json_text(&text).into_owned())
        .unwrap_or_default()
}

/// When stdout is a pipe, asks for a larger pipe buffer (1 MiB, the unprivileged maximum by
/// default). A listing of ten thousand skills is megabytes of JSON; through the default 64 KiB
/// buffer the writer and the reader take turns a hundred times. Refusal changes nothing.
fn widen_pipe() {
    #[cfg(target_os = "linux")]
    {
        let stdout = std::io::stdout();
        let is_pipe = rustix::fs::fstat(&stdout).is_ok_and(|stat| {
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Fifo
        });
        if is_pipe {
            let _ = rustix::pipe::fcntl_setpipe_size(&stdout, 1 << 20);
        }
    }
}

/// Text for an agent or a file, written verbatim: no colour processing, nothing added.
pub(crate) fn raw(text: &str) {
    let mut stdout = std::io::stdout().lock();
    // A closed pipe is not worth a panic or a second error.
    let _ = stdout.write_all(text.as_bytes());
}

/// The one-line error on stderr, then a hint when one helps.
///
/// Both are sanitised: an error quotes names, paths and server answers.
pub(crate) fn print_error(message: &str, hint: Option<&str>) {
    eprintln!("{ERROR}error{ERROR:#}: {}", shown(message));
    if let Some(hint) = hint {
        eprintln!("{DIM}hint{DIM:#}: {}", shown(hint));
    }
}

/// A diagnostic as `list` prints it under its table: `error[invalid-config] PATH: message`.
pub(crate) fn diagnostic_line(diagnostic: &skills::Diagnostic) -> String {
    let path = diagnostic
        .path
        .as_ref()
        .map(|path| format!(" {}", shown_path(path)))
        .unwrap_or_default();
    format!(
        "{WARNING}{}{WARNING:#}{DIM}[{}]{DIM:#}{path}: {}",
        diagnostic.severity,
        diagnostic.code,
        shown(&diagnostic.message)
    )
}

/// The problems of the configuration files, on stderr the way `list` prints them, for a
/// command that uses their settings (`runtimes`, `tools`, `setup`, `run`, `test`): a value that
/// means nothing (`[runtime] sandbox = "of"`) is said wherever it matters, not only by `list`.
pub(crate) fn print_settings_problems(skills: &skills::Skills) {
    for diagnostic in skills.settings_diagnostics() {
        if diagnostic.severity >= skills::Severity::Warning {
            eprintln!("{}", diagnostic_line(&diagnostic));
        }
    }
}

/// The hints of a failed run (which rule refused what, what is missing, and what allows
/// it), on stderr under the script's own output.
pub(crate) fn print_run_hints(hints: &[skills::run::Hint]) {
    for hint in hints {
        eprintln!("{DIM}hint{DIM:#}: {}", shown(&hint.message));
    }
}

/// What a setup did (`skills setup`, `run --setup`), in words on stderr: the steps' own
/// output went by above it.
pub(crate) fn print_setup_outcome(global: &Global, outcome: &skills::run::SetupOutcome) {
    let skill = shown(&outcome.skill);
    let place = outcome
        .environment
        .as_deref()
        .map(shown_path)
        .unwrap_or_default();
    match outcome.status {
        skills::run::SetupStatus::SetUp => {
            if global.quiet {
                return;
            }
            let mut what = Vec::new();
            if !outcome.requirements.is_empty() {
                what.push(format!(
                    "Python: {}",
                    shown(&outcome.requirements.join(", "))
                ));
            }
            if !outcome.node_dependencies.is_empty() {
                what.push(format!(
                    "npm: {}",
                    shown(&outcome.node_dependencies.join(", "))
                ));
            }
            eprintln!(
                "set up '{skill}' ({}; declared in {}); its runs use {place}",
                what.join("; "),
                shown(&outcome.declared_in.join(", "))
            );
        }
        skills::run::SetupStatus::UpToDate => {
            if !global.quiet {
                eprintln!("'{skill}' is set up already ({place}); --force sets it up again");
            }
        }
        skills::run::SetupStatus::Failed => {
            let step = outcome.steps.last();
            let failed = step.map_or_else(
                || "a step failed".to_owned(),
                |step| {
                    format!(
                        "step {} (run {}) ended {} with status {}",
                        outcome.steps.len(),
                        step.run_id,
                        step.status.as_str(),
                        step.exit_status()
                    )
                },
            );
            print_error(
                &format!(
                    "setting up '{}' failed: {failed}; the environment runs use is as it was, \
                     and nothing of this setup was kept",
                    outcome.skill
                ),
                None,
            );
            if let Some(step) = step {
                print_run_hints(&step.hints);
            }
        }
        _ => print_error(
            &format!(
                "'{}' declares no dependencies: no requirements.txt (in its folder or \
                 scripts/), no `# /// script` block in its Python scripts, no dependencies in a \
                 package.json",
                outcome.skill
            ),
            Some(&format!(
                "`skills setup {} --package NAME` installs a Python package into the skill's own environment",
                outcome.skill
            )),
        ),
    }
}

/// A warning line on stderr, sanitised.
pub(crate) fn warn(message: &str) {
    eprintln!("{WARNING}warning{WARNING:#}: {}", shown(message));
}

/// Prints `text`, lines each ending with a line feed, in one buffered write. Through
/// `anstream` a styled text is written piece by piece between its escape codes, so a report of
/// ten thousand coloured lines would cost ten thousand system calls on a line-buffered stdout.
pub(crate) fn block(text: &str) {
    let mut blocks = Blocks::stdout();
    blocks.write(text);
    blocks.finish();
}

/// A line on stdout.
pub(crate) fn line(text: impl std::fmt::Display) {
    println!("{text}");
}

/// Reports a failed call: the message and a hint on stderr, and with `--json` also the error
/// document on stdout (so a script always gets JSON). Returns the exit status it deserves.
pub(crate) fn fail(global: &Global, error: &Error) -> crate::Exit {
    fail_with_hint(global, error, hint_of(error))
}

/// The hint [`fail`] prints under an error, when one helps.
pub(crate) fn hint_of(error: &Error) -> Option<&'static str> {
    match error {
        Error::SkillNotFound { .. } => Some(
            "run 'skills list' to see the skills; a project skill needs a trusted workspace ('skills trust')",
        ),
        Error::SkillDenied { .. } => {
            Some("a [permissions] rule in skills.toml denies it; change the rule to use it")
        }
        Error::SkillDisabled { .. } => Some("remove it from 'disabled' in skills.toml to use it"),
        Error::UntrustedWorkspace { .. } => {
            Some("run 'skills trust' in the workspace if you trust its skills")
        }
        Error::ConfigInvalid { .. } => {
            Some("fix or remove the file; 'skills list' still works and shows every problem in it")
        }
        Error::RootOutsideScope { .. } => Some(
            "a workspace root must be the workspace's own folder: 'skills list' shows the skills there as the user's",
        ),
        Error::AlreadyExists { .. } => {
            Some("choose another name, or remove the existing skill with 'skills uninstall NAME'")
        }
        Error::AuditUnconfirmed { .. } => {
            Some("pass --yes to agree (off a terminal there is nobody to ask)")
        }
        _ => None,
    }
}

/// [`fail`] with the caller's own hint (a command whose failures need other advice).
pub(crate) fn fail_with_hint(global: &Global, error: &Error, hint: Option<&str>) -> crate::Exit {
    print_error(&error.to_string(), hint);
    if global.json {
        print_json(&serde_json::json!({ "error": ErrorRecord::new(error, None) }));
    }
    match error {
        Error::InvalidInput(_)
        | Error::Unsupported { .. }
        | Error::NotFound { .. }
        | Error::NotADirectory { .. }
        | Error::PathRefused { .. }
        | Error::AmbiguousSkill { .. } => crate::Exit::Usage,
        _ => crate::Exit::Failure,
    }
}

/// Reports a problem found before any call (bad options, no home directory).
pub(crate) fn usage(global: &Global, message: &str) -> crate::Exit {
    usage_with_hint(global, message, None)
}

/// [`usage`] with a hint.
pub(crate) fn usage_with_hint(global: &Global, message: &str, hint: Option<&str>) -> crate::Exit {
    print_error(message, hint);
    if global.json {
        print_json(&serde_json::json!({ "error": { "kind": "usage", "message": message } }));
    }
    crate::Exit::Usage
}

/// The width to fit human output to: `COLUMNS` when set (the user asked for it), else the
/// terminal's width, else `None` — piped or redirected output is never cut, so a script
/// reading `skills list | grep` sees whole names and descriptions.
pub(crate) fn width() -> Option<usize> {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.parse().ok())
    {
        return Some(columns);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    terminal_size::terminal_size_of(std::io::stdout()).map(|(width, _)| usize::from(width.0))
}

/// How wide a column of `widest` characters is drawn: capped at `cap` when output is fitted
/// (`width` is `Some`), whole otherwise.
pub(crate) fn column(widest: usize, cap: usize, width: Option<usize>) -> usize {
    match width {
        Some(_) => widest.min(cap),
        None => widest,
    }
}

/// `text` cut to `width` characters, ending in `…` when cut.
pub(crate) fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// The machine form of an error: `{"kind", "message"}` plus the path when there is one.
#[derive(serde::Serialize)]
pub(crate) struct ErrorRecord {
    pub(crate) kind: &'static str,
    pub(crate) message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
}

impl ErrorRecord {
    pub(crate) fn new(error: &Error, path: Option<&Path>) -> Self {
        Self {
            kind: error.kind(),
            message: error.to_string(),
            path: path.map(|path| path.display().to_string()),
        }
    }
}
