//! The labelled set of the audit rows: SkillFortifyBench, the 540 specimens of the public
//! qualixar/skillfortify repository (`benchmarks/`), read from a checkout the person running
//! the bench gives (`--audit-set DIR`); the project never copies the set in.
//!
//! The labels are `benchmarks/manifest.json`: `entries`, one per specimen, each with
//! `skill_id`, `format` (the surface: `claude`, `openclaw`, `mcp`), `is_malicious`,
//! `attack_type` (`A1`…`A13` or `null`) and `path`, the specimen's file relative to the
//! `benchmarks` folder. A specimen is an installation root named after its id, laid out as its
//! runtime loads it: `<id>/.claude/skills/<name>/SKILL.md`, `<id>/.openclaw/skills/<name>/SKILL.md`,
//! or `<id>/.mcp.json`. The set's own scorer walks up from the file to the folder named after the
//! id; so does this reader.
//!
//! Where each scanner is pointed: a specimen whose file is a `SKILL.md` is scanned at that
//! skill's folder by this program and by Cisco's scanner (both scan one skill folder); an MCP
//! specimen (no skill folder, one `.mcp.json`) at its root, which a skill scanner may refuse
//! — that is reported as not scanned, never counted silently. `skillfortify` discovers skills
//! below a root, so it gets the specimen root, as the set's own scorer does.

use std::path::{Component, Path, PathBuf};

/// The manifest's file name, in the `benchmarks` folder.
const MANIFEST: &str = "manifest.json";
/// The folder of a repository checkout that holds the set.
const SET_FOLDER: &str = "benchmarks";
/// The definition file of a skill-shaped specimen.
const DEFINITION: &str = "SKILL.md";

/// One labelled specimen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Specimen {
    pub(crate) id: String,
    /// `claude`, `openclaw` or `mcp`.
    pub(crate) surface: String,
    pub(crate) malicious: bool,
    /// `A1`…`A13` for a malicious specimen.
    pub(crate) attack: Option<String>,
    /// The installation root, the folder named `id`.
    pub(crate) root: PathBuf,
    /// Where a one-skill scanner is pointed: the skill folder, or the root of an MCP specimen.
    pub(crate) target: PathBuf,
    /// Whether `target` is a skill folder (it holds the `SKILL.md` the manifest names).
    pub(crate) skill_folder: bool,
}

/// The set as read.
#[derive(Debug)]
pub(crate) struct Set {
    /// The `benchmarks` folder.
    pub(crate) dir: PathBuf,
    /// Sorted by id, one per id.
    pub(crate) specimens: Vec<Specimen>,
    /// The manifest's `total_count`, to compare with what was read.
    pub(crate) declared: Option<usize>,
}

impl Set {
    pub(crate) fn malicious(&self) -> usize {
        self.specimens
            .iter()
            .filter(|specimen| specimen.malicious)
            .count()
    }

    /// The surfaces in the order the tables list them: the two skill surfaces, MCP, then any
    /// other the manifest names.
    pub(crate) fn surfaces(&self) -> Vec<String> {
        let mut surfaces: Vec<String> = ["claude", "openclaw", "mcp"]
            .into_iter()
            .filter(|known| self.specimens.iter().any(|s| s.surface == *known))
            .map(str::to_owned)
            .collect();
        for specimen in &self.specimens {
            if !surfaces.contains(&specimen.surface) {
                surfaces.push(specimen.surface.clone());
            }
        }
        surfaces
    }
}

#[derive(serde::Deserialize)]
struct Manifest {
    total_count: Option<usize>,
    entries: Vec<Entry>,
}

#[derive(serde::Deserialize)]
struct Entry {
    skill_id: String,
    format: String,
    is_malicious: bool,
    attack_type: Option<String>,
    path: String,
}

/// The folder holding `manifest.json`: `dir` itself (the `benchmarks` folder) or
/// `dir/benchmarks` (a checkout of the repository).
pub(crate) fn locate(dir: &Path) -> Option<PathBuf> {
    [dir.to_path_buf(), dir.join(SET_FOLDER)]
        .into_iter()
        .find(|candidate| candidate.join(MANIFEST).is_file())
}

/// Reads the set at `dir` (a checkout or its `benchmarks` folder) and checks that every
/// specimen's file is there.
pub(crate) fn read(dir: &Path) -> Result<Set, String> {
    let benchmarks = locate(dir).ok_or_else(|| {
        format!(
            "no {MANIFEST} in {} nor in {}",
            dir.display(),
            dir.join(SET_FOLDER).display()
        )
    })?;
    let manifest = benchmarks.join(MANIFEST);
    let text = std::fs::read_to_string(&manifest)
        .map_err(|error| format!("could not read {}: {error}", manifest.display()))?;
    let set = parse(&benchmarks, &text)?;
    let absent: Vec<&Specimen> = set
        .specimens
        .iter()
        .filter(|specimen| !specimen.target.exists())
        .collect();
    if let Some(first) = absent.first() {
        return Err(format!(
            "the set at {} is incomplete: {} of {} specimens are absent (the first: {})",
            benchmarks.display(),
            absent.len(),
            set.specimens.len(),
            first.target.display()
        ));
    }
    Ok(set)
}

/// The specimens of the manifest `text`, below `benchmarks`.
fn parse(benchmarks: &Path, text: &str) -> Result<Set, String> {
    let manifest: Manifest = serde_json::from_str(text)
        .map_err(|error| format!("{MANIFEST} is not the SkillFortifyBench manifest: {error}"))?;
    let mut specimens: Vec<Specimen> = Vec::with_capacity(manifest.entries.len());
    for entry in manifest.entries {
        let relative = Path::new(&entry.path);
        // A manifest is data from elsewhere: a path out of the set is refused, not followed.
        if !relative
            .components()
            .all(|component| matches!(component, Component::Normal(_)))
        {
            return Err(format!(
                "{MANIFEST}: the path of {} leaves the set: {}",
                entry.skill_id, entry.path
            ));
        }
        let root = relative
            .ancestors()
            .find(|ancestor| {
                ancestor
                    .file_name()
                    .is_some_and(|name| name == entry.skill_id.as_str())
            })
            .ok_or_else(|| {
                format!(
                    "{MANIFEST}: no folder named {} above {}",
                    entry.skill_id, entry.path
                )
            })?;
        let skill_folder = relative.file_name().is_some_and(|name| name == DEFINITION);
        let target = match relative.parent() {
            Some(folder) if skill_folder => folder,
            _ => root,
        };
        specimens.push(Specimen {
            id: entry.skill_id.clone(),
            surface: entry.format,
            malicious: entry.is_malicious,
            attack: entry.attack_type,
            root: benchmarks.join(root),
            target: benchmarks.join(target),
            skill_folder,
        });
    }
    specimens.sort_by(|a, b| a.id.cmp(&b.id));
    // The set's scorer keeps the first entry of an id: one specimen, one prediction.
    specimens.dedup_by(|later, first| later.id == first.id);
    if specimens.is_empty() {
        return Err(format!("{MANIFEST} lists no specimen"));
    }
    Ok(Set {
        dir: benchmarks.to_path_buf(),
        specimens,
        declared: manifest.total_count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest shaped like the real one: other keys beside `entries`, which the reader
    /// ignores; entries out of order, one id twice.
    const MANIFEST_TEXT: &str = r#"{
      "schema_version": "1.0",
      "seed": 42,
      "total_count": 3,
      "entries": [
        {"skill_id": "mcp_mal_A01_001", "format": "mcp", "is_malicious": true,
         "attack_type": "A1", "parent_class": "c1", "benign_category": null,
         "filename": "mcp_mal_A01_001/.mcp.json",
         "path": "skills/mcp/malicious/mcp_mal_A01_001/.mcp.json", "sha256": "00"},
        {"skill_id": "claude_ben_cat1_001", "format": "claude", "is_malicious": false,
         "attack_type": null,
         "path": "skills/claude/benign/claude_ben_cat1_001/.claude/skills/yaml-merger/SKILL.md"},
        {"skill_id": "openclaw_mal_A08_002", "format": "openclaw", "is_malicious": true,
         "attack_type": "A8",
         "path": "skills/openclaw/malicious/openclaw_mal_A08_002/.openclaw/skills/x/SKILL.md"},
        {"skill_id": "claude_ben_cat1_001", "format": "claude", "is_malicious": false,
         "attack_type": null,
         "path": "skills/claude/benign/claude_ben_cat1_001/.claude/skills/yaml-merger/SKILL.md"}
      ]
    }"#;

    #[test]
    fn reads_labels_roots_and_targets() {
        let set = parse(Path::new("/b"), MANIFEST_TEXT).unwrap();
        assert_eq!(set.declared, Some(3));
        let ids: Vec<&str> = set.specimens.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "claude_ben_cat1_001",
                "mcp_mal_A01_001",
                "openclaw_mal_A08_002"
            ]
        );
        let claude = &set.specimens[0];
        assert!(!claude.malicious && claude.attack.is_none() && claude.skill_folder);
        assert_eq!(
            claude.root,
            Path::new("/b/skills/claude/benign/claude_ben_cat1_001")
        );
        assert_eq!(
            claude.target,
            Path::new("/b/skills/claude/benign/claude_ben_cat1_001/.claude/skills/yaml-merger")
        );
        let mcp = &set.specimens[1];
        assert!(mcp.malicious && !mcp.skill_folder);
        assert_eq!(mcp.attack.as_deref(), Some("A1"));
        assert_eq!(mcp.target, mcp.root);
        assert_eq!(mcp.surface, "mcp");
        assert_eq!(set.malicious(), 2);
        assert_eq!(set.surfaces(), ["claude", "openclaw", "mcp"]);
    }

    #[test]
    fn refuses_what_is_not_the_manifest() {
        assert!(parse(Path::new("/b"), "[]").is_err());
        assert!(parse(Path::new("/b"), r#"{"entries": []}"#).is_err());
        let escaping = r#"{"entries": [{"skill_id": "x", "format": "mcp",
            "is_malicious": true, "attack_type": null, "path": "../x/.mcp.json"}]}"#;
        assert!(parse(Path::new("/b"), escaping).is_err_and(|error| error.contains("leaves")));
        let rootless = r#"{"entries": [{"skill_id": "x", "format": "mcp",
            "is_malicious": true, "attack_type": null, "path": "skills/y/.mcp.json"}]}"#;
        assert!(parse(Path::new("/b"), rootless).is_err_and(|error| error.contains("no folder")));
    }

    #[test]
    fn finds_the_set_in_a_checkout_or_its_folder_and_checks_the_files() {
        let dir = std::env::temp_dir().join(format!("xtask-audit-set-{}", std::process::id()));
        let benchmarks = dir.join(SET_FOLDER);
        let skill =
            benchmarks.join("skills/claude/benign/claude_ben_cat1_001/.claude/skills/yaml-merger");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join(DEFINITION), "---\nname: yaml-merger\n---\n").unwrap();
        let only_claude = r#"{"total_count": 1, "entries": [{"skill_id": "claude_ben_cat1_001",
            "format": "claude", "is_malicious": false, "attack_type": null,
            "path": "skills/claude/benign/claude_ben_cat1_001/.claude/skills/yaml-merger/SKILL.md"}]}"#;
        std::fs::write(benchmarks.join(MANIFEST), only_claude).unwrap();
        assert_eq!(locate(&dir), Some(benchmarks.clone()));
        assert_eq!(locate(&benchmarks), Some(benchmarks.clone()));
        assert_eq!(locate(&skill), None);
        let from_checkout = read(&dir).unwrap();
        let from_folder = read(&benchmarks).unwrap();
        assert_eq!(from_checkout.specimens, from_folder.specimens);
        assert_eq!(from_checkout.specimens[0].target, skill);
        // A manifest naming a file that is not there: the set is incomplete, said plainly.
        std::fs::write(benchmarks.join(MANIFEST), MANIFEST_TEXT).unwrap();
        assert!(read(&dir).is_err_and(|error| error.contains("2 of 3 specimens are absent")));
        assert!(read(&skill).is_err_and(|error| error.contains("no manifest.json")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
