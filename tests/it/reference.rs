//! `skills validate` against the recorded verdicts of the agentskills.io reference validator
//! (`tests/reference/verdicts.json`, recorded by hand with `tests/reference/record.py`; see
//! `docs/reference-validator.md`).
//!
//! For every case: our verdict and our error codes are the ones `verdicts.json` expects, and,
//! unless the entry records a difference, they are also the reference's verdict and rule kinds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skills_tests::skills;

/// Cases that must agree with the reference, at the least.
const MIN_AGREEING: usize = 40;

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("reference")
}

/// One entry of `verdicts.json`.
struct Verdict {
    case: String,
    path: String,
    argument: Option<String>,
    reference: String,
    reference_codes: Vec<String>,
    expected: String,
    codes: Vec<String>,
    difference: Option<String>,
}

fn text_field(entry: &Value, key: &str) -> String {
    entry[key]
        .as_str()
        .unwrap_or_else(|| panic!("verdicts.json: '{key}' must be a string in {entry}"))
        .to_owned()
}

fn list_field(entry: &Value, key: &str) -> Vec<String> {
    entry[key]
        .as_array()
        .unwrap_or_else(|| panic!("verdicts.json: '{key}' must be a list in {entry}"))
        .iter()
        .map(|item| {
            item.as_str()
                .unwrap_or_else(|| panic!("verdicts.json: '{key}' must hold strings in {entry}"))
                .to_owned()
        })
        .collect()
}

fn verdicts() -> Vec<Verdict> {
    let file = reference_dir().join("verdicts.json");
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", file.display()));
    let entries: Vec<Value> = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not a JSON list: {error}", file.display()));
    entries
        .iter()
        .map(|entry| Verdict {
            case: text_field(entry, "case"),
            path: text_field(entry, "path"),
            argument: entry.get("argument").map(|_| text_field(entry, "argument")),
            reference: text_field(entry, "reference"),
            reference_codes: list_field(entry, "reference_codes"),
            expected: text_field(entry, "expected"),
            codes: list_field(entry, "codes"),
            difference: match &entry["difference"] {
                Value::Null => None,
                _ => Some(text_field(entry, "difference")),
            },
        })
        .collect()
}

/// What our validator said about one case.
struct Ours {
    verdict: &'static str,
    error_codes: Vec<String>,
    diagnostics: String,
}

fn validate(verdict: &Verdict) -> Result<Ours, String> {
    let base = reference_dir();
    let mut command = skills();
    command.args(["validate", "--json", "--profile", "agentskills"]);
    match &verdict.argument {
        Some(argument) => command.current_dir(base.join(&verdict.path)).arg(argument),
        None => command.current_dir(&base).arg(&verdict.path),
    };
    let output = command
        .output()
        .map_err(|error| format!("cannot run skills: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json: Value = serde_json::from_str(&stdout).map_err(|error| {
        format!(
            "exit {:?}, output is not JSON ({error}):\n{stdout}\n{}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    if json["errors"]
        .as_array()
        .is_some_and(|errors| !errors.is_empty())
    {
        return Err(format!(
            "the path could not be validated: {}",
            json["errors"]
        ));
    }
    let valid = json["valid"].as_bool().ok_or("no 'valid' in the output")?;
    let expected_status = if valid { 0 } else { 1 };
    if output.status.code() != Some(expected_status) {
        return Err(format!(
            "exit status {:?} does not match \"valid\": {valid}",
            output.status.code()
        ));
    }
    let diagnostics: Vec<&Value> = json["reports"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|report| report["diagnostics"].as_array().into_iter().flatten())
        .collect();
    let mut error_codes: Vec<String> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .filter_map(|diagnostic| diagnostic["code"].as_str().map(str::to_owned))
        .collect();
    error_codes.sort();
    let shown: Vec<String> = diagnostics
        .iter()
        .map(|diagnostic| {
            format!(
                "{}[{}] {}",
                diagnostic["severity"].as_str().unwrap_or("?"),
                diagnostic["code"].as_str().unwrap_or("?"),
                diagnostic["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    Ok(Ours {
        verdict: if valid { "valid" } else { "invalid" },
        error_codes,
        diagnostics: if shown.is_empty() {
            "(none)".to_owned()
        } else {
            shown.join("\n    ")
        },
    })
}

fn check(verdict: &Verdict) -> Vec<String> {
    let mut problems = Vec::new();
    let mut sorted = verdict.codes.clone();
    sorted.sort();
    if sorted != verdict.codes {
        problems.push(format!(
            "verdicts.json: codes are not sorted: {:?}",
            verdict.codes
        ));
    }
    if verdict.difference.is_none() {
        if verdict.expected != verdict.reference {
            problems.push(format!(
                "verdicts.json: no difference is recorded, yet expected is {} and the reference said {}",
                verdict.expected, verdict.reference
            ));
        }
        if verdict.codes != verdict.reference_codes {
            problems.push(format!(
                "verdicts.json: no difference is recorded, yet codes {:?} differ from reference_codes {:?}",
                verdict.codes, verdict.reference_codes
            ));
        }
    }
    match validate(verdict) {
        Err(error) => problems.push(error),
        Ok(ours) => {
            if ours.verdict != verdict.expected || ours.error_codes != verdict.codes {
                problems.push(format!(
                    "ours: {} {:?}, expected: {} {:?}, reference: {} {:?}\n  our diagnostics:\n    {}",
                    ours.verdict,
                    ours.error_codes,
                    verdict.expected,
                    verdict.codes,
                    verdict.reference,
                    verdict.reference_codes,
                    ours.diagnostics
                ));
            }
        }
    }
    problems
        .into_iter()
        .map(|problem| {
            let difference = verdict.difference.as_deref().unwrap_or("none");
            format!(
                "case {} ({}): {problem}\n  difference: {difference}",
                verdict.case, verdict.path
            )
        })
        .collect()
}

#[test]
fn verdicts_match_the_reference_validator() {
    let verdicts = verdicts();
    let failures: Vec<String> = verdicts.iter().flat_map(check).collect();
    assert!(
        failures.is_empty(),
        "{} of {} reference cases fail:\n\n{}",
        failures.len(),
        verdicts.len(),
        failures.join("\n\n")
    );
    let agreeing = verdicts
        .iter()
        .filter(|verdict| verdict.difference.is_none())
        .count();
    assert!(
        agreeing >= MIN_AGREEING,
        "only {agreeing} cases agree with the reference; at least {MIN_AGREEING} must"
    );
}

#[test]
fn every_case_directory_has_one_verdict() {
    let verdicts = verdicts();
    let listed: Vec<&str> = verdicts
        .iter()
        .map(|verdict| verdict.case.as_str())
        .collect();
    let unique: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a case is listed twice in verdicts.json"
    );
    let cases = reference_dir().join("cases");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&cases)
        .unwrap_or_else(|error| panic!("cannot list {}: {error}", cases.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let listed: BTreeSet<String> = unique.iter().map(|case| (*case).to_owned()).collect();
    assert_eq!(
        on_disk, listed,
        "case directories and verdicts.json entries differ"
    );
    for verdict in &verdicts {
        assert!(
            verdict
                .path
                .starts_with(&format!("cases/{}/", verdict.case)),
            "case {}: path {} is not inside its case directory",
            verdict.case,
            verdict.path
        );
        assert!(
            reference_dir().join(&verdict.path).is_dir(),
            "case {}: {} is not a directory",
            verdict.case,
            verdict.path
        );
    }
}
