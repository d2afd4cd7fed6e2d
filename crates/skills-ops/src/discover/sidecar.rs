//! The files beside a definition file (01 §Files a skill directory may define): the
//! `skill.toml` / `workflow.toml` sidecar (`when_to_use`, `[[inputs]]`, `[github]`) and the
//! oldest manifest form, `skill.json`, whose name, description, version and author fill in
//! what the frontmatter lacks.
//!
//! Both are optional and forgiving: a malformed file is an `invalid-sidecar` diagnostic on the
//! skill, never a reason to drop it.

use std::collections::HashSet;
use std::path::Path;

use serde::Deserialize;
use skills_types::limits::MAX_SKILL_MD_BYTES;
use skills_types::skill::SkillInput;
use skills_types::{Diagnostic, DiagnosticCode};

use crate::load::{self, Fallback};

/// What a sidecar adds to a skill.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sidecar {
    pub(crate) when_to_use: Option<String>,
    pub(crate) inputs: Vec<SkillInput>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SidecarFile {
    #[serde(default)]
    when_to_use: Option<String>,
    #[serde(default)]
    inputs: Vec<SkillInput>,
    /// The optional preflight table; read by the runtime stage, accepted here.
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "accepted so that it is not an unknown key; used by the runtime stage"
    )]
    github: Option<toml::Table>,
}

/// Reads a `skill.toml` or `workflow.toml`.
pub(crate) fn read_sidecar(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Sidecar {
    let Some(text) = read_text(path, diagnostics) else {
        return Sidecar::default();
    };
    let file: SidecarFile = match toml::from_str(&text) {
        Ok(file) => file,
        Err(error) => {
            diagnostics.push(invalid(
                path,
                format!("not a valid sidecar: {}", error.message()),
            ));
            return Sidecar::default();
        }
    };
    let mut seen = HashSet::new();
    let mut inputs = Vec::new();
    for input in file.inputs {
        let name = input.name.trim();
        if name.is_empty() {
            diagnostics.push(invalid(
                path,
                "an input has an empty name; it is ignored".to_owned(),
            ));
        } else if !seen.insert(name.to_lowercase()) {
            diagnostics.push(invalid(
                path,
                format!("the input '{name}' is declared twice (names are compared ignoring case); the second is ignored"),
            ));
        } else {
            inputs.push(input);
        }
    }
    Sidecar {
        when_to_use: file
            .when_to_use
            .map(|text| text.trim().to_owned())
            .filter(|text| !text.is_empty()),
        inputs,
    }
}

#[derive(Deserialize)]
struct ManifestFile {
    name: Option<serde_json::Value>,
    description: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
    author: Option<serde_json::Value>,
}

/// Reads a `skill.json` into the fallbacks it offers the loader.
pub(crate) fn read_manifest(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Fallback {
    let mut fallback = Fallback {
        source: skills_types::files::SKILL_JSON,
        ..Fallback::default()
    };
    let Some(text) = read_text(path, diagnostics) else {
        return fallback;
    };
    let file: ManifestFile = match serde_json::from_str(&text) {
        Ok(file) => file,
        Err(error) => {
            diagnostics.push(invalid(path, format!("not a valid manifest: {error}")));
            return fallback;
        }
    };
    let text_of = |value: Option<serde_json::Value>| match value? {
        serde_json::Value::String(text) => Some(text.trim().to_owned()).filter(|t| !t.is_empty()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    };
    fallback.name = text_of(file.name);
    fallback.description = text_of(file.description);
    for (key, value) in [("version", file.version), ("author", file.author)] {
        if let Some(text) = text_of(value) {
            fallback.metadata.push((key.to_owned(), text));
        }
    }
    fallback
}

fn read_text(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<String> {
    let bytes = match load::read_definition(path, MAX_SKILL_MD_BYTES) {
        Ok(bytes) => bytes,
        Err(error) => {
            diagnostics.push(invalid(path, error.to_string()));
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(_) => {
            diagnostics.push(invalid(path, "the file is not valid UTF-8".to_owned()));
            None
        }
    }
}

fn invalid(path: &Path, message: String) -> Diagnostic {
    Diagnostic::warning(DiagnosticCode::InvalidSidecar, message).with_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_inputs_and_when_to_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skill.toml");
        std::fs::write(
            &path,
            "when_to_use = ' When releasing. '\n[[inputs]]\nname = 'version'\ndescription = 'The version'\nrequired = true\n\n[[inputs]]\nname = 'Version'\n\n[[inputs]]\nname = 'notes'\ntype = 'path'\n\n[github]\nrepo = 'o/r'\n",
        )
        .unwrap();
        let mut diagnostics = Vec::new();
        let sidecar = read_sidecar(&path, &mut diagnostics);
        assert_eq!(sidecar.when_to_use.as_deref(), Some("When releasing."));
        let names: Vec<&str> = sidecar
            .inputs
            .iter()
            .map(|input| input.name.as_str())
            .collect();
        assert_eq!(names, ["version", "notes"]);
        assert!(sidecar.inputs[0].required);
        assert_eq!(sidecar.inputs[1].kind.as_deref(), Some("path"));
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, DiagnosticCode::InvalidSidecar);
    }

    #[test]
    fn malformed_sidecar_is_a_diagnostic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skill.toml");
        std::fs::write(&path, "when_to_use = 3\nunknown = 1\n").unwrap();
        let mut diagnostics = Vec::new();
        assert_eq!(read_sidecar(&path, &mut diagnostics), Sidecar::default());
        assert_eq!(diagnostics.len(), 1);
    }

    #[test]
    fn manifest_fallbacks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skill.json");
        std::fs::write(
            &path,
            r#"{"name": "old", "description": "Old form.", "version": 2, "author": "A"}"#,
        )
        .unwrap();
        let mut diagnostics = Vec::new();
        let fallback = read_manifest(&path, &mut diagnostics);
        assert!(diagnostics.is_empty());
        assert_eq!(fallback.name.as_deref(), Some("old"));
        assert_eq!(fallback.description.as_deref(), Some("Old form."));
        assert_eq!(
            fallback.metadata,
            [
                ("version".to_owned(), "2".to_owned()),
                ("author".to_owned(), "A".to_owned())
            ]
        );
    }
}
