//! The runtime end to end: real `sh`, `python3` and `node` children, skills written into a
//! temporary home, and the logs, outcomes and file system they leave behind.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

use skills_types::SkillsConfig;
use skills_types::config::{Permission, PermissionRule, TrustPolicy};
use skills_types::run::{
    InlineLanguage, LogRecord, MAX_STREAM_BYTES, RunHooks, RunNotice, RunRequest, RunSink,
    RunStatus, RunTarget, RuntimeKind, RuntimeSource, Stream,
};

use super::Runtime;

/// A home, a workspace, a configuration over them (no cache, no sandbox, `PATH` and `HOME`
/// inherited plus a secret that must never reach a child) and a runtime: shared with the
/// tools' tests.
pub(crate) struct Fixture {
    pub(crate) home: tempfile::TempDir,
    pub(crate) workspace: tempfile::TempDir,
    pub(crate) config: SkillsConfig,
    pub(crate) runtime: Runtime,
}

pub(crate) fn fixture() -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut config = SkillsConfig::new(workspace.path(), home.path());
    config.cache = false;
    // This test binary is no sandbox helper (it never calls `sandbox_main`): the process
    // policy is tested unsandboxed here, the sandbox through the built binaries
    // (tests/it/runtime/sandbox.rs) and in `sandbox`'s own tests.
    config.runtime.sandbox = skills_types::runtime::SandboxMode::Off;
    config.runtime.inherited_env = std::env::vars()
        .filter(|(name, _)| name == "PATH" || name == "HOME")
        .chain([("SECRET_TOKEN".to_owned(), "hunter2".to_owned())])
        .collect();
    Fixture {
        home,
        workspace,
        config,
        runtime: Runtime::new(),
    }
}

impl Fixture {
    /// A user skill `name` with `files` (relative path, text).
    pub(crate) fn skill(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.home.path().join(".openhuman/skills").join(name);
        write_skill(&dir, name, files);
        dir
    }

    fn runs_dir(&self) -> PathBuf {
        self.home.path().join(".openhuman/runs")
    }

    /// The files of the runs folder.
    pub(crate) fn run_files(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.runs_dir())
            .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
            .unwrap_or_default()
    }

    fn run(
        &self,
        request: &RunRequest,
    ) -> Result<skills_types::run::RunOutcome, skills_types::Error> {
        self.runtime
            .run(&self.config, request, &RunHooks::default())
    }

    fn records(&self, run_id: &str) -> Vec<LogRecord> {
        let text =
            std::fs::read_to_string(self.runs_dir().join(format!("{run_id}.jsonl"))).unwrap();
        text.lines()
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}"))
            })
            .collect()
    }

    fn spawned_pid(&self, run_id: &str) -> Option<u32> {
        self.records(run_id)
            .into_iter()
            .find_map(|record| match record {
                LogRecord::Spawned { pid, .. } => Some(pid),
                _ => None,
            })
    }
}

/// A `start` record as the runtime writes it, recorded by process `recorder_pid`.
fn start_line(run_id: &str, recorder_pid: u32) -> String {
    let record = LogRecord::Start {
        run_id: run_id.to_owned(),
        skill: "mixed".into(),
        skill_dir: "/x".into(),
        target: "script ok.sh".into(),
        args: Vec::new(),
        input_names: Vec::new(),
        interpreter: "/bin/sh".into(),
        interpreter_version: None,
        sandbox: skills_types::runtime::SandboxMode::Off,
        network: skills_types::runtime::NetworkMode::Allow,
        timeout_secs: None,
        started_at: "2026-01-01T00:00:00.000Z".into(),
        recorder_pid,
    };
    format!("{}\n", serde_json::to_string(&record).unwrap())
}

fn write_skill(dir: &Path, name: &str, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: A test skill.\n---\nRun its scripts.\n"),
    )
    .unwrap();
    for (path, text) in files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
}

fn script(skill: &str, path: &str) -> RunRequest {
    RunRequest::new(skill, RunTarget::Script { path: path.into() })
}

fn inline(skill: &str, language: InlineLanguage, code: &str) -> RunRequest {
    RunRequest::new(
        skill,
        RunTarget::Inline {
            language,
            code: code.into(),
        },
    )
}

/// A sink that forwards notices to a channel.
fn notices() -> (RunHooks, mpsc::Receiver<RunNotice>) {
    let (sender, receiver) = mpsc::channel();
    let sender = Mutex::new(sender);
    let sink: RunSink = Arc::new(move |notice: &RunNotice| {
        sender.lock().unwrap().send(notice.clone()).ok();
    });
    (
        RunHooks {
            notices: Some(sink),
            events: None,
        },
        receiver,
    )
}

/// Waits for an output notice containing `text`.
fn wait_for_output(receiver: &mpsc::Receiver<RunNotice>, text: &str) {
    let mut seen = String::new();
    while !seen.contains(text) {
        match receiver.recv_timeout(Duration::from_secs(20)).unwrap() {
            RunNotice::Output { text, .. } => seen.push_str(&text),
            other => panic!("the run ended before printing {text}: {other:?}"),
        }
    }
}

#[test]
fn a_script_runs_with_argv_cwd_and_the_skill_variables() {
    let fx = fixture();
    let dir = fx.skill(
        "hello",
        &[(
            "scripts/hello.sh",
            "printf '%s|%s|%s|%s\\n' \"$1\" \"$(pwd)\" \"$SKILL_NAME\" \"$SKILL_DIR\"\necho \"$SKILL_RUN_ID\" >&2\n",
        )],
    );
    let outcome = fx
        .run(&script("hello", "scripts/hello.sh").with_args(["world"]))
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let workspace = std::fs::canonicalize(fx.workspace.path()).unwrap();
    assert_eq!(
        outcome.stdout,
        format!("world|{}|hello|{}\n", workspace.display(), dir.display())
    );
    assert_eq!(outcome.stderr.trim(), outcome.run_id);
    assert_eq!(outcome.exit_code, Some(0));
    assert!(outcome.note.is_none());
    assert_eq!(
        uuid::Uuid::parse_str(&outcome.run_id)
            .unwrap()
            .get_version_num(),
        7
    );
}

#[test]
fn a_secret_of_the_parent_is_absent_unless_pass_env_names_it() {
    let mut fx = fixture();
    fx.skill("env", &[("scripts/env.py", "import os\nprint(sorted(os.environ))\nprint(os.environ.get('SECRET_TOKEN', 'absent'))\n")]);
    let outcome = fx.run(&script("env", "scripts/env.py")).unwrap();
    assert_eq!(outcome.status, RunStatus::Succeeded, "{}", outcome.stderr);
    assert!(outcome.stdout.ends_with("absent\n"), "{}", outcome.stdout);
    assert!(!outcome.stdout.contains("hunter2"));
    for name in ["PATH", "SKILL_DIR", "SKILL_NAME", "SKILL_RUN_ID"] {
        assert!(
            outcome.stdout.contains(&format!("'{name}'")),
            "{name}: {}",
            outcome.stdout
        );
    }
    fx.config.runtime.pass_env = vec!["SECRET_TOKEN".into()];
    let outcome = fx.run(&script("env", "scripts/env.py")).unwrap();
    assert!(outcome.stdout.ends_with("hunter2\n"), "{}", outcome.stdout);
}

#[test]
fn hostile_arguments_arrive_literally_and_create_nothing() {
    let fx = fixture();
    fx.skill(
        "args",
        &[(
            "scripts/args.sh",
            "for a in \"$@\"; do printf '%s\\n' \"$a\"; done\n",
        )],
    );
    let hostile = ["; touch x", "$(touch y)", "`touch z`", "*", "a b", "'\""];
    let outcome = fx
        .run(&script("args", "scripts/args.sh").with_args(hostile))
        .unwrap();
    let lines: Vec<&str> = outcome.stdout.lines().collect();
    assert_eq!(lines, hostile);
    for name in ["x", "y", "z"] {
        assert!(!fx.workspace.path().join(name).exists());
    }
    assert_eq!(std::fs::read_dir(fx.workspace.path()).unwrap().count(), 0);
}

#[test]
fn exit_status_and_printed_nothing_are_reported() {
    let fx = fixture();
    fx.skill(
        "exits",
        &[
            ("scripts/fail.sh", "echo oops >&2\nexit 7\n"),
            ("scripts/quiet.js", "process.exitCode = 0;\n"),
        ],
    );
    let failed = fx.run(&script("exits", "scripts/fail.sh")).unwrap();
    assert_eq!(failed.status, RunStatus::Failed);
    assert_eq!(failed.exit_code, Some(7));
    assert_eq!(failed.exit_status(), 7);
    assert_eq!(failed.stderr, "oops\n");
    let quiet = fx.run(&script("exits", "scripts/quiet.js")).unwrap();
    assert_eq!(quiet.status, RunStatus::Succeeded, "{}", quiet.stderr);
    assert_eq!(
        quiet.note.as_deref(),
        Some(skills_types::run::PRINTED_NOTHING)
    );
}

#[test]
fn twenty_mebibytes_keep_one_and_count_all() {
    let fx = fixture();
    fx.skill(
        "loud",
        &[(
            "scripts/loud.py",
            "import sys\nblock = 'x' * 65536\nfor _ in range(320):\n    sys.stdout.write(block)\nsys.stderr.write('done')\n",
        )],
    );
    let outcome = fx.run(&script("loud", "scripts/loud.py")).unwrap();
    let total = 20 * 1024 * 1024;
    assert_eq!(outcome.stdout_bytes, total as u64);
    assert!(outcome.truncated);
    let marker = format!(
        "[stdout truncated at 1 MiB: {} bytes not kept]",
        total - MAX_STREAM_BYTES
    );
    assert!(
        outcome.stdout.ends_with(&marker),
        "{}",
        &outcome.stdout[outcome.stdout.len() - 80..]
    );
    assert_eq!(outcome.stdout.len(), MAX_STREAM_BYTES + 1 + marker.len());
    assert_eq!(outcome.stderr, "done");
    let records = fx.records(&outcome.run_id);
    let logged: usize = records
        .iter()
        .map(|record| match record {
            LogRecord::Output {
                stream: Stream::Stdout,
                text,
            } => text.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(logged, MAX_STREAM_BYTES);
    let truncated = records
        .iter()
        .filter(|record| {
            matches!(
                record,
                LogRecord::Truncated {
                    stream: Stream::Stdout
                }
            )
        })
        .count();
    assert_eq!(truncated, 1);
}

/// The `/proc/PID/stat` lines of the processes in group `pgid`, for failure messages.
fn group_members(pgid: u32) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| {
                    rest.split_whitespace()
                        .nth(2)
                        .map(|group| group == pgid.to_string())
                })
                .unwrap_or(false)
        })
        .collect()
}

/// The members of group `pgid` that are not dead. A killed process closes its pipes (which
/// ends the run) a moment before it is a zombie, so this looks again for up to 2 s.
fn live_members(pgid: u32) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let alive: Vec<String> = group_members(pgid)
            .into_iter()
            .filter(|stat| crate::pid::parse_start_time(stat).is_some())
            .collect();
        if alive.is_empty() || Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_deadline_stops_the_whole_group_even_a_grandchild_ignoring_term() {
    let fx = fixture();
    fx.skill(
        "stubborn",
        &[(
            "scripts/stubborn.sh",
            "sh -c 'trap \"\" TERM; echo $$ > grandchild.pid; sleep 60' &\nsleep 60\n",
        )],
    );
    let started = Instant::now();
    let outcome = fx
        .run(&script("stubborn", "scripts/stubborn.sh").with_timeout_secs(Some(2)))
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(outcome.status, RunStatus::TimedOut);
    assert!(outcome.timed_out);
    assert_eq!(outcome.exit_status(), 124);
    let pid = fx.spawned_pid(&outcome.run_id).unwrap();
    // Killed members the init process has not reaped yet are zombies: dead, not running.
    let alive = live_members(pid);
    assert!(
        alive.is_empty(),
        "processes of the group are left: {alive:?}"
    );
    let grandchild: u32 = std::fs::read_to_string(fx.workspace.path().join("grandchild.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        crate::pid::start_time(grandchild).is_none(),
        "the grandchild is alive"
    );
}

#[test]
fn a_background_job_holding_the_pipes_does_not_keep_a_finished_run_alive() {
    let fx = fixture();
    fx.skill(
        "leaves",
        &[("scripts/leaves.sh", "sleep 60 &\necho done\n")],
    );
    let started = Instant::now();
    let outcome = fx.run(&script("leaves", "scripts/leaves.sh")).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(outcome.stdout, "done\n");
    let pid = fx.spawned_pid(&outcome.run_id).unwrap();
    let alive = live_members(pid);
    assert!(alive.is_empty(), "the background job is left: {alive:?}");
}

#[test]
fn a_cancel_mid_run_stops_it_and_a_second_cancel_is_false() {
    let fx = fixture();
    fx.skill("slow", &[("scripts/slow.sh", "echo ready\nsleep 60\n")]);
    let (hooks, receiver) = notices();
    let started = fx
        .runtime
        .start(&fx.config, &script("slow", "scripts/slow.sh"), &hooks)
        .unwrap();
    let run_id = started.run_id.clone();
    wait_for_output(&receiver, "ready");
    let listed = fx.runtime.recent_runs(&fx.config, 10).unwrap();
    assert_eq!(listed[0].status, RunStatus::Running);
    assert!(fx.runtime.cancel(&fx.config, &run_id).unwrap());
    let outcome = started.wait().unwrap();
    assert_eq!(outcome.status, RunStatus::Cancelled);
    assert_eq!(outcome.exit_status(), 130);
    assert!(!fx.runtime.cancel(&fx.config, &run_id).unwrap());
    let finished = receiver
        .iter()
        .find_map(|notice| match notice {
            RunNotice::Finished { status, .. } => Some(status),
            _ => None,
        })
        .unwrap();
    assert_eq!(finished, RunStatus::Cancelled);
    let listed = fx.runtime.recent_runs(&fx.config, 10).unwrap();
    assert_eq!(listed[0].status, RunStatus::Cancelled);
    assert!(!fx.runs_dir().join(format!("{run_id}.cancel")).exists());
}

#[test]
fn a_cancel_from_another_runtime_goes_through_the_log() {
    let fx = fixture();
    fx.skill("slow", &[("scripts/slow.sh", "echo ready\nsleep 60\n")]);
    let (hooks, receiver) = notices();
    let started = fx
        .runtime
        .start(&fx.config, &script("slow", "scripts/slow.sh"), &hooks)
        .unwrap();
    wait_for_output(&receiver, "ready");
    // A second runtime holds no registry entry for the run: what `skills cancel RUN` in
    // another process does.
    let other = Runtime::new();
    assert!(other.cancel(&fx.config, &started.run_id).unwrap());
    let outcome = started.wait().unwrap();
    assert_eq!(outcome.status, RunStatus::Cancelled);
    assert_eq!(outcome.exit_status(), 130);
    assert!(!other.cancel(&fx.config, &outcome.run_id).unwrap());
    assert!(
        !fx.runs_dir()
            .join(format!("{}.cancel", outcome.run_id))
            .exists()
    );
}

#[test]
fn a_recycled_pid_is_never_signalled() {
    let fx = fixture();
    // A log whose child has this test's own pid but another start time: a pid reused.
    let run_id = uuid::Uuid::now_v7().hyphenated().to_string();
    std::fs::create_dir_all(fx.runs_dir()).unwrap();
    let me = std::process::id();
    let own_start = crate::pid::start_time(me).unwrap();
    let spawned = LogRecord::Spawned {
        pid: me,
        start_time: own_start + 1,
    };
    let text = format!(
        "{}{}\n",
        start_line(&run_id, me),
        serde_json::to_string(&spawned).unwrap()
    );
    std::fs::write(fx.runs_dir().join(format!("{run_id}.jsonl")), text).unwrap();
    // Its recorder (this process) is alive, so the run reads as running ...
    assert_eq!(
        fx.runtime.recent_runs(&fx.config, 1).unwrap()[0].status,
        RunStatus::Running
    );
    // ... but the pid's start time is not the recorded one: no marker, no signal.
    assert!(!fx.runtime.cancel(&fx.config, &run_id).unwrap());
    assert!(!fx.runs_dir().join(format!("{run_id}.cancel")).exists());
}

#[test]
fn a_cancel_before_spawn_prevents_the_spawn() {
    let fx = fixture();
    fx.skill("touch", &[("scripts/touch.sh", "touch ran\n")]);
    let hold = Arc::new((Mutex::new(true), Condvar::new()));
    *fx.runtime.inner.hold_before_spawn.lock().unwrap() = Some(Arc::clone(&hold));
    let started = fx
        .runtime
        .start(
            &fx.config,
            &script("touch", "scripts/touch.sh"),
            &RunHooks::default(),
        )
        .unwrap();
    assert!(fx.runtime.cancel(&fx.config, &started.run_id).unwrap());
    *hold.0.lock().unwrap() = false;
    hold.1.notify_all();
    let outcome = started.wait().unwrap();
    assert_eq!(outcome.status, RunStatus::Cancelled);
    assert!(!fx.workspace.path().join("ran").exists());
    let records = fx.records(&outcome.run_id);
    assert!(
        !records
            .iter()
            .any(|record| matches!(record, LogRecord::Spawned { .. }))
    );
    assert!(matches!(
        records.last(),
        Some(LogRecord::End {
            status: RunStatus::Cancelled,
            ..
        })
    ));
}

#[test]
fn every_refused_path_is_refused_before_anything_runs_or_is_logged() {
    let fx = fixture();
    let dir = fx.skill(
        "paths",
        &[
            ("scripts/ok.sh", "touch ran\n"),
            (".hidden/x.sh", "touch ran\n"),
            ("real/inner.sh", "touch ran\n"),
        ],
    );
    let outside = fx.home.path().join("outside.sh");
    std::fs::write(&outside, "touch ran\n").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("scripts/link.sh")).unwrap();
    std::os::unix::fs::symlink(dir.join("real"), dir.join("linked")).unwrap();
    std::fs::create_dir_all(dir.join("scripts/folder.sh")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(dir.join("scripts/fifo.sh"))
        .status()
        .unwrap();
    assert!(fifo.success());
    for (path, refusal) in [
        ("../paths/scripts/ok.sh", "invalid_path"),
        ("scripts/../scripts/ok.sh", "invalid_path"),
        (outside.to_str().unwrap(), "invalid_path"),
        (".hidden/x.sh", "invalid_path"),
        ("scripts/link.sh", "symlink"),
        ("linked/inner.sh", "symlink"),
        ("scripts/folder.sh", "not_a_file"),
        ("scripts/fifo.sh", "not_a_file"),
        ("scripts/missing.sh", "not_found"),
    ] {
        let error = fx.run(&script("paths", path)).unwrap_err();
        match &error {
            skills_types::Error::PathRefused { refusal: got, .. } => {
                assert_eq!(*got, refusal, "{path}: {error}");
            }
            other => panic!("{path}: {other}"),
        }
    }
    assert!(fx.run_files().is_empty(), "{:?}", fx.run_files());
    assert!(!fx.workspace.path().join("ran").exists());
}

#[test]
fn unknown_extensions_entries_and_missing_skills_are_clear_errors() {
    let fx = fixture();
    fx.skill(
        "hello",
        &[
            ("scripts/x.rb", "puts 1\n"),
            ("scripts/a.ts", "console.log(1)\n"),
        ],
    );
    let error = fx.run(&script("hello", "scripts/x.rb")).unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    assert!(error.to_string().contains("[interpreters]"), "{error}");
    let error = fx
        .run(&RunRequest::new("hello", RunTarget::Entry))
        .unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    assert!(error.to_string().contains("script path"), "{error}");
    match fx.run(&script("helo", "scripts/x.rb")).unwrap_err() {
        skills_types::Error::SkillNotFound { suggestion, .. } => {
            assert_eq!(suggestion.as_deref(), Some("hello"));
        }
        other => panic!("{other}"),
    }
    // `.ts` runs only with a node that strips types.
    let node = fx
        .runtime
        .resolve_runtimes(&fx.config, Some(RuntimeKind::Node));
    let strips = node[0]
        .version
        .as_deref()
        .and_then(crate::runtimes::parse_version)
        .is_some_and(|version| version >= crate::runtimes::NODE_STRIPS_TYPES);
    let ts = fx.run(&script("hello", "scripts/a.ts"));
    if strips {
        assert_eq!(ts.unwrap().stdout, "1\n");
    } else {
        let error = ts.unwrap_err();
        assert_eq!(error.kind(), "runtime_unavailable");
        assert!(error.to_string().contains("strips types"), "{error}");
    }
    assert!(fx.run_files().is_empty());
}

#[test]
fn a_missing_interpreter_is_runtime_unavailable() {
    let mut fx = fixture();
    fx.skill("py", &[("scripts/a.py", "print(1)\n")]);
    fx.config.runtime.python = Some(fx.home.path().join("no-such-python"));
    let error = fx.run(&script("py", "scripts/a.py")).unwrap_err();
    assert_eq!(error.kind(), "runtime_unavailable");
    assert!(error.to_string().contains("no-such-python"), "{error}");
    assert!(fx.run_files().is_empty());
}

#[test]
fn inline_code_needs_the_home_configuration() {
    let fx = fixture();
    fx.skill("hello", &[]);
    let error = fx
        .run(&inline("hello", InlineLanguage::Sh, "echo hi"))
        .unwrap_err();
    assert_eq!(error.kind(), "forbidden");
    assert!(error.to_string().contains("allow_inline = true"), "{error}");
    assert!(fx.run_files().is_empty());
    std::fs::write(
        fx.home.path().join(".openhuman/skills.toml"),
        "[runtime]\nallow_inline = true\n",
    )
    .unwrap();
    let fresh = Runtime::new();
    for (language, code, expected) in [
        (InlineLanguage::Sh, "echo \"sh $1\"", "sh a\n"),
        (
            InlineLanguage::Python,
            "import sys; print('py', sys.argv[1])",
            "py a\n",
        ),
        (
            InlineLanguage::Node,
            "console.log('node', process.argv[1])",
            "node a\n",
        ),
    ] {
        let outcome = fresh
            .run(
                &fx.config,
                &inline("hello", language, code).with_args(["a"]),
                &RunHooks::default(),
            )
            .unwrap();
        assert_eq!(outcome.stdout, expected, "{language:?}: {}", outcome.stderr);
    }
}

#[test]
fn ask_and_project_skills_need_confirmation() {
    let mut fx = fixture();
    fx.skill("asked", &[("run.sh", "echo asked\n")]);
    fx.config.permissions = vec![PermissionRule {
        pattern: "asked".into(),
        permission: Permission::Ask,
    }];
    let error = fx.run(&script("asked", "run.sh")).unwrap_err();
    assert_eq!(error.kind(), "needs_confirmation");
    assert!(fx.run_files().is_empty());
    assert_eq!(
        fx.run(&script("asked", "run.sh").confirmed(true))
            .unwrap()
            .stdout,
        "asked\n"
    );

    fx.config.trust = TrustPolicy::Always;
    write_skill(
        &fx.workspace.path().join(".openhuman/skills/project"),
        "project",
        &[("run.sh", "echo project\n")],
    );
    fx.config.runtime.confirm = skills_types::runtime::ConfirmMode::Never;
    let error = fx.run(&script("project", "run.sh")).unwrap_err();
    assert_eq!(error.kind(), "needs_confirmation");
    assert!(error.to_string().contains("workspace"), "{error}");
    assert_eq!(
        fx.run(&script("project", "run.sh").confirmed(true))
            .unwrap()
            .stdout,
        "project\n"
    );
    // `never` drops it for `ask` skills only.
    assert_eq!(
        fx.run(&script("asked", "run.sh")).unwrap().stdout,
        "asked\n"
    );
    fx.config.runtime.confirm = skills_types::runtime::ConfirmMode::Always;
    fx.config.permissions.clear();
    assert_eq!(
        fx.run(&script("asked", "run.sh")).unwrap_err().kind(),
        "needs_confirmation"
    );
}

#[test]
fn denied_disabled_and_read_only_are_refused() {
    let mut fx = fixture();
    fx.skill("hello", &[("run.sh", "touch ran\n")]);
    fx.config.permissions = vec![PermissionRule {
        pattern: "hel*".into(),
        permission: Permission::Deny,
    }];
    assert_eq!(
        fx.run(&script("hello", "run.sh")).unwrap_err().kind(),
        "denied"
    );
    fx.config.permissions.clear();
    fx.config.disabled = vec!["hello".into()];
    assert_eq!(
        fx.run(&script("hello", "run.sh")).unwrap_err().kind(),
        "skill_disabled"
    );
    fx.config.disabled.clear();
    fx.config.read_only = true;
    assert_eq!(
        fx.run(&script("hello", "run.sh")).unwrap_err().kind(),
        "read_only"
    );
    assert!(fx.run_files().is_empty());
    assert!(!fx.workspace.path().join("ran").exists());
}

#[test]
fn beyond_the_limits_is_busy_and_nothing_is_registered() {
    let mut fx = fixture();
    fx.skill(
        "slow",
        &[
            ("scripts/slow.sh", "echo ready\nsleep 60\n"),
            ("scripts/quick.sh", "echo hi\n"),
        ],
    );
    fx.config.runtime.max_concurrent_runs = 1;
    let (hooks, receiver) = notices();
    let first = fx
        .runtime
        .start(&fx.config, &script("slow", "scripts/slow.sh"), &hooks)
        .unwrap();
    wait_for_output(&receiver, "ready");
    let error = fx.run(&script("slow", "scripts/quick.sh")).unwrap_err();
    assert_eq!(error.kind(), "busy");
    assert_eq!(fx.run_files().len(), 1);
    assert!(fx.runtime.cancel(&fx.config, &first.run_id).unwrap());
    first.wait().unwrap();

    let mut fx = fixture();
    fx.skill("quick", &[("scripts/quick.sh", "echo hi\n")]);
    fx.config.runtime.max_runs_per_minute = 1;
    fx.run(&script("quick", "scripts/quick.sh")).unwrap();
    let error = fx.run(&script("quick", "scripts/quick.sh")).unwrap_err();
    assert_eq!(error.kind(), "busy");
    assert!(error.to_string().contains("max_runs_per_minute"), "{error}");
    assert_eq!(fx.run_files().len(), 1);
}

#[test]
fn the_log_holds_our_records_only_and_output_that_looks_like_one() {
    let fx = fixture();
    fx.skill(
        "forger",
        &[(
            "scripts/forge.sh",
            "echo '{\"record\":\"end\",\"status\":\"succeeded\"}'\necho 'é' >&2\nexit 3\n",
        )],
    );
    let outcome = fx
        .run(&script("forger", "scripts/forge.sh").with_args(["--flag"]))
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Failed);
    let records = fx.records(&outcome.run_id);
    assert!(
        matches!(&records[0], LogRecord::Start { args, input_names, .. } if args == &["--flag"] && input_names.is_empty())
    );
    assert!(matches!(records[1], LogRecord::Spawned { .. }));
    let ends: Vec<_> = records
        .iter()
        .filter(|record| matches!(record, LogRecord::End { .. }))
        .collect();
    assert_eq!(ends.len(), 1);
    assert!(matches!(
        records.last(),
        Some(LogRecord::End {
            status: RunStatus::Failed,
            exit_code: Some(3),
            ..
        })
    ));
    assert!(
        records.iter().any(|record| matches!(record,
        LogRecord::Output { stream: Stream::Stdout, text } if text.contains("\"record\":\"end\"")))
    );
    assert!(records.iter().any(|record| matches!(record,
        LogRecord::Output { stream: Stream::Stderr, text } if text == "é\n")));

    let chunk = fx
        .runtime
        .read_run_log(&fx.config, &outcome.run_id, 0, 1 << 20)
        .unwrap();
    assert!(chunk.finished);
    assert_eq!(chunk.next_offset, chunk.size);
    let mut rebuilt = String::new();
    let mut offset = 0;
    loop {
        let piece = fx
            .runtime
            .read_run_log(&fx.config, &outcome.run_id, offset, 7)
            .unwrap();
        if piece.text.is_empty() {
            break;
        }
        rebuilt.push_str(&piece.text);
        offset = piece.next_offset;
    }
    assert_eq!(rebuilt, chunk.text, "small reads never split a character");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(fx.runs_dir())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}

#[test]
fn path_like_run_ids_are_refused_and_unknown_ones_are_not_found() {
    let fx = fixture();
    for bad in ["../x", "/etc/passwd", "x/y", "..", ""] {
        assert_eq!(
            fx.runtime
                .read_run_log(&fx.config, bad, 0, 10)
                .unwrap_err()
                .kind(),
            "invalid_input",
            "{bad}"
        );
        assert_eq!(
            fx.runtime.cancel(&fx.config, bad).unwrap_err().kind(),
            "invalid_input",
            "{bad}"
        );
    }
    let unknown = "0190b3c2-7d4e-7000-8000-000000000000";
    assert_eq!(
        fx.runtime
            .read_run_log(&fx.config, unknown, 0, 10)
            .unwrap_err()
            .kind(),
        "not_found"
    );
    assert!(!fx.runtime.cancel(&fx.config, unknown).unwrap());
}

#[test]
fn recent_runs_report_each_status_newest_first() {
    let fx = fixture();
    fx.skill("mixed", &[("ok.sh", "echo ok\n"), ("bad.sh", "exit 1\n")]);
    let ok = fx.run(&script("mixed", "ok.sh")).unwrap();
    let bad = fx.run(&script("mixed", "bad.sh")).unwrap();
    // A run whose recorder died: its `start` names a process that has exited.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let interrupted = uuid::Uuid::now_v7().hyphenated().to_string();
    std::fs::write(
        fx.runs_dir().join(format!("{interrupted}.jsonl")),
        start_line(&interrupted, gone_pid),
    )
    .unwrap();
    // A malformed log is passed over, never a panic.
    let malformed = uuid::Uuid::now_v7().hyphenated().to_string();
    std::fs::write(
        fx.runs_dir().join(format!("{malformed}.jsonl")),
        "not json\n{",
    )
    .unwrap();
    std::fs::write(fx.runs_dir().join("stray.jsonl"), "{}").unwrap();

    let runs = fx.runtime.recent_runs(&fx.config, 0).unwrap();
    assert_eq!(runs.len(), 1, "a limit of 0 is clamped to 1");
    let runs = fx.runtime.recent_runs(&fx.config, 1000).unwrap();
    let statuses: Vec<_> = runs
        .iter()
        .map(|run| (run.run_id.as_str(), run.status))
        .collect();
    assert_eq!(
        statuses,
        [
            (interrupted.as_str(), RunStatus::Interrupted),
            (bad.run_id.as_str(), RunStatus::Failed),
            (ok.run_id.as_str(), RunStatus::Succeeded),
        ]
    );
    assert_eq!(runs[1].exit_code, Some(1));
    assert_eq!(runs[2].target, "script ok.sh");
    assert!(
        fx.runtime
            .read_run_log(&fx.config, &interrupted, 0, 100)
            .unwrap()
            .finished
    );
}

#[test]
fn runtimes_are_resolved_with_versions_and_configured_paths_first() {
    let mut fx = fixture();
    let all = fx.runtime.resolve_runtimes(&fx.config, None);
    assert_eq!(all.len(), 4);
    let sh = all
        .iter()
        .find(|info| info.kind == RuntimeKind::Sh)
        .unwrap();
    assert!(sh.usable && sh.version.is_none() && sh.source == Some(RuntimeSource::Path));
    let python = all
        .iter()
        .find(|info| info.kind == RuntimeKind::Python)
        .unwrap();
    assert!(python.usable, "{python:?}");
    assert!(python.version.as_deref().unwrap().starts_with("3."));

    let fake = fx.home.path().join("old-node");
    std::fs::write(&fake, "#!/bin/sh\necho v16.20.0\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    fx.config.runtime.node = Some(fake.clone());
    let fresh = Runtime::new();
    let node = &fresh.resolve_runtimes(&fx.config, Some(RuntimeKind::Node))[0];
    assert_eq!(node.source, Some(RuntimeSource::Config));
    assert_eq!(node.path.as_deref(), Some(fake.as_path()));
    assert_eq!(node.version.as_deref(), Some("16.20.0"));
    assert!(!node.usable);
    assert!(
        node.problem.as_deref().unwrap().contains("18.0"),
        "{node:?}"
    );
    // Cached: the file changing does not change the answer of the same runtime.
    std::fs::write(&fake, "#!/bin/sh\necho v22.0.0\n").unwrap();
    assert_eq!(
        fresh.resolve_runtimes(&fx.config, Some(RuntimeKind::Node))[0]
            .version
            .as_deref(),
        Some("16.20.0")
    );
    fx.skill("js", &[("a.js", "console.log(1)\n")]);
    let error = fresh
        .run(&fx.config, &script("js", "a.js"), &RunHooks::default())
        .unwrap_err();
    assert_eq!(error.kind(), "runtime_unavailable");

    fx.config.runtime.inherited_env.clear();
    let empty = Runtime::new().resolve_runtimes(&fx.config, Some(RuntimeKind::Sh));
    assert!(!empty[0].usable && empty[0].path.is_none());
}

#[test]
fn run_events_are_published() {
    struct Recorder(Mutex<Vec<skills_types::event::DomainEvent>>);
    impl skills_types::event::EventSink for Recorder {
        fn publish(&self, event: skills_types::event::DomainEvent) {
            self.0.lock().unwrap().push(event);
        }
    }
    let fx = fixture();
    fx.skill("hello", &[("run.sh", "echo hi\n")]);
    let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
    let hooks = RunHooks {
        notices: None,
        events: Some(recorder.clone()),
    };
    let outcome = fx
        .runtime
        .run(&fx.config, &script("hello", "run.sh"), &hooks)
        .unwrap();
    let events = recorder.0.lock().unwrap();
    let slugs: Vec<&str> = events.iter().map(|event| event.slug.as_str()).collect();
    assert_eq!(slugs, ["run_started", "run_finished"]);
    assert_eq!(events[0].payload["target"], "script run.sh");
    assert_eq!(events[1].payload["run_id"], outcome.run_id.as_str());
    assert_eq!(events[1].payload["status"], "succeeded");
    assert_eq!(events[1].payload["exit_code"], 0);
}

#[test]
fn a_symlinked_runs_folder_is_refused_and_nothing_is_written_through_it() {
    let fx = fixture();
    fx.skill("hello", &[("run.sh", "touch ran\n")]);
    let elsewhere = fx.home.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(fx.home.path().join(".openhuman")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, fx.runs_dir()).unwrap();
    let error = fx.run(&script("hello", "run.sh")).unwrap_err();
    assert_eq!(error.kind(), "state_file_invalid", "{error}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(!fx.workspace.path().join("ran").exists());
    assert!(fx.runtime.recent_runs(&fx.config, 10).is_err());
}

#[test]
fn entry_interpreters_and_inputs_come_from_the_sidecar() {
    let fx = fixture();
    fx.skill(
        "full",
        &[
            (
                "skill.toml",
                "entry = \"scripts/main.py\"\n\n[interpreters]\ntxt = \"cat\"\nbad = \"/bin/cat\"\n\n\
                 [[inputs]]\nname = \"city\"\nrequired = true\n",
            ),
            (
                "scripts/main.py",
                "import os\nprint(os.environ['SKILL_INPUT_CITY'])\n",
            ),
            ("notes.txt", "read by cat\n"),
            ("x.bad", "nothing\n"),
        ],
    );
    let mut inputs = serde_json::Map::new();
    let missing = fx
        .run(&RunRequest::new("full", RunTarget::Entry))
        .unwrap_err();
    assert_eq!(missing.kind(), "invalid_input");
    assert!(missing.to_string().contains("city"), "{missing}");
    assert!(fx.run_files().is_empty(), "a refused run leaves no log");

    inputs.insert("city".into(), "Zürich-secret".into());
    let outcome = fx
        .run(&RunRequest::new("full", RunTarget::Entry).with_inputs(inputs.clone()))
        .unwrap();
    assert_eq!(outcome.stdout, "Zürich-secret\n", "{}", outcome.stderr);
    let records = fx.records(&outcome.run_id);
    assert!(
        matches!(&records[0], LogRecord::Start { input_names, target, .. }
        if input_names == &["city"] && target == "entry scripts/main.py")
    );
    let start = serde_json::to_string(&records[0]).unwrap();
    assert!(
        !start.contains("Zürich-secret"),
        "the log's start holds no input value"
    );

    let cat = fx
        .run(&script("full", "notes.txt").with_inputs(inputs.clone()))
        .unwrap();
    assert_eq!(cat.stdout, "read by cat\n");
    let error = fx
        .run(&script("full", "x.bad").with_inputs(inputs))
        .unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    assert!(error.to_string().contains("`interpreters.bad`"), "{error}");
}

#[test]
fn a_process_that_cannot_start_still_finishes_its_run() {
    let mut fx = fixture();
    // An executable that is no program (no `#!`, not ELF): exec fails, spawn reports it.
    let bin = fx.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let broken = bin.join("brokeninterp");
    std::fs::write(&broken, [0u8, 1, 2, 3]).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        fx.config.runtime.inherited("PATH").unwrap()
    );
    fx.config.runtime.inherited_env.push(("PATH".into(), path));
    fx.skill(
        "broken",
        &[
            ("skill.toml", "[interpreters]\ntxt = \"brokeninterp\"\n"),
            ("a.txt", "x\n"),
        ],
    );
    let (hooks, receiver) = notices();
    let error = fx
        .runtime
        .run(&fx.config, &script("broken", "a.txt"), &hooks)
        .unwrap_err();
    assert_eq!(error.kind(), "io", "{error}");
    let finished = receiver.try_iter().find_map(|notice| match notice {
        RunNotice::Finished { status, .. } => Some(status),
        _ => None,
    });
    assert_eq!(finished, Some(RunStatus::Failed));
    let runs = fx.runtime.recent_runs(&fx.config, 10).unwrap();
    assert_eq!(runs[0].status, RunStatus::Failed);
    // The limits are free again.
    assert!(fx.runtime.inner.registry.lock().unwrap().runs.is_empty());
}

#[test]
fn a_host_that_never_called_sandbox_main_is_refused_before_anything_is_logged() {
    // This test binary is such a host: no `sandbox_main`, no `sandbox_helper`. Whatever the
    // kernel, the default sandbox cannot be applied here, so the run is refused, not run
    // unconfined.
    let mut fx = fixture();
    fx.config.runtime.sandbox = skills_types::runtime::SandboxMode::WorkspaceWrite;
    fx.skill("mark", &[("scripts/mark.sh", "echo ran > ran\n")]);
    let error = fx.run(&script("mark", "scripts/mark.sh")).unwrap_err();
    assert_eq!(error.kind(), "sandbox_unavailable", "{error}");
    assert!(fx.run_files().is_empty(), "a refused run was logged");
    assert!(!fx.workspace.path().join("ran").exists());
}
