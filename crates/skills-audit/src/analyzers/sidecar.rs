//! The parts of a skill's sidecar (`skill.toml`, else `workflow.toml`) the `scripts` and
//! `manifest` analyzers need, read from the bytes in memory (an install scans staged files
//! before anything is on disk): the `[interpreters]` the runtime honours, so a `.rb` it would
//! run with ruby is read as code, and the declared `[[tools]]` with their descriptions.
//!
//! The keys are read as the runtime's reader (`skills_ops::discover::read_skill_manifest`)
//! takes them: an extension of letters and digits (a leading dot dropped), a bare program
//! name; anything else is what the runtime would refuse, so it is not code here either.

use std::collections::BTreeMap;

use skills_types::files::{SKILL_TOML, WORKFLOW_TOML};

use crate::files::{ScannedFile, Skill};

/// A declared tool: its name, what it says it does, and the script that answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tool {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) script: String,
}

/// What the analyzers read of a sidecar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Sidecar {
    /// Extension (without its dot) → program.
    pub(super) interpreters: BTreeMap<String, String>,
    pub(super) tools: Vec<Tool>,
    /// The whole text, for what it says about the network.
    pub(super) text: String,
}

/// The sidecar file of `skill`, as discovery picks it: `skill.toml`, then `workflow.toml`.
pub(super) fn file(skill: &Skill) -> Option<&ScannedFile> {
    [SKILL_TOML, WORKFLOW_TOML]
        .iter()
        .find_map(|name| skill.files.iter().find(|file| file.path == *name))
}

/// The sidecar of `skill`; empty when it has none or it is not valid TOML.
pub(super) fn read(skill: &Skill) -> Sidecar {
    let Some(text) = file(skill).and_then(ScannedFile::text) else {
        return Sidecar::default();
    };
    let mut sidecar = Sidecar {
        text: text.to_owned(),
        ..Sidecar::default()
    };
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return sidecar;
    };
    if let Some(toml::Value::Table(interpreters)) = table.get("interpreters") {
        for (extension, program) in interpreters {
            let extension = extension.trim_start_matches('.');
            let valid_extension =
                !extension.is_empty() && extension.chars().all(|c| c.is_ascii_alphanumeric());
            if let toml::Value::String(program) = program {
                let valid_program = !program.trim().is_empty()
                    && !program.contains(['/', '\\', '\0'])
                    && program.trim() == program;
                if valid_extension && valid_program {
                    sidecar
                        .interpreters
                        .insert(extension.to_owned(), program.clone());
                }
            }
        }
    }
    if let Some(toml::Value::Array(tools)) = table.get("tools") {
        for tool in tools {
            let toml::Value::Table(tool) = tool else {
                continue;
            };
            let field = |key: &str| {
                tool.get(key)
                    .and_then(toml::Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let script = field("script");
            if !script.is_empty() {
                sidecar.tools.push(Tool {
                    name: field("name"),
                    description: field("description"),
                    script,
                });
            }
        }
    }
    sidecar
}

/// Whether the runtime runs `path` through the sidecar's `[interpreters]`.
pub(super) fn declares(sidecar: &Sidecar, path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (_, extension) = name.rsplit_once('.')?;
    sidecar.interpreters.get(extension).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            neighbours: crate::files::Neighbours::default(),
        }
    }

    #[test]
    fn interpreters_and_tools_are_read_as_the_runtime_reads_them() {
        let found = read(&skill(&[(
            "skill.toml",
            "[interpreters]\nrb = \"ruby\"\n\".pl\" = \"perl\"\nbad = \"/usr/bin/x\"\n\n\
             [[tools]]\nname = \"fmt\"\ndescription = \"Formats JSON\"\nscript = \"scripts/fmt.py\"\n",
        )]));
        assert_eq!(
            found.interpreters.get("rb").map(String::as_str),
            Some("ruby")
        );
        assert_eq!(
            found.interpreters.get("pl").map(String::as_str),
            Some("perl")
        );
        assert!(!found.interpreters.contains_key("bad"));
        assert_eq!(found.tools.len(), 1);
        assert_eq!(found.tools[0].script, "scripts/fmt.py");
        assert_eq!(declares(&found, "scripts/a.rb").as_deref(), Some("ruby"));
        assert_eq!(declares(&found, "scripts/a.lua"), None);
    }

    #[test]
    fn no_sidecar_or_a_broken_one_is_empty() {
        assert_eq!(read(&skill(&[("SKILL.md", "x")])), Sidecar::default());
        assert!(
            read(&skill(&[("skill.toml", "[[[")]))
                .interpreters
                .is_empty()
        );
    }
}
