//! Output conventions shared by every command: colour choice, styles, machine output and the
//! one-line error with its hint (05 §Conventions).

use std::io::Write;

use anstream::{eprintln, println};
use anstyle::{AnsiColor, Effects, Style};
use skills::Error;

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
            .with_ansi(choice != anstream::ColorChoice::Never)
            .without_time()
            .init();
    }
}

/// Prints a value as pretty JSON on stdout, the whole of `--json` output.
pub(crate) fn print_json(value: &impl serde::Serialize) {
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`skills ... --json | head`) is not worth a panic or a second error.
    if serde_json::to_writer_pretty(&mut stdout, value).is_ok() {
        let _ = writeln!(stdout);
    }
}

/// The one-line error on stderr, then a hint when one helps.
pub(crate) fn print_error(message: &str, hint: Option<&str>) {
    eprintln!("{ERROR}error{ERROR:#}: {message}");
    if let Some(hint) = hint {
        eprintln!("{DIM}hint{DIM:#}: {hint}");
    }
}

/// A line on stdout.
pub(crate) fn line(text: impl std::fmt::Display) {
    println!("{text}");
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
    pub(crate) fn new(error: &Error, path: Option<&std::path::Path>) -> Self {
        Self {
            kind: error.kind(),
            message: error.to_string(),
            path: path.map(|path| path.display().to_string()),
        }
    }
}
