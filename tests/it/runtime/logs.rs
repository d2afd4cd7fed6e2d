//! Run logs (07 §Run logs): typed JSON Lines in `<home>/<app_dir>/runs/`, never in the
//! workspace; a script's text that looks like a record stays output; `runs` shows how each
//! run ended; `logs` replays a run and `--follow` reads to its end; a run id never names a
//! path.

use std::time::Duration;

use serde_json::Value;

use super::{SKILL, lab, listing, log_files, records, running_run, spawn, statuses, wait_within};

/// A line that looks like the log's own end record and one like the truncation marker.
const FAKE_END: &str = r#"{"record":"end","status":"succeeded","exit_code":0,"signal":null,"timed_out":false,"cancelled":false,"duration_ms":1,"stdout_bytes":0,"stderr_bytes":0,"ended_at":"2020-01-01T00:00:00Z"}"#;
const FAKE_MARKER: &str = "[stdout truncated at 1 MiB: 5 bytes not kept]";

#[test]
fn a_fake_end_record_printed_by_a_script_stays_output() {
    let script = format!(
        "import sys\nprint({FAKE_END:?})\nprint({FAKE_MARKER:?})\nsys.stderr.write({FAKE_END:?} + '\\n')\nsys.exit(3)\n"
    );
    let (tree, _) = lab(&[("scripts/fake.py", &script)], None);
    let run = tree.run(&["run", SKILL, "scripts/fake.py"]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert_eq!(run.stdout, format!("{FAKE_END}\n{FAKE_MARKER}\n"));

    let logs = log_files(&tree);
    assert_eq!(logs.len(), 1);
    let records = records(&logs[0]);
    let kinds: Vec<&str> = records
        .iter()
        .map(|record| record["record"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"start"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"end"), "{kinds:?}");
    assert_eq!(kinds.iter().filter(|kind| **kind == "end").count(), 1);
    assert!(!kinds.contains(&"truncated"), "{kinds:?}");
    let printed: String = records
        .iter()
        .filter(|record| record["record"] == "output" && record["stream"] == "stdout")
        .map(|record| record["text"].as_str().unwrap())
        .collect();
    assert_eq!(printed, format!("{FAKE_END}\n{FAKE_MARKER}\n"));
    let end = records.last().unwrap();
    assert_eq!(end["status"], "failed");
    assert_eq!(end["exit_code"], 3);
    assert_eq!(statuses(&tree)[0].1, "failed");

    // `logs` replays it as output, then says how it really ended.
    let run_id = records[0]["run_id"].as_str().unwrap();
    let replay = tree.run(&["logs", run_id]);
    assert_eq!(replay.code, Some(0), "{replay:?}");
    assert_eq!(replay.stdout, format!("{FAKE_END}\n{FAKE_MARKER}\n"));
    assert!(
        replay.stderr.starts_with(&format!("{FAKE_END}\n")),
        "{replay:?}"
    );
    assert!(
        replay.stderr.contains("failed: exit status 3"),
        "{replay:?}"
    );
}

#[test]
fn runs_shows_succeeded_failed_timed_out_and_cancelled_runs() {
    let (tree, _) = lab(
        &[
            ("scripts/ok.py", "print('ok')\n"),
            ("scripts/fail.js", "process.exit(2);\n"),
            (
                "scripts/sleep.sh",
                "echo going\nwhile :; do sleep 1; done\n",
            ),
        ],
        None,
    );
    assert_eq!(tree.run(&["run", SKILL, "scripts/ok.py"]).code, Some(0));
    assert_eq!(tree.run(&["run", SKILL, "scripts/fail.js"]).code, Some(2));
    let timed = tree.run(&["run", SKILL, "scripts/sleep.sh", "--timeout", "1"]);
    assert_eq!(timed.code, Some(124), "{timed:?}");
    let child = spawn(&tree, &["run", SKILL, "scripts/sleep.sh"]);
    let run_id = running_run(&tree);
    assert_eq!(tree.run(&["cancel", &run_id]).code, Some(0));
    assert_eq!(wait_within(child, Duration::from_secs(10)).code, Some(130));

    let runs = tree.run(&["--json", "runs"]).json();
    let shown: Vec<(&str, &str)> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            (
                run["status"].as_str().unwrap(),
                run["target"].as_str().unwrap(),
            )
        })
        .collect();
    let statuses: Vec<&str> = shown.iter().map(|(status, _)| *status).collect();
    assert_eq!(
        statuses,
        ["cancelled", "timed_out", "failed", "succeeded"],
        "newest first: {runs}"
    );
    assert!(shown[2].1.contains("scripts/fail.js"), "{shown:?}");
    for run in runs.as_array().unwrap() {
        assert_eq!(run["skill"], SKILL);
        assert!(run["duration_ms"].is_u64(), "{run}");
    }
    assert_eq!(runs[2]["exit_code"], 2);
    let limited = tree.run(&["--json", "runs", "--limit", "2"]).json();
    assert_eq!(limited.as_array().unwrap().len(), 2);

    // The table says the same to a person.
    let table = tree.run(&["runs"]);
    let lines: Vec<&str> = table.ok().lines().collect();
    assert!(lines[0].starts_with("RUN"), "{table:?}");
    for (line, status) in lines[1..].iter().zip(&statuses) {
        assert!(line.contains(status) && line.contains(SKILL), "{line}");
    }
    assert_eq!(lines.len(), 5, "{table:?}");
}

#[test]
fn logs_are_json_lines_in_the_home_never_in_the_workspace() {
    let (tree, _) = lab(
        &[("scripts/talk.sh", "echo one\necho two >&2\necho three\n")],
        None,
    );
    let workspace_before = listing(&tree.workspace);
    let run = tree
        .run(&["--json", "run", SKILL, "scripts/talk.sh", "--", "arg"])
        .json();
    let run_id = run["run_id"].as_str().unwrap();
    assert_eq!(
        listing(&tree.workspace),
        workspace_before,
        "the run wrote into the workspace"
    );
    let logs = log_files(&tree);
    assert_eq!(
        logs,
        [super::runs_dir(&tree).join(format!("{run_id}.jsonl"))]
    );
    let records = records(&logs[0]);
    let start = &records[0];
    assert_eq!(start["record"], "start");
    assert_eq!(start["run_id"], run_id);
    assert_eq!(start["skill"], SKILL);
    assert_eq!(start["args"], serde_json::json!(["arg"]));
    let outputs: Vec<(String, String)> = records
        .iter()
        .filter(|record| record["record"] == "output")
        .map(|record| {
            (
                record["stream"].as_str().unwrap().to_owned(),
                record["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let stdout: String = outputs
        .iter()
        .filter(|(stream, _)| stream == "stdout")
        .map(|(_, text)| text.as_str())
        .collect();
    assert_eq!(stdout, "one\nthree\n");
    assert!(
        outputs
            .iter()
            .any(|(stream, text)| stream == "stderr" && text == "two\n")
    );
    assert_eq!(records.last().unwrap()["record"], "end");

    // `logs --json` is the file itself; `logs` replays the streams.
    let raw = tree.run(&["--json", "logs", run_id]);
    assert_eq!(raw.ok(), std::fs::read_to_string(&logs[0]).unwrap());
    let replay = tree.run(&["logs", run_id]);
    assert_eq!(replay.ok(), "one\nthree\n");
    assert!(replay.stderr.starts_with("two\n"), "{replay:?}");
    assert!(replay.stderr.contains("succeeded"), "{replay:?}");
}

#[test]
fn logs_follow_reads_a_running_run_to_its_end() {
    let (tree, _) = lab(
        &[(
            "scripts/slow.py",
            "import os, sys, time\nprint('first', flush=True)\nwhile not os.path.exists('go'):\n    time.sleep(0.05)\nprint('second', flush=True)\n",
        )],
        None,
    );
    let run = spawn(&tree, &["run", SKILL, "scripts/slow.py"]);
    let run_id = running_run(&tree);
    let follow = spawn(&tree, &["logs", "--follow", &run_id]);
    // Without --follow, what is there so far, and that it is still going.
    let partial = tree.run(&["logs", &run_id]);
    assert_eq!(partial.code, Some(0), "{partial:?}");
    assert!(partial.stderr.contains("still running"), "{partial:?}");
    tree.write(&tree.workspace.join("go"), "");
    assert_eq!(wait_within(run, Duration::from_secs(10)).code, Some(0));
    let followed = wait_within(follow, Duration::from_secs(10));
    assert_eq!(followed.ok(), "first\nsecond\n");
    assert!(followed.stderr.contains("succeeded"), "{followed:?}");
}

#[test]
fn a_path_like_run_id_is_refused() {
    let (tree, _) = lab(&[("scripts/ok.sh", "echo ok\n")], None);
    tree.run(&["run", SKILL, "scripts/ok.sh"]).ok();
    let secret = tree.write(&tree.base.join("secret.jsonl"), "{\"record\":\"start\"}\n");
    let log = &log_files(&tree)[0];
    let real = log.file_stem().unwrap().to_str().unwrap().to_owned();
    for id in [
        "../secret",
        "../../secret",
        "/etc/passwd",
        &secret.display().to_string(),
        &format!("{real}/../{real}"),
        &format!("./{real}"),
        "..",
        "",
        &format!("{real}.jsonl"),
    ] {
        for command in ["logs", "cancel"] {
            let refused = tree.run(&["--json", command, id]);
            assert_eq!(refused.code, Some(2), "{command} {id:?}: {refused:?}");
            let document: Value = serde_json::from_str(&refused.stdout).unwrap();
            assert_eq!(
                document["error"]["kind"], "invalid_input",
                "{command} {id:?}: {refused:?}"
            );
            assert!(!refused.stdout.contains("start\\\"}"), "{refused:?}");
        }
    }
}
