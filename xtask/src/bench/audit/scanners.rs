//! The three scanners of the audit rows, how each is started, and how each one's answer is
//! read onto one verdict.
//!
//! - **This program**: the release `skills audit --json` (one target: one report object;
//!   several: `{summary, results}`), exit status 0 clean, 1 findings at or above `--fail-on`
//!   (default high), 2 could not scan. It runs with a fresh home and workspace from the bench's
//!   temporary folder, so nothing of the person's own configuration is read.
//! - **Cisco's `skill-scanner`** (PyPI `cisco-ai-skill-scanner`): `scan DIR` for one skill,
//!   `scan-all DIR` for every skill folder directly below `DIR`, with its static analyzers
//!   (on by default) and `--use-behavioral`; no `--use-llm`, `--use-virustotal`,
//!   `--use-aidefense`, `--use-osv` or `--enable-meta`, the analyzers that need a model, an
//!   API key or the network. `--lenient` lets it score a skill whose frontmatter it would
//!   otherwise refuse, as this program does. Its JSON is the same report shape as ours.
//! - **`skillfortify`** (PyPI): `scan ROOT --format json` discovers skills below `ROOT` the way
//!   an agent loads them (`.claude/skills/<name>/SKILL.md`, `.openclaw/skills/…`, `.mcp.json`)
//!   and analyses them statically; it prints one result per skill found, exit status 2 when it
//!   finds none. It needs no model.
//!
//! Both peers are installed from PyPI into virtual environments under the bench's temporary
//! folder (`python3 -m venv`, then that environment's `pip`, with the machine's own pip
//! configuration, so a machine behind a TLS-intercepting proxy uses its CA), pinned to the
//! versions below, with pip's cache under `target/bench/audit-peers/` so a rerun installs
//! without downloading. Every peer command runs in a private network namespace with a cleared
//! environment, as the Node peers of the tree rows do: offline is checked, not assumed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use super::metrics::Severity;
use crate::process;

/// Cisco's scanner, as installed.
pub(crate) const CISCO: &str = "cisco-ai-skill-scanner==2.3.2";
/// skillfortify, as installed.
pub(crate) const SKILLFORTIFY: &str = "skillfortify==0.6.0";
/// pip's cache, relative to the repository root: kept between runs.
const PIP_CACHE: &str = "target/bench/audit-peers/pip-cache";

/// Cisco's analyzers that run offline with no key: the static ones are on by default.
pub(crate) const CISCO_FLAGS: [&str; 5] = [
    "--format",
    "json",
    "--use-behavioral",
    "--lenient",
    "--compact",
];

/// One of the three scanners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Scanner {
    Ours,
    Cisco,
    Fortify,
}

impl Scanner {
    /// In the order of the tables.
    pub(crate) const ALL: [Self; 3] = [Self::Ours, Self::Cisco, Self::Fortify];

    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Ours => "skills_audit",
            Self::Cisco => "cisco_skill_scanner",
            Self::Fortify => "skillfortify",
        }
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Ours => "skills audit",
            Self::Cisco => "cisco-ai-skill-scanner",
            Self::Fortify => "skillfortify",
        }
    }
}

/// What a scanner said about one skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Scanned {
        /// The worst finding; `Safe` for none.
        worst: Severity,
        /// What raised the flag: the rules (or finding kinds) at high or above, sorted, once.
        flagged_by: Vec<String>,
    },
    /// The scanner could not scan it, and why (in its words, shortened).
    NotScanned(String),
}

impl Outcome {
    /// Flagged at high or above; a skill not scanned is not flagged.
    pub(crate) fn flagged(&self) -> bool {
        matches!(self, Self::Scanned { worst, .. } if worst.flagged())
    }

    pub(crate) fn worst(&self) -> Option<Severity> {
        match self {
            Self::Scanned { worst, .. } => Some(*worst),
            Self::NotScanned(_) => None,
        }
    }
}

/// A report object of this program or Cisco's scanner: `max_severity` and the findings.
pub(crate) fn read_report(report: &Value) -> Result<Outcome, String> {
    let worst = report
        .get("max_severity")
        .and_then(Value::as_str)
        .and_then(Severity::parse)
        .ok_or("a report without a known max_severity")?;
    let findings = report
        .get("findings")
        .and_then(Value::as_array)
        .ok_or("a report without findings")?;
    let mut flagged_by: Vec<String> = findings
        .iter()
        .filter(|finding| {
            finding
                .get("severity")
                .and_then(Value::as_str)
                .and_then(Severity::parse)
                .is_some_and(Severity::flagged)
        })
        .filter_map(|finding| finding.get("rule_id").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    flagged_by.sort();
    flagged_by.dedup();
    Ok(Outcome::Scanned { worst, flagged_by })
}

/// One run of `skills audit --json TARGET`: exit status 2 is "could not scan"; 0 and 1 carry a
/// report. The second value says whether the exit status agrees with the report (1 exactly
/// when flagged at high or above, the default `--fail-on`).
pub(crate) fn read_ours(code: Option<i32>, stdout: &[u8], stderr: &[u8]) -> (Outcome, bool) {
    match code {
        Some(0 | 1) => match parse(stdout).and_then(|report| read_report(&report)) {
            Ok(outcome) => {
                let agrees = outcome.flagged() == (code == Some(1));
                (outcome, agrees)
            }
            Err(error) => (Outcome::NotScanned(error), false),
        },
        Some(2) => (Outcome::NotScanned(said(stderr, "exit status 2")), true),
        other => (
            Outcome::NotScanned(said(stderr, &format!("exit status {other:?}"))),
            false,
        ),
    }
}

/// One run of Cisco's `scan DIR`: a report, or an error on standard error.
pub(crate) fn read_cisco(code: Option<i32>, stdout: &[u8], stderr: &[u8]) -> Outcome {
    let read = if code == Some(0) {
        parse(stdout).and_then(|report| read_report(&report))
    } else {
        Err(format!("exit status {code:?}"))
    };
    // It writes "Error loading skill: ..." to standard output or standard error.
    let words = if String::from_utf8_lossy(stderr).trim().is_empty() {
        stdout
    } else {
        stderr
    };
    read.unwrap_or_else(|error| Outcome::NotScanned(said(words, &error)))
}

/// A batch (`skills audit --json A B …`, `skill-scanner scan-all`): `{summary, results}`, each
/// result a report with its `skill_path`.
pub(crate) fn read_batch(stdout: &[u8]) -> Result<Vec<(PathBuf, Outcome)>, String> {
    let value = parse(stdout)?;
    let results = value
        .get("results")
        .and_then(Value::as_array)
        .ok_or("no `results` array")?;
    results
        .iter()
        .map(|report| {
            let path = report
                .get("skill_path")
                .and_then(Value::as_str)
                .ok_or("a result without skill_path")?;
            Ok((PathBuf::from(path), read_report(report)?))
        })
        .collect()
}

/// One run of `skillfortify scan ROOT --format json`: an array with one result per skill
/// found (the worst of them counts), or exit status 2 and no skill.
pub(crate) fn read_fortify(code: Option<i32>, stdout: &[u8], stderr: &[u8]) -> Outcome {
    if code == Some(2) {
        return Outcome::NotScanned("skillfortify found no skill below the root".to_owned());
    }
    if !matches!(code, Some(0 | 1)) {
        return Outcome::NotScanned(said(stderr, &format!("exit status {code:?}")));
    }
    let results = match parse(stdout) {
        Ok(Value::Array(results)) if !results.is_empty() => results,
        Ok(_) => return Outcome::NotScanned("no result in its output".to_owned()),
        Err(error) => return Outcome::NotScanned(said(stderr, &error)),
    };
    let mut worst = Severity::Safe;
    let mut flagged_by = Vec::new();
    for result in &results {
        // `null` when a skill has no finding.
        if let Some(severity) = result
            .get("max_severity")
            .and_then(Value::as_str)
            .and_then(Severity::parse)
        {
            worst = worst.max(severity);
        }
        let findings = result.get("findings").and_then(Value::as_array);
        for finding in findings.into_iter().flatten() {
            let severe = finding
                .get("severity")
                .and_then(Value::as_str)
                .and_then(Severity::parse)
                .is_some_and(Severity::flagged);
            if severe {
                let kind = finding.get("finding_type").and_then(Value::as_str);
                let attack = finding.get("attack_type").and_then(Value::as_str);
                flagged_by.push(format!(
                    "{}:{}",
                    kind.unwrap_or("finding"),
                    attack.unwrap_or("-")
                ));
            }
        }
    }
    flagged_by.sort();
    flagged_by.dedup();
    Outcome::Scanned { worst, flagged_by }
}

/// How many skills a skillfortify batch reported (one result each).
pub(crate) fn fortify_count(stdout: &[u8]) -> Option<usize> {
    match parse(stdout) {
        Ok(Value::Array(results)) => Some(results.len()),
        _ => None,
    }
}

fn parse(stdout: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(stdout).map_err(|error| format!("its output is not JSON ({error})"))
}

/// What a tool said went wrong: its first `error` line on standard error, else its last
/// line (a hint often follows the error), after `fallback`.
fn said(stderr: &[u8], fallback: &str) -> String {
    let text = String::from_utf8_lossy(stderr);
    let error = text.lines().map(str::trim).find(|line| {
        line.get(..5)
            .is_some_and(|head| head.eq_ignore_ascii_case("error"))
    });
    let last = text.lines().map(str::trim).rfind(|line| !line.is_empty());
    match error.or(last) {
        Some(line) => {
            let short: String = line.chars().take(200).collect();
            format!("{fallback}: {short}")
        }
        None => fallback.to_owned(),
    }
}

/// One installed peer.
#[derive(Debug)]
pub(crate) struct Peer {
    /// Its console script in the virtual environment.
    pub(crate) program: PathBuf,
    /// What `--version` printed.
    pub(crate) version: String,
}

/// The peers' environment: how each is cut off and where its home is.
#[derive(Debug)]
pub(crate) struct Sandbox {
    isolation: &'static [&'static str],
    home: PathBuf,
}

impl Sandbox {
    /// The first namespace recipe that works here, or why the peers cannot run.
    pub(crate) fn new(home: PathBuf) -> Result<Self, String> {
        let isolation = skills_tests::peers::isolation().ok_or(
            "no private network namespace could be made (`unshare --net` and `unshare --user \
             --map-root-user --net` both failed), and the peers are never run with the network",
        )?;
        std::fs::create_dir_all(&home)
            .map_err(|error| format!("could not create {}: {error}", home.display()))?;
        Ok(Self { isolation, home })
    }

    pub(crate) fn describe(&self) -> String {
        format!("unshare {}", self.isolation.join(" "))
    }

    /// `program ARGS` in the namespace, with a cleared environment: `HOME` is a fresh folder,
    /// `PATH` the virtual environment's then the system's, colour and telemetry off.
    pub(crate) fn command<I, S>(&self, program: &Path, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let bin = program.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut command = Command::new("unshare");
        command
            .args(self.isolation)
            .arg(program)
            .args(args)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
            )
            .env("HOME", &self.home)
            .env("TMPDIR", std::env::temp_dir())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .env("DO_NOT_TRACK", "1")
            .current_dir(&self.home)
            .stdin(Stdio::null());
        command
    }

    /// Installs `package` (`name==version`) into the virtual environment `folder` and checks
    /// that `script --version` runs in the namespace; or says plainly why not.
    pub(crate) fn install(
        &self,
        root: &Path,
        folder: &Path,
        package: &str,
        script: &str,
    ) -> Result<Peer, String> {
        let mut venv = Command::new("python3");
        venv.args(["-m", "venv"]).arg(folder).stdin(Stdio::null());
        run_quietly(&mut venv).map_err(|error| {
            format!("`python3 -m venv` failed ({error}): install Python 3 with venv to measure the peers")
        })?;
        let mut pip = Command::new(folder.join("bin/pip"));
        pip.args([
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "--cache-dir",
        ])
        .arg(root.join(PIP_CACHE))
        .arg(package)
        .stdin(Stdio::null());
        run_quietly(&mut pip).map_err(|errors| {
            let tail: Vec<&str> = errors.lines().rev().take(3).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            if pypi_unreachable(&errors) {
                format!(
                    "PyPI could not be reached, and {PIP_CACHE} does not hold {package} ({})",
                    tail.join(" / ")
                )
            } else {
                format!("`pip install {package}` failed: {}", tail.join(" / "))
            }
        })?;
        let program = folder.join("bin").join(script);
        let output = self
            .command(&program, ["--version"])
            .output()
            .map_err(|error| format!("{} does not start: {error}", program.display()))?;
        if !output.status.success() {
            return Err(format!(
                "`{script} --version` failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        Ok(Peer { program, version })
    }
}

/// Runs `command`, echoed first; its standard error when it fails.
fn run_quietly(command: &mut Command) -> Result<(), String> {
    println!("$ {}", process::describe(command));
    let output = command.output().map_err(|error| error.to_string())?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Whether pip's errors say the index could not be reached (rather than a broken package).
pub(crate) fn pypi_unreachable(errors: &str) -> bool {
    [
        "Failed to establish a new connection",
        "Temporary failure in name resolution",
        "Name or service not known",
        "Network is unreachable",
        "Connection refused",
        "ConnectTimeoutError",
        "ProxyError",
        "Max retries exceeded",
    ]
    .iter()
    .any(|marker| errors.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report as this program and Cisco's scanner write it (the fields read here, plus some
    /// that are not).
    const REPORT: &str = r#"{"skill_name": "x", "skill_path": "/c/x", "is_safe": false,
        "max_severity": "CRITICAL", "findings_count": 3, "findings": [
          {"rule_id": "SCRIPT_REVERSE_SHELL", "severity": "CRITICAL", "category": "c"},
          {"rule_id": "INSTR_OVERRIDE", "severity": "HIGH"},
          {"rule_id": "SCRIPT_REVERSE_SHELL", "severity": "CRITICAL"},
          {"rule_id": "MANIFEST_MISSING_LICENSE", "severity": "INFO"}],
        "scan_duration_seconds": 0.1}"#;

    fn scanned(worst: Severity, flagged_by: &[&str]) -> Outcome {
        Outcome::Scanned {
            worst,
            flagged_by: flagged_by.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn reads_our_reports_and_exit_status() {
        let flagged = scanned(
            Severity::Critical,
            &["INSTR_OVERRIDE", "SCRIPT_REVERSE_SHELL"],
        );
        assert_eq!(
            read_ours(Some(1), REPORT.as_bytes(), b""),
            (flagged.clone(), true)
        );
        // Exit 0 with a critical report: the outcome stands, the disagreement is reported.
        assert_eq!(read_ours(Some(0), REPORT.as_bytes(), b""), (flagged, false));
        let clean = r#"{"max_severity": "SAFE", "findings_count": 0, "findings": []}"#;
        let (outcome, agrees) = read_ours(Some(0), clean.as_bytes(), b"");
        assert!(agrees && !outcome.flagged());
        assert_eq!(outcome.worst(), Some(Severity::Safe));
        let (outcome, agrees) = read_ours(
            Some(2),
            b"",
            b"error: no SKILL.md in /s\nhint: name a skill folder\n\n",
        );
        assert!(agrees);
        assert_eq!(
            outcome,
            Outcome::NotScanned("exit status 2: error: no SKILL.md in /s".to_owned())
        );
        assert!(!outcome.flagged());
        let (outcome, agrees) = read_ours(Some(1), b"not json", b"");
        assert!(!agrees && matches!(outcome, Outcome::NotScanned(_)));
        assert!(matches!(
            read_ours(Some(101), b"", b"thread main panicked").0,
            Outcome::NotScanned(reason) if reason.contains("panicked")
        ));
    }

    #[test]
    fn reads_cisco_reports_and_errors() {
        assert!(read_cisco(Some(0), REPORT.as_bytes(), b"").flagged());
        let medium =
            r#"{"max_severity": "MEDIUM", "findings": [{"rule_id": "A", "severity": "MEDIUM"}]}"#;
        assert_eq!(
            read_cisco(Some(0), medium.as_bytes(), b""),
            scanned(Severity::Medium, &[])
        );
        let refused = read_cisco(Some(1), b"", b"Error: SKILL.md not found in /s\n");
        assert!(matches!(refused, Outcome::NotScanned(ref reason) if reason.contains("SKILL.md")));
        let on_stdout = read_cisco(Some(1), b"Error loading skill: No SKILL.md in /s", b"");
        assert!(
            matches!(on_stdout, Outcome::NotScanned(ref reason) if reason.contains("No SKILL.md"))
        );
        assert!(matches!(
            read_cisco(
                Some(0),
                br#"{"max_severity": "SEVERE", "findings": []}"#,
                b""
            ),
            Outcome::NotScanned(_)
        ));
    }

    #[test]
    fn reads_batches_by_path() {
        let batch = format!(
            r#"{{"summary": {{"total_skills_scanned": 2}}, "results": [{REPORT},
            {{"skill_path": "/c/y", "max_severity": "LOW", "findings": []}}]}}"#
        );
        let read = read_batch(batch.as_bytes()).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].0, Path::new("/c/x"));
        assert!(read[0].1.flagged());
        assert_eq!(
            read[1],
            (PathBuf::from("/c/y"), scanned(Severity::Low, &[]))
        );
        assert!(read_batch(br#"{"summary": {}}"#).is_err());
        assert!(read_batch(br#"{"results": [{"max_severity": "LOW", "findings": []}]}"#).is_err());
    }

    #[test]
    fn reads_skillfortify_results() {
        let two = r#"[
          {"skill_name": "a", "is_safe": true, "findings_count": 0, "max_severity": null, "findings": []},
          {"skill_name": "b", "is_safe": false, "findings_count": 2, "max_severity": "HIGH",
           "findings": [
             {"severity": "HIGH", "finding_type": "pattern_match", "attack_type": "A3"},
             {"severity": "MEDIUM", "finding_type": "info_flow", "attack_type": null}]}]"#;
        assert_eq!(
            read_fortify(Some(1), two.as_bytes(), b""),
            scanned(Severity::High, &["pattern_match:A3"])
        );
        assert_eq!(fortify_count(two.as_bytes()), Some(2));
        let clean = r#"[{"skill_name": "a", "max_severity": null, "findings": []}]"#;
        assert_eq!(
            read_fortify(Some(0), clean.as_bytes(), b""),
            scanned(Severity::Safe, &[])
        );
        let none = br#"{"skills": [], "summary": "No skills found"}"#;
        assert!(matches!(
            read_fortify(Some(2), none, b""),
            Outcome::NotScanned(reason) if reason.contains("no skill")
        ));
        assert_eq!(fortify_count(none), None);
        assert!(matches!(
            read_fortify(Some(1), b"Traceback", b"KeyError: 'x'"),
            Outcome::NotScanned(reason) if reason.contains("KeyError")
        ));
    }

    #[test]
    fn tells_an_unreachable_index_from_a_broken_install() {
        assert!(pypi_unreachable(
            "WARNING: Retrying ... NewConnectionError('<pip._vendor...>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')"
        ));
        assert!(!pypi_unreachable(
            "ERROR: No matching distribution found for skillfortify==9.9.9"
        ));
    }

    #[test]
    fn peers_run_cut_off_with_a_cleared_environment() {
        let sandbox = Sandbox {
            isolation: &["--user", "--map-root-user", "--net"],
            home: PathBuf::from("/t/home"),
        };
        let command = sandbox.command(
            Path::new("/t/venv/bin/skill-scanner"),
            ["scan", "/s/x", "--format", "json"],
        );
        assert_eq!(command.get_program(), "unshare");
        let args: Vec<_> = command
            .get_args()
            .map(|arg| arg.to_string_lossy())
            .collect();
        assert_eq!(
            args,
            [
                "--user",
                "--map-root-user",
                "--net",
                "/t/venv/bin/skill-scanner",
                "scan",
                "/s/x",
                "--format",
                "json"
            ]
        );
        let env = |key: &str| {
            command
                .get_envs()
                .find(|(name, _)| *name == key)
                .and_then(|(_, value)| value)
                .map(|value| value.to_string_lossy().into_owned())
        };
        assert_eq!(env("HOME").as_deref(), Some("/t/home"));
        assert!(env("PATH").is_some_and(|path| path.starts_with("/t/venv/bin:")));
        assert_eq!(sandbox.describe(), "unshare --user --map-root-user --net");
    }
}
