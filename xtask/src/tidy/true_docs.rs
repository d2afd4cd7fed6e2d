//! Tidy's rule that the docs say what is true (issue 32): a README never promises a stage
//! that may already have come ("Empty until the install stage" stayed for three waves after
//! the install stage landed), and no Markdown table is cut in two by a blank line (the rows
//! after the cut render as a paragraph of pipes, without a header).

use std::path::Path;

use super::Problem;

/// Words with which a README defers its content to a stage of the project: it should say
/// what the crate holds now instead. Matched without case.
const PROMISES: [&str; 4] = ["empty until", "until the", "until step", "in a later stage"];

/// What a promise is followed by for [`PROMISES`]' `until the` to be one: `until the install
/// stage`, not `until the deadline passes`.
const STAGE_WORDS: [&str; 3] = ["stage", "step", "wave"];

/// Problems of one Markdown file.
pub(super) fn check(path: &Path, text: &str) -> Vec<Problem> {
    let mut problems = cut_tables(path, text);
    let readme = path
        .file_name()
        .is_some_and(|name| name.eq_ignore_ascii_case("README.md"));
    if readme {
        problems.extend(promises(path, text));
    }
    problems
}

fn problem(path: &Path, line: usize, message: String) -> Problem {
    Problem {
        path: path.to_path_buf(),
        line,
        message,
    }
}

/// Lines of a README that defer its content to a stage.
fn promises(path: &Path, text: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        for promise in PROMISES {
            let Some(at) = lower.find(promise) else {
                continue;
            };
            let after = &lower[at + promise.len()..];
            let about_a_stage = promise != "until the"
                || after
                    .split_whitespace()
                    .take(3)
                    .any(|word| STAGE_WORDS.iter().any(|stage| word.starts_with(stage)));
            if about_a_stage {
                problems.push(problem(
                    path,
                    index + 1,
                    format!(
                        "a README that defers to a stage (`{}`): say what the crate holds now",
                        line.trim()
                    ),
                ));
                break;
            }
        }
    }
    problems
}

/// Whether `line` is a row of a table: it starts with a pipe.
fn is_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// Whether `line` is a table's delimiter row (`|---|:--:|`).
fn is_delimiter(line: &str) -> bool {
    let trimmed = line.trim();
    is_row(trimmed)
        && trimmed.contains('-')
        && trimmed
            .chars()
            .all(|character| matches!(character, '|' | '-' | ':' | ' '))
}

/// Tables whose rows go on after a blank line: the rows after it have no header.
fn cut_tables(path: &Path, text: &str) -> Vec<Problem> {
    let lines: Vec<&str> = text.lines().collect();
    let mut problems = Vec::new();
    let mut fenced = false;
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || !is_row(line) {
            continue;
        }
        // The first row of a block of rows, after blank lines that follow a table row.
        let starts_block = index == 0 || !is_row(lines[index - 1]);
        if !starts_block || lines.get(index + 1).is_some_and(|next| is_delimiter(next)) {
            continue;
        }
        let before = lines[..index]
            .iter()
            .rev()
            .find(|earlier| !earlier.trim().is_empty());
        let gap = index > 0 && lines[index - 1].trim().is_empty();
        if gap && before.is_some_and(|earlier| is_row(earlier)) {
            problems.push(problem(
                path,
                index + 1,
                "a blank line cuts this table: the rows below it have no header row".to_owned(),
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(problems: &[Problem]) -> Vec<usize> {
        problems.iter().map(|problem| problem.line).collect()
    }

    #[test]
    fn a_readme_that_defers_to_a_stage_is_a_problem() {
        let text = "# x\n\nEmpty until the install stage; it exists so…\nWaits until the deadline \
                    passes.\nNot until step 6's index.\nkept in a later stage\n";
        let readme = check(Path::new("crates/x/README.md"), text);
        assert_eq!(lines(&readme), [3, 5, 6], "{readme:?}");
        // Other documents may tell history.
        assert!(check(Path::new("docs/decisions.md"), text).is_empty());
    }

    #[test]
    fn a_table_cut_by_a_blank_line_is_a_problem() {
        let text = "\
| a | b |
|---|---|
| 1 | 2 |

| 3 | 4 |
| 5 | 6 |

Prose.

| c | d |
|:--|--:|
| 7 | 8 |

```
| inside | a fence |

| is | not a table |
```
";
        let problems = check(Path::new("docs/x.md"), text);
        assert_eq!(lines(&problems), [5], "{problems:?}");
    }
}
