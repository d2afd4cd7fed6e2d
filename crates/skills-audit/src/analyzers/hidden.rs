//! The `hidden` analyzer: what a reader of a skill does not see but a model does.
//!
//! Bidirectional controls (U+202A–U+202E, U+2066–U+2069) reorder what an editor or a review
//! page shows, so a line can read as harmless while its bytes say otherwise (the "Trojan
//! Source" class of attack); in a skill they hide instructions from the person who reviews
//! it.

use skills_types::audit::{Category, Severity};

use crate::files::{FileKind, Skill};
use crate::findings::{Collector, Rule};

const BIDI: Rule = Rule {
    id: "HIDDEN_BIDI_CONTROL",
    analyzer: "hidden",
    severity: Severity::High,
    category: Category::UnicodeSteganography,
    title: "Bidirectional control character",
    remediation: "Remove the bidirectional control characters; if right-to-left text is \
                  intended, write it without explicit overrides.",
};

/// This analyzer's rules.
pub(crate) const RULES: &[Rule] = &[BIDI];

/// The bidirectional embedding, override and isolate controls.
fn is_bidi_control(character: char) -> bool {
    matches!(character, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Adds this analyzer's findings about `skill` to `out`.
pub(crate) fn analyze(skill: &Skill, out: &mut Collector) {
    for file in &skill.files {
        if file.kind == FileKind::Binary {
            continue;
        }
        let Some(text) = file.text() else { continue };
        if let Some((offset, character)) = text.char_indices().find(|(_, c)| is_bidi_control(*c)) {
            let count = text.chars().filter(|c| is_bidi_control(*c)).count();
            out.at(
                &BIDI,
                file,
                offset,
                character.len_utf8(),
                format!(
                    "{count} bidirectional control character(s), the first U+{:04X}",
                    u32::from(character)
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::ScannedFile;

    fn skill(files: &[(&str, &str)]) -> Skill {
        Skill {
            name: "x".into(),
            description: String::new(),
            frontmatter: None,
            files: files
                .iter()
                .map(|(path, text)| {
                    ScannedFile::new(*path, text.as_bytes().to_vec(), text.len() as u64)
                })
                .collect(),
            neighbours: Vec::new(),
        }
    }

    fn ids(skill: &Skill) -> Vec<String> {
        let mut out = Collector::default();
        analyze(skill, &mut out);
        out.into_sorted().into_iter().map(|f| f.rule_id).collect()
    }

    #[test]
    fn a_bidi_override_is_found_once_per_file_with_its_place() {
        let text = "# Tool\nRun it.\n/* \u{202e} } \u{2066}if (admin) */\n";
        let found = skill(&[("SKILL.md", text), ("scripts/a.py", "x = '\u{2067}'\n")]);
        assert_eq!(ids(&found), ["HIDDEN_BIDI_CONTROL", "HIDDEN_BIDI_CONTROL"]);
        let mut out = Collector::default();
        analyze(&found, &mut out);
        let first = &out.into_sorted()[0];
        assert_eq!((first.location.line, first.location.column), (3, 4));
        assert!(
            first.message.starts_with("2 bidirectional"),
            "{}",
            first.message
        );
    }

    #[test]
    fn right_to_left_text_without_controls_is_not_a_finding() {
        let text = "# ترجمة\nTranslate Hebrew (עברית) and Arabic text.\n";
        assert!(ids(&skill(&[("SKILL.md", text)])).is_empty());
    }
}
