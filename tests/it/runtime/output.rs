//! Output (07 §The process policy, **Output**): a script printing 20 MiB costs the command
//! line little memory and yields 1 MiB with the marker; output into a pipe is the script's
//! own, byte for byte; both streams are passed on.

use std::process::Command;

use serde_json::Value;

use super::{SKILL, lab, log_files};

const MIB: u64 = 1024 * 1024;

/// Prints 20 MiB on stdout in 64 KiB writes, then a line on stderr.
const FLOOD: &str = "import sys\nchunk = b'x' * 65536\nfor _ in range(320):\n    sys.stdout.buffer.write(chunk)\nsys.stdout.flush()\nsys.stderr.write('done\\n')\n";

/// Runs the rest of its arguments as a command with inherited output, then prints on stderr
/// the largest peak resident set size among its waited-for descendants, in KiB
/// (`getrusage(RUSAGE_CHILDREN)`). A process of its own, so the figure is that command's and
/// its children's alone — not the test binary's other children (cargo among them) — and not
/// a sample that polling could miss.
const PEAK_WRAPPER: &str = "import resource, subprocess, sys\nstatus = subprocess.run(sys.argv[1:]).returncode\nsys.stderr.write('\\npeak-kib=%d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\nsys.exit(status)\n";

#[test]
fn a_script_printing_20_mib_costs_little_memory_and_yields_1_mib_with_the_marker() {
    let (tree, _) = lab(
        &[
            ("scripts/flood.py", FLOOD),
            ("scripts/quiet.py", "print('done')\n"),
        ],
        None,
    );
    let peak = |script: &str| {
        let output = Command::new("python3")
            .arg("-c")
            .arg(PEAK_WRAPPER)
            .arg(skills_tests::skills_binary())
            .arg("--workspace")
            .arg(&tree.workspace)
            .arg("--home")
            .arg(&tree.home)
            .args(["--json", "run", SKILL, script])
            .env_remove("SKILLS_HOME")
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr.clone()).unwrap();
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let peak_kib: u64 = stderr
            .lines()
            .find_map(|line| line.strip_prefix("peak-kib="))
            .unwrap_or_else(|| panic!("no peak reported: {stderr}"))
            .parse()
            .unwrap();
        (peak_kib, output)
    };
    // What any run costs (the process, its catalog, the audit's compiled rules), against which
    // 20 MiB of output must add little: kept whole, it would add 20 MiB at least.
    let (baseline_kib, _) = peak("scripts/quiet.py");
    let (peak_kib, output) = peak("scripts/flood.py");
    assert!(
        peak_kib < baseline_kib + 8 * 1024,
        "peak RSS {peak_kib} KiB for a 20 MiB script, {baseline_kib} KiB for a quiet one"
    );

    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    let total = 20 * MIB;
    assert_eq!(outcome["stdout_bytes"], total);
    assert_eq!(outcome["truncated"], true);
    let stdout = outcome["stdout"].as_str().unwrap();
    let marker = format!(
        "[stdout truncated at 1 MiB: {} bytes not kept]",
        total - MIB
    );
    assert!(
        stdout.trim_end().ends_with(&marker),
        "{:?}",
        &stdout[stdout.len().saturating_sub(200)..]
    );
    let kept = stdout.bytes().filter(|byte| *byte == b'x').count() as u64;
    assert_eq!(kept, MIB, "exactly 1 MiB of the output is kept");
    assert_eq!(outcome["stderr"], "done\n");

    // The log keeps no more than the result does (the flood's run is the newer: run ids,
    // and so log names, sort by time).
    let logs = log_files(&tree);
    assert_eq!(logs.len(), 2);
    let size = std::fs::metadata(&logs[1]).unwrap().len();
    assert!(size < MIB + MIB / 2, "the log holds {size} bytes");
}

#[test]
fn output_into_a_pipe_is_the_scripts_own_and_both_streams_are_passed_on() {
    // Escape sequences and a carriage return: a terminal would get them stripped, a pipe gets
    // them as printed (the script's output is its answer).
    let (tree, _) = lab(
        &[(
            "scripts/colour.py",
            "import sys\nsys.stdout.write('\\x1b[31mred\\x1b[0m\\r\\n{\"a\": 1}\\n')\nsys.stderr.write('warn\\x07\\n')\n",
        )],
        None,
    );
    let run = tree.run(&["run", SKILL, "scripts/colour.py"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "\u{1b}[31mred\u{1b}[0m\r\n{\"a\": 1}\n");
    assert_eq!(run.stderr, "warn\u{7}\n");
}

#[test]
fn with_json_the_outcome_is_printed_instead_of_the_stream() {
    let (tree, _) = lab(&[("scripts/hello.sh", "echo hello\necho oops >&2\n")], None);
    let run = tree.run(&["--json", "run", SKILL, "scripts/hello.sh"]);
    let outcome = run.json();
    assert_eq!(outcome["stdout"], "hello\n");
    assert_eq!(outcome["stderr"], "oops\n");
    assert_eq!(outcome["skill"], SKILL);
    assert!(run.stderr.is_empty(), "{run:?}");
    // A script that prints nothing is told so: only printed output reaches an agent.
    let (quiet, _) = lab(&[("scripts/quiet.sh", "true\n")], None);
    let outcome = quiet
        .run(&["--json", "run", SKILL, "scripts/quiet.sh"])
        .json();
    assert_eq!(outcome["note"], skills::run::PRINTED_NOTHING);
}

#[test]
fn output_is_streamed_while_the_script_runs() {
    let (tree, _) = lab(
        &[(
            "scripts/wait.py",
            "import os, sys, time\nprint('first', flush=True)\nsys.stderr.write('on stderr\\n')\nsys.stderr.flush()\nwhile not os.path.exists('go'):\n    time.sleep(0.05)\nprint('second')\n",
        )],
        None,
    );
    let mut child = super::spawn(&tree, &["run", SKILL, "scripts/wait.py"]);
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (sender, lines) = std::sync::mpsc::channel();
    for (name, stream) in [
        ("stdout", Box::new(stdout) as Box<dyn std::io::Read + Send>),
        ("stderr", Box::new(stderr)),
    ] {
        let sender = sender.clone();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(stream)) {
                let _ = sender.send((name, line.unwrap()));
            }
        });
    }
    let limit = std::time::Duration::from_secs(10);
    let mut seen = vec![
        lines.recv_timeout(limit).unwrap(),
        lines.recv_timeout(limit).unwrap(),
    ];
    seen.sort();
    // Both lines arrived while the script still waits for `go`.
    assert_eq!(
        seen,
        [
            ("stderr", "on stderr".to_owned()),
            ("stdout", "first".to_owned())
        ]
    );
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    tree.write(&tree.workspace.join("go"), "");
    assert_eq!(
        lines.recv_timeout(limit).unwrap(),
        ("stdout", "second".to_owned())
    );
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
