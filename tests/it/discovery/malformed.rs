//! One bad skill never hides the good ones (02 §Scanning a root): 1,000 malformed skills
//! spread over every root, next to 20 good ones. Unloadable files (unterminated frontmatter,
//! non-UTF-8 bytes, an oversized file) and files whose frontmatter does not parse (invalid
//! YAML, a YAML list, a YAML bomb: their name and description would be guesses, never offered
//! to an agent) become catalog errors; an empty file is listed under its directory name with
//! its diagnostics (01 §Splitting frontmatter from body); a directory or a FIFO named
//! `SKILL.md` is never read. Every good skill is listed, clean, by the library and by
//! `skills list --json`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use skills::{Catalog, DiagnosticCode, Severity};

use super::{Place, Tree, array, json_names};

const BAD: usize = 1_000;
const GOOD: usize = 20;

/// The roots the skills are spread over (the workspace is trusted).
const ROOTS: [Place; 7] = [
    Place::UserOpenhuman,
    Place::UserAgents,
    Place::UserClaude,
    Place::ProjectOpenhuman,
    Place::ProjectAgents,
    Place::ProjectClaude,
    Place::Legacy,
];

/// The ways a skill is broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Flaw {
    UnterminatedFrontmatter,
    InvalidYaml,
    YamlList,
    YamlBomb,
    NotUtf8,
    Empty,
    DirectoryNamedSkillMd,
    Fifo,
    /// Only once: a thousand 1 MiB files would be a gigabyte.
    TooLarge,
}

/// Rotated over; [`Flaw::TooLarge`] is added once.
const ROTATION: [Flaw; 8] = [
    Flaw::UnterminatedFrontmatter,
    Flaw::InvalidYaml,
    Flaw::YamlList,
    Flaw::YamlBomb,
    Flaw::NotUtf8,
    Flaw::Empty,
    Flaw::DirectoryNamedSkillMd,
    Flaw::Fifo,
];

const BOMB: &str = "---\n\
a: &a [x, x, x, x, x, x, x, x, x]\n\
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n\
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n\
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n\
name: boom\n\
description: boom\n\
---\nBody.\n";

/// Where a FIFO could be made (`mkfifo` is the only way without `unsafe` or a new dependency).
fn mkfifo_works(tree: &Tree) -> bool {
    let probe = tree.base.join("probe-fifo");
    Command::new("mkfifo")
        .arg(&probe)
        .status()
        .is_ok_and(|status| status.success())
        && std::fs::remove_file(&probe).is_ok()
}

/// The bad skills written, by flaw: their ids and definition-file paths.
struct Written {
    by_flaw: BTreeMap<Flaw, Vec<(String, PathBuf)>>,
    good: Vec<(String, PathBuf)>,
}

impl Written {
    fn ids(&self, flaws: &[Flaw]) -> BTreeSet<String> {
        flaws
            .iter()
            .flat_map(|flaw| self.by_flaw.get(flaw).into_iter().flatten())
            .map(|(id, _)| id.clone())
            .collect()
    }

    fn files(&self, flaw: Flaw) -> BTreeSet<PathBuf> {
        self.by_flaw
            .get(&flaw)
            .into_iter()
            .flatten()
            .map(|(_, file)| file.clone())
            .collect()
    }

    fn count(&self, flaw: Flaw) -> usize {
        self.by_flaw.get(&flaw).map_or(0, Vec::len)
    }
}

fn write_tree(tree: &Tree) -> Written {
    let fifos = mkfifo_works(tree);
    let mut by_flaw: BTreeMap<Flaw, Vec<(String, PathBuf)>> = BTreeMap::new();
    let mut pending_fifos: Vec<PathBuf> = Vec::new();
    for index in 0..BAD {
        let flaw = if index == BAD - 1 {
            Flaw::TooLarge
        } else {
            ROTATION[index % ROTATION.len()]
        };
        if flaw == Flaw::Fifo && !fifos {
            // No `mkfifo` on this system: this one variant is skipped, and counted as such.
            continue;
        }
        let id = format!("bad-{index:04}");
        // Spread over the roots, some inside category folders, interleaved with the good ones.
        let root = tree.root(ROOTS[(index / ROTATION.len()) % ROOTS.len()]);
        let dir = match index % 3 {
            0 => root.join(&id),
            _ => root.join(format!("cat-{}", index % 5)).join(&id),
        };
        let file = dir.join("SKILL.md");
        std::fs::create_dir_all(&dir).unwrap();
        match flaw {
            Flaw::UnterminatedFrontmatter => std::fs::write(
                &file,
                format!("---\nname: {id}\ndescription: never closed\n\nBody.\n"),
            )
            .unwrap(),
            Flaw::InvalidYaml => std::fs::write(
                &file,
                "---\nname: [unclosed\ndescription: a: b: c\n---\nBody.\n",
            )
            .unwrap(),
            Flaw::YamlList => {
                std::fs::write(&file, "---\n- name\n- description\n---\nBody.\n").unwrap()
            }
            Flaw::YamlBomb => std::fs::write(&file, BOMB).unwrap(),
            Flaw::NotUtf8 => std::fs::write(
                &file,
                [
                    format!("---\nname: {id}\ndescription: caf").as_bytes(),
                    b"\xe9\xff\n---\nBody.\n",
                ]
                .concat(),
            )
            .unwrap(),
            Flaw::Empty => std::fs::write(&file, "").unwrap(),
            Flaw::DirectoryNamedSkillMd => std::fs::create_dir(&file).unwrap(),
            Flaw::Fifo => pending_fifos.push(file.clone()),
            Flaw::TooLarge => {
                let mut text = format!("---\nname: {id}\ndescription: too big\n---\n");
                text.push_str(&"x".repeat(1024 * 1024));
                std::fs::write(&file, text).unwrap();
            }
        }
        by_flaw.entry(flaw).or_default().push((id, file));
    }
    if !pending_fifos.is_empty() {
        let status = Command::new("mkfifo")
            .args(&pending_fifos)
            .status()
            .unwrap();
        assert!(status.success());
    }

    let good = (0..GOOD)
        .map(|index| {
            let name = format!("good-{index:02}");
            let relative = match index % 2 {
                0 => name.clone(),
                _ => format!("cat-{}/{name}", index % 5),
            };
            let place = ROOTS[index % ROOTS.len()];
            let file = tree.skill(place, &relative, &name, &format!("Good skill {index}."));
            (name, file)
        })
        .collect();
    Written { by_flaw, good }
}

fn diagnostic_files(catalog: &Catalog, code: DiagnosticCode) -> BTreeSet<PathBuf> {
    catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == code)
        .map(|d| d.path.clone().unwrap())
        .collect()
}

fn skills_with(catalog: &Catalog, code: DiagnosticCode) -> BTreeSet<String> {
    catalog
        .skills
        .iter()
        .filter(|s| s.diagnostics.iter().any(|d| d.code == code))
        .map(|s| s.id.clone())
        .collect()
}

#[test]
fn a_thousand_malformed_skills_never_hide_the_twenty_good_ones() {
    let tree = Tree::new();
    tree.trust();
    let written = write_tree(&tree);
    let bad_written: usize = written.by_flaw.values().map(Vec::len).sum();
    let skipped_fifos = BAD - bad_written;
    assert!(skipped_fifos == 0 || written.count(Flaw::Fifo) == 0);

    // The library: every good skill, clean, with its own description and location.
    let catalog = tree.library(false).discover().unwrap();
    for (index, (name, file)) in written.good.iter().enumerate() {
        let skill = catalog
            .skills
            .iter()
            .find(|s| &s.name == name)
            .unwrap_or_else(|| panic!("{name} is missing"));
        assert_eq!(&skill.location, file);
        assert_eq!(skill.description, format!("Good skill {index}."));
        assert!(
            skill.diagnostics.is_empty(),
            "{name}: {:?}",
            skill.diagnostics
        );
        assert!(skill.shadowed.is_empty(), "{name}");
    }

    // Unloadable files are catalog diagnostics, one per file, with their codes.
    let yaml_errors: BTreeSet<PathBuf> = written
        .files(Flaw::InvalidYaml)
        .into_iter()
        .chain(written.files(Flaw::YamlList))
        .collect();
    for (files, code) in [
        (
            written.files(Flaw::UnterminatedFrontmatter),
            DiagnosticCode::UnterminatedFrontmatter,
        ),
        (written.files(Flaw::NotUtf8), DiagnosticCode::NotUtf8),
        (written.files(Flaw::TooLarge), DiagnosticCode::TooLarge),
        (yaml_errors, DiagnosticCode::YamlError),
        (
            written.files(Flaw::YamlBomb),
            DiagnosticCode::YamlTooComplex,
        ),
    ] {
        assert_eq!(diagnostic_files(&catalog, code), files, "{code}");
        assert!(
            catalog
                .diagnostics
                .iter()
                .filter(|d| d.code == code)
                .all(|d| d.severity == Severity::Error)
        );
    }
    // Files the lenient loader keeps are listed under their directory name, flagged.
    assert_eq!(
        skills_with(&catalog, DiagnosticCode::NoFrontmatter),
        written.ids(&[Flaw::Empty])
    );
    assert_eq!(
        skills_with(&catalog, DiagnosticCode::DescriptionMissing),
        written.ids(&[Flaw::Empty])
    );
    // A directory or a FIFO named SKILL.md is never a skill (and reading the FIFO would block).
    let never_skills = written.ids(&[Flaw::DirectoryNamedSkillMd, Flaw::Fifo]);
    assert!(
        catalog.skills.iter().all(|s| !never_skills.contains(&s.id)),
        "a directory or FIFO named SKILL.md was loaded"
    );
    // Nothing else: the catalog is exactly the good ones and the kept bad ones.
    let kept = written.ids(&[Flaw::Empty]);
    assert_eq!(catalog.skills.len(), GOOD + kept.len());
    assert!(catalog.shadowed.is_empty());
    let unexpected: Vec<_> = catalog
        .diagnostics
        .iter()
        .filter(|d| {
            !matches!(
                d.code,
                DiagnosticCode::UnterminatedFrontmatter
                    | DiagnosticCode::NotUtf8
                    | DiagnosticCode::TooLarge
                    | DiagnosticCode::NotAFile
                    | DiagnosticCode::YamlError
                    | DiagnosticCode::YamlTooComplex
            )
        })
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");

    // The binary agrees, skill by skill and diagnostic by diagnostic.
    let listing = tree.run(&["list", "--json"]).json();
    let names = json_names(&listing, "skills");
    let library_names: Vec<_> = catalog.skills.iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, library_names);
    for (name, file) in &written.good {
        let entry = array(&listing, "skills")
            .iter()
            .find(|s| s["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} is missing from skills list --json"));
        assert_eq!(entry["location"], super::text(file));
        assert!(entry.get("diagnostics").is_none(), "{name}: {entry:#}");
    }
    let binary_diagnostics: Vec<(String, String)> = array(&listing, "diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let library_diagnostics: Vec<(String, String)> = catalog
        .diagnostics
        .iter()
        .map(|d| (d.code.to_string(), super::text(d.path.as_deref().unwrap())))
        .collect();
    assert_eq!(binary_diagnostics, library_diagnostics);

    // The human listing: every good line, the first findings, and how many more there are.
    let human = tree.run(&["list"]);
    let stdout = human.ok();
    for (index, (name, _)) in written.good.iter().enumerate() {
        let line = stdout
            .lines()
            .find(|line| line.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} is missing from skills list"));
        assert!(line.ends_with(&format!("Good skill {index}.")), "{line}");
    }
    let findings = catalog.diagnostics.len();
    assert!(findings > 10);
    let stderr_lines: Vec<&str> = human.stderr.lines().collect();
    assert_eq!(stderr_lines.len(), 11, "{}", human.stderr);
    assert!(
        stderr_lines[..10]
            .iter()
            .all(|line| line.starts_with("error["))
    );
    assert_eq!(
        stderr_lines[10],
        format!("... and {} more (see `skills list --json`)", findings - 10)
    );

    // The good skills stay usable: shown, read and rendered.
    let show = tree.run(&["show", "good-07", "--json"]).json();
    assert_eq!(show["location"], super::text(&written.good[7].1));
    let read = tree.run(&["read", "good-03,good-16"]);
    assert!(read.ok().contains("Body of good-03.") && read.stdout.contains("Body of good-16."));
    let prompt = tree.run(&["prompt", "--format", "markdown"]);
    for (index, (name, _)) in written.good.iter().enumerate() {
        assert!(
            prompt
                .ok()
                .contains(&format!("- **{name}**: Good skill {index}.\n")),
            "{name}"
        );
    }
}

/// 01 and `docs/decisions.md` name `not-a-file` for "a FIFO, a device or a directory" in
/// place of the definition file; discovery should say why such a skill is missing rather than
/// drop it silently (02: "unreadable entries ... become diagnostics").
#[test]
fn a_directory_or_fifo_named_skill_md_is_reported_as_not_a_file() {
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    tree.skill(Place::UserOpenhuman, "good", "good", "Fine.");
    let directory = root.join("dir-skill/SKILL.md");
    std::fs::create_dir_all(&directory).unwrap();
    let mut expected: BTreeSet<PathBuf> = BTreeSet::from([directory]);
    let fifo = root.join("fifo-skill/SKILL.md");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    if mkfifo_works(&tree) {
        let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        expected.insert(fifo);
    }
    // Without `mkfifo` the FIFO variant is skipped; the directory variant still runs.

    let catalog = tree.library(false).discover().unwrap();
    let names: Vec<_> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["good"]);
    assert_eq!(
        diagnostic_files(&catalog, DiagnosticCode::NotAFile),
        expected,
        "discovery drops these without a word: {:?}",
        catalog.diagnostics
    );
    let listing = tree.run(&["list", "--json"]).json();
    let reported: BTreeSet<&str> = array(&listing, "diagnostics")
        .iter()
        .filter(|d| d["code"] == "not-a-file")
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    let expected: BTreeSet<String> = expected.iter().map(|p| super::text(Path::new(p))).collect();
    assert_eq!(
        reported,
        expected.iter().map(String::as_str).collect::<BTreeSet<_>>()
    );
    // Each is named for what it is, in the listing, in `show`, and in `validate` whether it is
    // given the skill folder or the `SKILL.md` path itself (never "holds no SKILL.md").
    let messages: Vec<&str> = array(&listing, "diagnostics")
        .iter()
        .filter(|d| d["code"] == "not-a-file")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(&"`SKILL.md` is a directory, not a file; the folder is skipped"),
        "{messages:?}"
    );
    if expected.len() == 2 {
        assert!(
            messages.contains(&"`SKILL.md` is a FIFO, not a regular file; the folder is skipped"),
            "{messages:?}"
        );
    }
    let show = tree.run(&["show", "dir-skill"]);
    assert_eq!(show.code, Some(1), "{show:?}");
    assert!(
        show.stderr
            .contains("`SKILL.md` is a directory, not a file"),
        "{show:?}"
    );
    for path in [root.join("dir-skill"), root.join("dir-skill/SKILL.md")] {
        let validate = tree.run(&["validate", &super::text(&path)]);
        assert_eq!(validate.code, Some(1), "{validate:?}");
        assert!(
            validate
                .stdout
                .contains("error[not-a-file]: `SKILL.md` is a directory, not a file"),
            "{validate:?}"
        );
        assert!(
            !validate.stderr.contains("holds no SKILL.md"),
            "{validate:?}"
        );
    }
}
