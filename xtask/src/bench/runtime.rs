//! The runtime row of `cargo xtask bench` (issue 13 §Acceptance): `skills run` of a trivial
//! Python script against `python3` running the same file directly, side by side, with the
//! binary's own start time beside them, so the target — `skills run` within 1.15 × the direct
//! run plus that start time — can be read off one table.
//!
//! Three contenders take turns in every repetition (the order rotates): `python3 hello.py`,
//! `skills run bench-run scripts/hello.py` in a home holding that one skill, and
//! `skills --version` (the process start alone: no discovery, no configuration read). A fourth
//! figure, `skills list` of the same home, shows what discovery of a one-skill home adds, and a
//! fifth, `python3 --version`, what the runtime's resolving the interpreter costs (it runs
//! that once per handle, so once per command). A sixth runs the same script in a home that
//! says `[runtime] sandbox = "off"`: the default run is sandboxed (the helper re-executes
//! the binary, applies Landlock and seccomp, then execs python), and the ratio of the two is
//! what the sandbox costs. Each figure is the median; only the ratio within one run means
//! anything on a shared machine.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::report;
use crate::Failure;

/// Repetitions; the median of each contender is reported.
const RUNS: usize = 21;
/// The skill the bench home holds.
const SKILL: &str = "bench-run";
/// Its script: prints one line, the least a useful script does.
const SCRIPT: &str = "scripts/hello.py";
const SCRIPT_TEXT: &str = "print('hello')\n";
/// The target of the issue: `skills run` ≤ this × the direct run, plus the start time.
pub(crate) const TARGET_RATIO: f64 = 1.15;

/// What the runtime row measured.
#[derive(Debug)]
pub(crate) struct RuntimeRun {
    /// The `python3` the bench found (and the runtime resolved: both read the same `PATH`).
    pub(crate) python: String,
    pub(crate) direct: Duration,
    pub(crate) skills_run: Duration,
    pub(crate) start: Duration,
    pub(crate) list: Duration,
    /// `python3 --version`: what resolving the interpreter costs a fresh handle.
    pub(crate) version: Duration,
    /// `skills run` with `sandbox = "off"`.
    pub(crate) unsandboxed: Duration,
}

impl RuntimeRun {
    /// `skills run` over the direct run.
    fn ratio(&self) -> f64 {
        self.skills_run.as_secs_f64() / self.direct.as_secs_f64().max(1e-9)
    }

    /// The sandboxed `skills run` over the unsandboxed one.
    fn sandbox_ratio(&self) -> f64 {
        self.skills_run.as_secs_f64() / self.unsandboxed.as_secs_f64().max(1e-9)
    }

    /// The most `skills run` may take: 1.15 × the direct run, plus the binary's start.
    fn budget(&self) -> Duration {
        self.direct.mul_f64(TARGET_RATIO) + self.start
    }

    /// The rows for the table.
    pub(crate) fn table(&self) -> String {
        let ms = |duration: Duration| duration.as_secs_f64() * 1e3;
        let verdict = if self.skills_run <= self.budget() {
            "within"
        } else {
            "OVER"
        };
        format!(
            "runtime: a trivial Python script ({}; median of {RUNS})\n\
             {:<44} {:>9.1} ms\n\
             {:<44} {:>9.1} ms   {:.2}× the direct run\n\
             {:<44} {:>9.1} ms\n\
             {:<44} {:>9.1} ms\n\
             {:<44} {:>9.1} ms\n\
             {:<44} {:>9.1} ms   sandboxed run {:.2}× this\n\
             target: ≤ {TARGET_RATIO} × direct + start = {:.1} ms: {verdict} the target\n",
            self.python,
            "python3 scripts/hello.py (direct)",
            ms(self.direct),
            "skills run bench-run scripts/hello.py",
            ms(self.skills_run),
            self.ratio(),
            "skills --version (the binary's start)",
            ms(self.start),
            "skills list (start + a one-skill discovery)",
            ms(self.list),
            "python3 --version (resolving the interpreter)",
            ms(self.version),
            "skills run, sandbox = \"off\"",
            ms(self.unsandboxed),
            self.sandbox_ratio(),
            ms(self.budget()),
        )
    }

    /// The figures as a JSON object.
    pub(crate) fn json(&self) -> serde_json::Value {
        let ms = |duration: Duration| duration.as_secs_f64() * 1e3;
        serde_json::json!({
            "python": self.python,
            "direct_ms": ms(self.direct),
            "skills_run_ms": ms(self.skills_run),
            "start_ms": ms(self.start),
            "list_ms": ms(self.list),
            "interpreter_version_ms": ms(self.version),
            "skills_run_unsandboxed_ms": ms(self.unsandboxed),
            "sandbox_ratio": self.sandbox_ratio(),
            "ratio": self.ratio(),
            "target_ratio": TARGET_RATIO,
            "budget_ms": ms(self.budget()),
            "within_target": self.skills_run <= self.budget(),
        })
    }
}

/// Measures the runtime row with the release `skills` at `skills`, in `scratch`.
pub(crate) fn measure(scratch: &Path, skills: &Path) -> Result<RuntimeRun, Failure> {
    let home = scratch.join("runtime-home");
    let workspace = scratch.join("runtime-workspace");
    let skill_dir = home.join(".openhuman/skills").join(SKILL);
    let script = skill_dir.join(SCRIPT);
    for dir in [&workspace, &skill_dir.join("scripts")] {
        fs::create_dir_all(dir).map_err(|error| io_failure(dir, &error))?;
    }
    write(
        &skill_dir.join("SKILL.md"),
        &format!(
            "---\nname: {SKILL}\ndescription: Prints a line, for the runtime bench.\n---\n# {SKILL}\n"
        ),
    )?;
    write(&script, SCRIPT_TEXT)?;
    // The same skill in a home that turns the sandbox off.
    let home_off = scratch.join("runtime-home-off");
    let skill_off = home_off.join(".openhuman/skills").join(SKILL);
    fs::create_dir_all(skill_off.join("scripts"))
        .map_err(|error| io_failure(&skill_off, &error))?;
    for file in ["SKILL.md", SCRIPT] {
        let text = fs::read_to_string(skill_dir.join(file))
            .map_err(|error| io_failure(&skill_dir.join(file), &error))?;
        write(&skill_off.join(file), &text)?;
    }
    write(
        &home_off.join(".openhuman/skills.toml"),
        "[runtime]\nsandbox = \"off\"\n",
    )?;
    let python = which("python3").ok_or_else(|| {
        Failure::new(
            "no python3 on PATH",
            "install Python 3 (the runtime row runs a Python script)",
        )
    })?;
    let cli_in = |home: &Path, args: &[&str]| {
        let mut command = Command::new(skills);
        command
            .arg("--home")
            .arg(home)
            .arg("--workspace")
            .arg(&workspace)
            .args(args);
        command
    };
    let cli = |args: &[&str]| cli_in(&home, args);
    let mut contenders: Vec<(&str, Command, Vec<Duration>)> = vec![
        (
            "direct",
            python_command(&python, &script, &workspace),
            Vec::new(),
        ),
        ("run", cli(&["run", SKILL, SCRIPT]), Vec::new()),
        ("start", cli(&["--version"]), Vec::new()),
        ("list", cli(&["list"]), Vec::new()),
        ("version", version_command(&python, &workspace), Vec::new()),
        (
            "run-off",
            cli_in(&home_off, &["run", SKILL, SCRIPT]),
            Vec::new(),
        ),
    ];
    println!(
        "\n==> runtime: skills run of {SCRIPT} against {} running it",
        python.display()
    );
    // Untimed warm-up, which also checks that each contender works and prints what it should.
    for (name, command, _) in &mut contenders {
        let (_, output) = run(command)?;
        if matches!(*name, "direct" | "run" | "run-off") && output != b"hello\n" {
            return Err(Failure::new(
                format!(
                    "`{name}` printed {:?} instead of the script's line",
                    String::from_utf8_lossy(&output)
                ),
                "run `skills run` by hand in the bench home to see why",
            ));
        }
    }
    let count = contenders.len();
    for repetition in 0..RUNS {
        for turn in 0..count {
            let (_, command, samples) = &mut contenders[(turn + repetition) % count];
            samples.push(run(command)?.0);
        }
        print!(".");
        let _ = std::io::Write::flush(&mut std::io::stdout());
    }
    println!();
    let figure = |index: usize| median(&contenders[index].2);
    Ok(RuntimeRun {
        python: python.display().to_string(),
        direct: figure(0),
        skills_run: figure(1),
        start: figure(2),
        list: figure(3),
        version: figure(4),
        unsandboxed: figure(5),
    })
}

/// `python3 SCRIPT` as the runtime would run it: from the workspace.
fn python_command(python: &Path, script: &Path, workspace: &Path) -> Command {
    let mut command = Command::new(python);
    command.arg(script).current_dir(workspace);
    command
}

/// `python3 --version`, which the runtime runs to resolve the interpreter.
fn version_command(python: &Path, workspace: &Path) -> Command {
    let mut command = Command::new(python);
    command.arg("--version").current_dir(workspace);
    command
}

/// The first `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// Runs `command` to completion with output piped (as a caller reading it would); its wall
/// time and standard output.
fn run(command: &mut Command) -> Result<(Duration, Vec<u8>), Failure> {
    command
        .env_remove("SKILLS_HOME")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    super::timed(
        command,
        "run the command by hand in the bench home to see why",
    )
}

fn median(samples: &[Duration]) -> Duration {
    let nanos: Vec<u64> = samples
        .iter()
        .map(|sample| u64::try_from(sample.as_nanos()).unwrap_or(u64::MAX))
        .collect();
    Duration::from_nanos(report::median(&nanos).unwrap_or(0))
}

fn write(path: &Path, text: &str) -> Result<(), Failure> {
    fs::write(path, text).map_err(|error| io_failure(path, &error))
}

fn io_failure(path: &Path, error: &std::io::Error) -> Failure {
    Failure::new(
        format!("{}: {error}", path.display()),
        "check the temporary directory's permissions and free space",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_the_ratio_of_the_direct_run_plus_the_start() {
        let measured = RuntimeRun {
            python: "python3".to_owned(),
            direct: Duration::from_millis(20),
            skills_run: Duration::from_millis(26),
            start: Duration::from_millis(2),
            list: Duration::from_millis(3),
            version: Duration::from_millis(10),
            unsandboxed: Duration::from_millis(13),
        };
        let budget = measured.budget().as_secs_f64();
        assert!((budget - 0.025).abs() < 1e-6, "{budget}");
        assert!(measured.table().contains("OVER the target"));
        assert_eq!(measured.json()["within_target"], false);
        assert!((measured.sandbox_ratio() - 2.0).abs() < 1e-9);
        assert!(measured.table().contains("sandboxed run 2.00× this"));
        let faster = RuntimeRun {
            skills_run: Duration::from_millis(24),
            ..measured
        };
        assert!(faster.table().contains("within the target"));
        assert!((faster.ratio() - 1.2).abs() < 1e-9);
    }
}
