//! The real corpus of the audit rows: a folder of public skills the person running the bench
//! gives (`--audit-corpus DIR`; the project never ships one), on which every flag at high or
//! above is a false positive — these are skills people publish and install.
//!
//! Every folder holding a file named `SKILL.md`, at any depth, is one skill, nested ones too
//! (a collection that keeps sub-skills inside a skill counts both, as a catalog built from the
//! files would). The walk enters hidden folders (openai/skills keeps its skills under
//! `.curated` and `.system`) but never `.git`, and follows no symbolic link.
//!
//! The security-research subset ([`SECURITY_RESEARCH`]) is reported on its own: skills that
//! teach auditing and attacks describe what malicious skills do, and the issue asks that
//! discussing an attack stay at info/low unless the skill's own scripts do it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A skill is in the security-research subset when its path below the corpus folder contains
/// one of these, in any case: the trailofbits/skills repository (the bench's recipe puts each
/// repository in a folder named `owner+name`) and the words that name security, pentest and
/// exploit collections.
pub(crate) const SECURITY_RESEARCH: [&str; 4] = ["trailofbits", "security", "pentest", "exploit"];

/// The definition file that makes a folder a skill.
const DEFINITION: &str = "SKILL.md";
/// Never entered: a repository's own data, not its skills.
const SKIPPED: [&str; 1] = [".git"];

/// One skill of the corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Skill {
    pub(crate) dir: PathBuf,
    /// The folder below the corpus folder, `/`-separated.
    pub(crate) relative: String,
    pub(crate) security_research: bool,
}

/// Whether a skill at `relative` (below the corpus folder) is in the security-research subset.
pub(crate) fn is_security_research(relative: &str) -> bool {
    let lower = relative.to_lowercase();
    SECURITY_RESEARCH.iter().any(|word| lower.contains(word))
}

/// Every skill below `corpus`, sorted by path.
pub(crate) fn walk(corpus: &Path) -> io::Result<Vec<Skill>> {
    let mut skills = Vec::new();
    let mut pending = vec![corpus.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let mut is_skill = false;
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            // The entry's own type: a link is neither a folder nor a file here.
            let kind = entry.file_type()?;
            let name = entry.file_name();
            if kind.is_dir() && !SKIPPED.iter().any(|skipped| name == **skipped) {
                pending.push(entry.path());
            } else if kind.is_file() && name == DEFINITION {
                is_skill = true;
            }
        }
        if is_skill {
            let relative = dir
                .strip_prefix(corpus)
                .unwrap_or(&dir)
                .components()
                .map(|component| component.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            skills.push(Skill {
                security_research: is_security_research(&relative),
                relative,
                dir,
            });
        }
    }
    skills.sort_by(|a, b| a.relative.cmp(&b.relative));
    Ok(skills)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn every_folder_holding_a_definition_is_a_skill() {
        let corpus =
            std::env::temp_dir().join(format!("xtask-audit-corpus-{}", std::process::id()));
        let _ = fs::remove_dir_all(&corpus);
        let skill = "---\nname: x\ndescription: y\n---\n";
        write(&corpus.join("anthropics+skills/skills/pdf/SKILL.md"), skill);
        write(
            &corpus.join("anthropics+skills/skills/pdf/scripts/fill.py"),
            "",
        );
        write(
            &corpus.join("openai+skills/skills/.curated/linear/SKILL.md"),
            skill,
        );
        write(
            &corpus.join("trailofbits+skills/plugins/audit/skills/audit/SKILL.md"),
            skill,
        );
        // A sub-skill inside a skill: two skills.
        write(&corpus.join("c+d/skills/games/SKILL.md"), skill);
        write(&corpus.join("c+d/skills/games/2d/SKILL.md"), skill);
        write(&corpus.join("c+d/skills/Pentest-Commands/SKILL.md"), skill);
        // Not skills: a definition in .git, a folder whose SKILL.md is a folder, a readme.
        write(&corpus.join("c+d/.git/skills/x/SKILL.md"), skill);
        write(&corpus.join("c+d/odd/SKILL.md/README.md"), "");
        write(&corpus.join("c+d/docs/README.md"), "");
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            corpus.join("anthropics+skills/skills"),
            corpus.join("c+d/linked"),
        )
        .unwrap();
        let found = walk(&corpus).unwrap();
        let relative: Vec<&str> = found.iter().map(|s| s.relative.as_str()).collect();
        assert_eq!(
            relative,
            [
                "anthropics+skills/skills/pdf",
                "c+d/skills/Pentest-Commands",
                "c+d/skills/games",
                "c+d/skills/games/2d",
                "openai+skills/skills/.curated/linear",
                "trailofbits+skills/plugins/audit/skills/audit",
            ]
        );
        let research: Vec<bool> = found.iter().map(|s| s.security_research).collect();
        assert_eq!(research, [false, true, false, false, false, true]);
        assert_eq!(found[0].dir, corpus.join("anthropics+skills/skills/pdf"));
        assert!(walk(&corpus.join("absent")).is_err());
        fs::remove_dir_all(&corpus).unwrap();
    }

    #[test]
    fn the_security_research_subset_is_the_named_paths() {
        assert!(is_security_research(
            "trailofbits+skills/plugins/x/skills/y"
        ));
        assert!(is_security_research("a/skills/api-security-best-practices"));
        assert!(is_security_research("a/skills/sqlmap-database-PENTESTING"));
        assert!(is_security_research("a/exploit-dev"));
        assert!(!is_security_research("anthropics+skills/skills/pdf"));
    }
}
