//! The one table of file names a skill directory may define (01 §Files a skill directory may
//! define), and the choice of which definition file to read when several are present.
//!
//! Every other crate refers to these constants rather than spelling the names again.

/// What a file does for its skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// Frontmatter plus Markdown body: the skill itself.
    Definition,
    /// `when_to_use`, `[[inputs]]` and the optional `[github]` table.
    Sidecar,
    /// The oldest manifest form (name, description, version, author); lowest priority.
    Manifest,
}

/// One row of the file table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkillFile {
    /// The canonical file name.
    pub name: &'static str,
    /// What the file does.
    pub role: FileRole,
    /// Whether case variants (`skill.md`) are read too, with a warning.
    pub case_variants: bool,
    /// Whether this subsystem ever writes the file.
    pub written: bool,
}

/// The canonical definition file, the only one ever written.
pub const SKILL_MD: &str = "SKILL.md";
/// The definition file of cores that renamed skills to workflows.
pub const WORKFLOW_MD: &str = "WORKFLOW.md";
/// The sidecar this subsystem writes when inputs or `when_to_use` are given.
pub const SKILL_TOML: &str = "skill.toml";
/// The sidecar of workflow-style skills.
pub const WORKFLOW_TOML: &str = "workflow.toml";
/// The oldest manifest form.
pub const SKILL_JSON: &str = "skill.json";

/// The folder of a skill holding one configuration file per product that reads the skill
/// (Codex's `agents/openai.yaml`); none of it is shown to a model.
pub const AGENTS_METADATA_DIR: &str = "agents";
/// Codex's file in [`AGENTS_METADATA_DIR`]: its `interface`, `dependencies` and
/// `policy.allow_implicit_invocation`, of which discovery reads the policy.
pub const OPENAI_METADATA_FILE: &str = "openai.yaml";

/// The provenance record an install writes into a skill folder (03 §Writing to disk).
pub const PROVENANCE_FILE: &str = ".skill-source.json";
/// The record of installed skills kept at a skill root. Not `skills-lock.json`: the vercel
/// tool writes a file of that name with other fields (`{version, skills: {name: {source,
/// sourceType, computedHash}}}`) at a project's root, and two incompatible files must not
/// share a name (docs/decisions.md, "Our install record and the vercel tool's lock").
pub const LOCK_FILE: &str = ".skills-installed.json";
/// The vercel tool's project lock, at a project's root: read by a project restore (`skills
/// install` without a source) so a team moving from that tool restores the same skills, and
/// never written.
pub const VERCEL_LOCK_FILE: &str = "skills-lock.json";
/// The name this program gave [`LOCK_FILE`] before, which is the vercel tool's name for its
/// lock (the reason ours moved): an old record found under it in a root is read, and moved to
/// the new name by the next write; a file under it in the vercel tool's shape is left alone.
pub const LEGACY_LOCK_FILE: &str = VERCEL_LOCK_FILE;
/// The lock taken on a root while installing into it.
pub const INSTALL_LOCK: &str = ".skills-install.lock";
/// The prefix of staging folders: starting with `.`, discovery never sees them.
pub const STAGING_PREFIX: &str = ".staging-";

/// Every file a skill directory may define, definition files in the order they are preferred.
pub const SKILL_FILES: &[SkillFile] = &[
    SkillFile {
        name: SKILL_MD,
        role: FileRole::Definition,
        case_variants: true,
        written: true,
    },
    SkillFile {
        name: WORKFLOW_MD,
        role: FileRole::Definition,
        case_variants: false,
        written: false,
    },
    SkillFile {
        name: SKILL_TOML,
        role: FileRole::Sidecar,
        case_variants: false,
        written: true,
    },
    SkillFile {
        name: WORKFLOW_TOML,
        role: FileRole::Sidecar,
        case_variants: false,
        written: false,
    },
    SkillFile {
        name: SKILL_JSON,
        role: FileRole::Manifest,
        case_variants: false,
        written: false,
    },
];

/// Directory names never scanned for skills (02 §Scanning a root), besides every name that
/// starts with `.`: version control, virtual environments, caches and build output.
pub const EXCLUDED_DIR_NAMES: &[&str] = &[
    ".git",
    ".github",
    ".hub",
    ".archive",
    ".venv",
    "venv",
    "node_modules",
    "site-packages",
    "__pycache__",
    ".tox",
    ".nox",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "target",
    // Other version control, and the hidden caches and build output of JavaScript and JVM
    // tools: a source searched for skills (`install .`) passes over them rather than read
    // thousands of files no skill lives in.
    ".svn",
    ".hg",
    ".cache",
    ".next",
    ".nuxt",
    ".turbo",
    ".parcel-cache",
    ".gradle",
    ".yarn",
    ".npm",
    ".pnpm-store",
];

/// Whether a directory with this name is skipped when looking for skills.
pub fn is_excluded_dir_name(name: &str) -> bool {
    name.starts_with('.') || EXCLUDED_DIR_NAMES.contains(&name)
}

/// Whether a folder of a *source* given to `install` (a repository, an archive, a local
/// folder) is passed over when looking for skills in it: exactly the folders of
/// [`EXCLUDED_DIR_NAMES`]. Other hidden folders are searched there, as the peers do: OpenAI
/// keeps its catalog under `skills/.curated`, `skills/.system` and `skills/.experimental`,
/// and a repository's `.claude/skills` is a place skills live. A root being discovered is
/// another matter ([`is_excluded_dir_name`]): there every hidden folder is skipped.
pub fn is_excluded_source_dir(name: &str) -> bool {
    EXCLUDED_DIR_NAMES.contains(&name)
}

/// Places skills are kept inside a folder a source is otherwise not searched in: GitHub
/// Copilot reads a repository's skills from `.github/skills`, and the peers search it, while
/// the rest of `.github` (workflows, templates) is never a skill's.
pub const SOURCE_SKILLS_INSIDE_EXCLUDED: &[(&str, &str)] = &[(".github", "skills")];

/// Whether the folder at `components` (relative to a source's root) is passed over when
/// looking for skills: it is, or lies below, an excluded folder ([`is_excluded_source_dir`]),
/// unless that folder is entered through one of [`SOURCE_SKILLS_INSIDE_EXCLUDED`]
/// (`.github/skills/pdf` is searched, `.github/workflows` is not). An excluded folder that is
/// the last component (`.github` itself) is passed over too: a walk enters it only on its way
/// to the place inside ([`may_enter_source_dir`]).
pub fn is_excluded_source_path(components: &[&str]) -> bool {
    components.iter().enumerate().any(|(index, name)| {
        is_excluded_source_dir(name)
            && !SOURCE_SKILLS_INSIDE_EXCLUDED
                .iter()
                .any(|(folder, inside)| folder == name && components.get(index + 1) == Some(inside))
    })
}

/// Whether a walk of a source enters the folder `name` below `parents`: a folder that is not
/// excluded, an excluded folder that holds one of [`SOURCE_SKILLS_INSIDE_EXCLUDED`] (only to
/// reach that place), or a folder on the way there.
pub fn may_enter_source_dir(parents: &[&str], name: &str) -> bool {
    let mut path: Vec<&str> = parents.to_vec();
    path.push(name);
    if !is_excluded_source_path(&path) {
        return true;
    }
    let last = path.len() - 1;
    SOURCE_SKILLS_INSIDE_EXCLUDED
        .iter()
        .any(|(folder, _)| path[last] == *folder && !is_excluded_source_path(&path[..last]))
}

/// How a directory entry matched a definition file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefinitionMatch {
    /// The table row it matched.
    pub file: &'static SkillFile,
    /// `false` for a case variant such as `skill.md` (reported as `noncanonical-filename`).
    pub canonical: bool,
}

impl DefinitionMatch {
    /// Lower is preferred: table order first, and within one row the exact name before its
    /// case variants.
    fn rank(self) -> (usize, bool) {
        let row = SKILL_FILES
            .iter()
            .position(|file| file.name == self.file.name)
            .unwrap_or(SKILL_FILES.len());
        (row, !self.canonical)
    }
}

/// Whether `file_name` is a definition file, and how it matched.
pub fn match_definition(file_name: &str) -> Option<DefinitionMatch> {
    let definitions = SKILL_FILES
        .iter()
        .filter(|file| file.role == FileRole::Definition);
    let mut variant = None;
    for file in definitions {
        if file.name == file_name {
            return Some(DefinitionMatch {
                file,
                canonical: true,
            });
        }
        if variant.is_none() && file.case_variants && file.name.eq_ignore_ascii_case(file_name) {
            variant = Some(DefinitionMatch {
                file,
                canonical: false,
            });
        }
    }
    variant
}

/// Picks the preferred definition file among a directory's entry names: `SKILL.md`, then its
/// case variants, then `WORKFLOW.md`; ties between variants go to the smallest name in byte
/// order, so the choice never depends on directory order.
pub fn pick_definition<'a, I>(names: I) -> Option<(&'a str, DefinitionMatch)>
where
    I: IntoIterator<Item = &'a str>,
{
    names
        .into_iter()
        .filter_map(|name| match_definition(name).map(|found| (name, found)))
        .min_by(|(a_name, a), (b_name, b)| a.rank().cmp(&b.rank()).then(a_name.cmp(b_name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_skills_is_searched_and_the_rest_of_github_is_not() {
        assert!(!is_excluded_source_path(&[".github", "skills", "pdf"]));
        assert!(!is_excluded_source_path(&["skills", ".curated", "pdf"]));
        assert!(is_excluded_source_path(&[".github", "workflows"]));
        assert!(is_excluded_source_path(&[".github"]));
        assert!(is_excluded_source_path(&["node_modules", "skills", "x"]));
        assert!(is_excluded_source_path(&[".git", ".github", "skills"]));
        assert!(may_enter_source_dir(&[], ".github"));
        assert!(may_enter_source_dir(&[".github"], "skills"));
        assert!(!may_enter_source_dir(&[".github"], "workflows"));
        assert!(may_enter_source_dir(&["pkg"], ".github"));
        assert!(!may_enter_source_dir(&["node_modules"], ".github"));
        assert!(!may_enter_source_dir(&[], "node_modules"));
    }

    #[test]
    fn excluded_names() {
        for name in [".git", ".anything", "node_modules", "target", "__pycache__"] {
            assert!(is_excluded_dir_name(name), "{name}");
        }
        for name in ["skills", "targets", "pdf", "venv2"] {
            assert!(!is_excluded_dir_name(name), "{name}");
        }
        for name in [
            ".git",
            ".github",
            "node_modules",
            ".venv",
            ".next",
            "target",
        ] {
            assert!(is_excluded_source_dir(name), "{name}");
        }
        for name in [".curated", ".system", ".experimental", ".claude", "skills"] {
            assert!(!is_excluded_source_dir(name), "{name}");
        }
    }

    #[test]
    fn exact_names_match_canonically() {
        let found = match_definition("SKILL.md").unwrap();
        assert!(found.canonical);
        assert_eq!(found.file.name, SKILL_MD);
        assert!(match_definition("WORKFLOW.md").unwrap().canonical);
    }

    #[test]
    fn case_variants_of_skill_md_match_as_noncanonical() {
        for name in ["skill.md", "Skill.md", "SKILL.MD", "sKiLl.Md"] {
            let found = match_definition(name).unwrap();
            assert!(!found.canonical, "{name}");
            assert_eq!(found.file.name, SKILL_MD);
        }
        assert!(match_definition("workflow.md").is_none());
        assert!(match_definition("SKILL.md.bak").is_none());
        assert!(match_definition("skill.toml").is_none());
    }

    #[test]
    fn preference_is_exact_then_variants_then_workflow() {
        let pick = |names: &[&'static str]| pick_definition(names.iter().copied()).map(|(n, _)| n);
        assert_eq!(
            pick(&["skill.md", "WORKFLOW.md", "SKILL.md"]),
            Some("SKILL.md")
        );
        assert_eq!(pick(&["WORKFLOW.md", "skill.md"]), Some("skill.md"));
        assert_eq!(pick(&["WORKFLOW.md", "notes.md"]), Some("WORKFLOW.md"));
        assert_eq!(pick(&["skill.md", "Skill.md"]), Some("Skill.md"));
        assert_eq!(pick(&["Skill.md", "skill.md"]), Some("Skill.md"));
        assert_eq!(pick(&["README.md", "skill.json"]), None);
    }
}
