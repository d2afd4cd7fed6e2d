//! Deadlines and cancel (07 §The process policy, **Time**; §Cancel): the whole process group
//! is stopped, a grandchild that ignores SIGTERM and holds the pipes included, and a cancel
//! from another process ends the run with 130.

use std::time::{Duration, Instant};

use super::{SKILL, lab, leftovers, running_run, spawn, statuses, wait_within};

/// Starts a grandchild that ignores SIGTERM, keeps stdout and stderr open and records its
/// pid, records the script's own pid, then waits for ever.
const STUBBORN: &str = r#"echo "$$" > "$PWD/script.pid"
python3 -c '
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(sys.argv[1], "w").write(str(os.getpid()))
print("grandchild started", flush=True)
while True:
    time.sleep(1)
' "$PWD/grandchild.pid" &
wait
"#;

#[test]
fn a_deadline_stops_the_whole_group_even_a_grandchild_ignoring_term() {
    let (tree, _) = lab(&[("scripts/stubborn.sh", STUBBORN)], None);
    // Built (when it must be) before the clock starts.
    skills_tests::skills_binary();
    let started = Instant::now();
    let child = spawn(
        &tree,
        &["run", SKILL, "scripts/stubborn.sh", "--timeout", "2"],
    );
    // The issue's outer bound: 2 s of deadline and 2 s of grace fit in 5 s.
    let run = wait_within(child, Duration::from_secs(15));
    let took = started.elapsed();
    assert_eq!(run.code, Some(124), "{run:?}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(
        took >= Duration::from_secs(2),
        "stopped before its deadline: {took:?}"
    );
    assert!(run.stdout.contains("grandchild started"), "{run:?}");
    assert!(tree.workspace.join("grandchild.pid").exists());
    let left = leftovers(&tree.base);
    assert!(left.is_empty(), "still running: {left:?}");
    let runs = statuses(&tree);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].1, "timed_out");

    let json = tree.run(&[
        "--json",
        "run",
        SKILL,
        "scripts/stubborn.sh",
        "--timeout",
        "1",
    ]);
    assert_eq!(json.code, Some(124), "{json:?}");
    let outcome: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(outcome["timed_out"], true);
    assert_eq!(outcome["status"], "timed_out");
    let left = leftovers(&tree.base);
    assert!(left.is_empty(), "still running: {left:?}");
}

#[test]
fn cancel_from_another_process_ends_the_run_with_130() {
    let (tree, _) = lab(
        &[(
            "scripts/long.sh",
            "echo \"$$\" > \"$PWD/script.pid\"\necho started\nwhile :; do sleep 1; done\n",
        )],
        None,
    );
    let child = spawn(&tree, &["run", SKILL, "scripts/long.sh"]);
    let run_id = running_run(&tree);
    // Registered before it spawns: wait for the script itself to be going.
    let pid_file = tree.workspace.join("script.pid");
    let waiting = Instant::now();
    while !pid_file.exists() {
        assert!(
            waiting.elapsed() < Duration::from_secs(10),
            "the script never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let cancel = tree.run(&["cancel", &run_id]);
    assert_eq!(cancel.code, Some(0), "{cancel:?}");
    let run = wait_within(child, Duration::from_secs(10));
    assert_eq!(run.code, Some(130), "{run:?}");
    assert!(run.stdout.contains("started"), "{run:?}");
    let left = leftovers(&tree.base);
    assert!(left.is_empty(), "still running: {left:?}");
    assert_eq!(statuses(&tree), [(run_id.clone(), "cancelled".to_owned())]);

    // A run that has ended cannot be cancelled again, and neither can one never started.
    let again = tree.run(&["cancel", &run_id]);
    assert_eq!(again.code, Some(1), "{again:?}");
    assert!(again.stderr.contains("not running"), "{again:?}");
    let unknown = tree.run(&["cancel", "01900000-0000-7000-8000-000000000000"]);
    assert_eq!(unknown.code, Some(1), "{unknown:?}");
}

/// The script runs in a process group of its own, so a Ctrl-C at the terminal (SIGINT to the
/// foreground group), a closed terminal (SIGHUP) or a `kill` reach only `skills`: it cancels
/// the run rather than leave the script running without anyone reading its output.
#[test]
fn a_signal_to_the_command_cancels_the_run() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let (tree, _) = lab(
        &[(
            "scripts/long.sh",
            "echo \"$$\" > \"$PWD/script-$1.pid\"\nwhile :; do sleep 1; done\n",
        )],
        None,
    );
    for (signal, name) in [
        (Signal::SIGINT, "int"),
        (Signal::SIGTERM, "term"),
        (Signal::SIGHUP, "hup"),
    ] {
        let child = spawn(&tree, &["run", SKILL, "scripts/long.sh", "--", name]);
        let pid_file = tree.workspace.join(format!("script-{name}.pid"));
        let waiting = Instant::now();
        while !pid_file.exists() {
            assert!(
                waiting.elapsed() < Duration::from_secs(10),
                "{name}: the script never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let skills_pid = i32::try_from(child.id()).unwrap();
        kill(Pid::from_raw(skills_pid), signal).unwrap();
        let run = wait_within(child, Duration::from_secs(10));
        assert_eq!(run.code, Some(130), "{name}: {run:?}");
        let left = leftovers(&tree.base);
        assert!(
            left.is_empty(),
            "{name}: the script outlived the command: {left:?}"
        );
        assert_eq!(statuses(&tree)[0].1, "cancelled", "{name}");
    }
}
