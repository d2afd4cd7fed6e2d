//! `skills validate`: lint skills against a profile (01, 05).
//!
//! Exit status: 0 when every skill is valid, 1 when at least one is not, 2 when a path could
//! not be validated at all (missing, not a directory, no `SKILL.md`, unreadable). All paths
//! are checked before exiting, and the worst status wins.

use std::path::Path;

use serde::Serialize;
use skills::validate::{Options, Report};
use skills::{Diagnostic, Error, Severity};

use crate::Exit;
use crate::cli::{Global, ValidateArgs};
use crate::output::{self, DIM, ERROR, ErrorRecord, FAIL, OK, WARNING};

/// The `--json` document (docs/cli.md).
#[derive(Serialize)]
struct Output {
    /// Every skill checked is valid and every path could be checked.
    valid: bool,
    profile: skills::validate::Profile,
    strict: bool,
    /// One report per skill, in path order.
    reports: Vec<Report>,
    /// Paths that could not be validated.
    errors: Vec<ErrorRecord>,
}

pub(crate) fn run(global: &Global, args: &ValidateArgs) -> Exit {
    let options = Options::new(args.profile.into()).strict(args.strict);
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for path in &args.paths {
        let results = if args.recursive {
            skills::validate::validate_tree(path, &options)
        } else {
            skills::validate::validate_path(path, &options).map(|report| vec![Ok(report)])
        };
        match results {
            Ok(results) => {
                for result in results {
                    match result {
                        Ok(report) => reports.push(report),
                        // A folder the walk passed over is named by its own path.
                        Err(error) => {
                            let at = match &error {
                                Error::NotValidated { path, .. } => path.clone(),
                                _ => path.clone(),
                            };
                            errors.push((at, error));
                        }
                    }
                }
            }
            Err(error) => errors.push((path.clone(), error)),
        }
    }

    let invalid = reports.iter().filter(|report| !report.valid).count();
    let exit = if !errors.is_empty() {
        Exit::Usage
    } else if invalid > 0 {
        Exit::Failure
    } else {
        Exit::Success
    };

    if global.json {
        let output = Output {
            valid: exit == Exit::Success,
            profile: options.profile,
            strict: options.strict,
            errors: errors
                .iter()
                .map(|(path, error)| ErrorRecord::new(error, Some(path)))
                .collect(),
            reports,
        };
        output::print_json(&output);
        return exit;
    }

    // One write for all the reports: stdout is line-buffered, and ten thousand skills would
    // otherwise cost ten thousand system calls.
    let mut text = String::new();
    for report in &reports {
        write_report(&mut text, report, global.quiet);
    }
    output::block(&text);
    for (path, error) in &errors {
        output::print_error(
            &error.to_string(),
            hint(path, error, args.recursive).as_deref(),
        );
    }
    if !global.quiet && reports.len() > 1 {
        output::line(format_args!(
            "\n{} skills checked: {} valid, {invalid} invalid (profile {}{})",
            reports.len(),
            reports.len() - invalid,
            options.profile,
            if options.strict { ", strict" } else { "" }
        ));
    }
    exit
}

/// Appends the lines of one report to `text`, each ending with a line feed.
pub(crate) fn write_report(text: &mut String, report: &Report, quiet: bool) {
    use std::fmt::Write as _;
    let shown = shown_path(report);
    if report.valid {
        if !quiet {
            let warnings = report.count(Severity::Warning);
            let note = if warnings > 0 {
                format!("  {DIM}({warnings} warning{}){DIM:#}", plural(warnings))
            } else {
                String::new()
            };
            let _ = writeln!(text, "{OK}  ok{OK:#}  {shown}{note}");
        }
    } else {
        let _ = writeln!(text, "{FAIL}FAIL{FAIL:#}  {shown}");
    }
    if report.valid && quiet {
        return;
    }
    let file_name = report
        .file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    for diagnostic in &report.diagnostics {
        let _ = writeln!(text, "      {}", describe(diagnostic, &file_name));
    }
}

/// `error[code] SKILL.md:2: message`, the location being the line of the definition file or
/// the package file a finding is about.
fn describe(diagnostic: &Diagnostic, file_name: &str) -> String {
    let style = match diagnostic.severity {
        Severity::Error => ERROR,
        Severity::Warning => WARNING,
        Severity::Info => DIM,
    };
    let location = match (&diagnostic.path, diagnostic.line) {
        (Some(path), _) => format!(" {}", output::shown_path(path)),
        (None, Some(line)) => format!(" {}:{line}", output::shown(file_name)),
        (None, None) => String::new(),
    };
    format!(
        "{style}{}{style:#}{DIM}[{}]{DIM:#}{location}: {}",
        diagnostic.severity,
        diagnostic.code,
        output::shown(&diagnostic.message)
    )
}

/// The skill directory, or the file itself when it is not the canonical `SKILL.md`.
fn shown_path(report: &Report) -> String {
    let canonical = report
        .file
        .file_name()
        .is_some_and(|name| name == skills::load::SKILL_MD);
    let path: &Path = if canonical { &report.dir } else { &report.file };
    output::shown_path(path)
}

fn hint(path: &Path, error: &Error, recursive: bool) -> Option<String> {
    match error {
        Error::NoDefinitionFile { .. } if !recursive => Some(format!(
            "pass a directory that holds SKILL.md, or validate every skill below it with 'skills validate --recursive {}'",
            path.display()
        )),
        Error::NoDefinitionFile { .. } => Some(
            "no directory below it holds a SKILL.md (hidden and excluded folders are skipped)"
                .to_owned(),
        ),
        Error::NotADirectory { .. } => {
            Some("pass a skill directory or the path of its SKILL.md".to_owned())
        }
        _ => None,
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}
