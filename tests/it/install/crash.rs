//! The crash test of 06 §Safety: fifty times, `skills install --force` of a pack is killed
//! with SIGKILL at a random instant, and discovery (`skills list --json`) must never show a
//! partial skill: every skill it lists holds exactly the files of one version of the pack, byte
//! for byte, with a provenance record that matches them, and no staging folder is ever listed.
//! Afterwards an install without a kill succeeds, a second one finds everything already
//! installed, and the lock file agrees with what is on disk.
//!
//! The runs alternate between two versions of the pack (different bytes and different file
//! sets), so nearly every run replaces something and a mixed folder would be caught. Some files
//! drip slowly, so a run lasts a few hundred milliseconds, and the instant of each kill is
//! chosen by a seeded generator in one of three ways: anywhere in the run, just after a staging
//! folder appears (while files are being written and flushed), or just after a skill folder is
//! published (between skills, while the lock file is updated).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use skills_tests::http::{Reply, Server};
use skills_types::files::{LOCK_FILE, PROVENANCE_FILE, STAGING_PREFIX};

use super::{
    Files, Skill, command, files_of, install_json, listed, read_json, serve_pack, sha256,
    staging_leftovers,
};
use crate::discovery::{Place, Tree, text};

/// How many runs are killed.
const RUNS: u64 = 50;
/// The generator's seed: a failure can be replayed.
const SEED: u64 = 0x5eed_c2a5_0000_0050;
/// How long each byte of a dripping file takes.
const DRIP: Duration = Duration::from_millis(1);
/// The longest wait after a trigger (staging appeared, folder published) before the kill.
const MAX_KILL_AFTER_TRIGGER_MICROS: u64 = 4_000;

/// A 64-bit linear congruential generator (Knuth's MMIX constants); the high half of the state
/// is returned, since the low bits of an LCG cycle quickly.
struct Random(u64);

impl Random {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) % bound.max(1)
    }
}

/// When a run is killed.
#[derive(Clone, Copy, Debug)]
enum Moment {
    /// This long after it started.
    After(Duration),
    /// This long after a staging folder first appears in the root.
    WhileStaging(Duration),
    /// This long after a skill folder is published or replaced.
    AfterPublish(Duration),
}

/// The pack in one of two versions: the same three skill names, different bytes, different
/// file sets.
fn version(number: usize) -> Vec<Skill> {
    let guide = format!("Version {number} of the guide.\n").repeat(if number == 0 {
        16 * 1024
    } else {
        12 * 1024
    });
    let alpha_extra: (&str, &str) = if number == 0 {
        ("scripts/run.py", "print('zero')\n")
    } else {
        ("references/extra.md", "Only in version one.\n")
    };
    let table = format!("name,version\nbeta,{number}\n{}", "x,y\n".repeat(8));
    vec![
        Skill::new(
            "crash-alpha",
            "The skill with the most files.",
            &format!("Alpha, version {number}."),
            &[("references/guide.md", guide.as_str()), alpha_extra],
        ),
        Skill::new(
            "crash-beta",
            "A skill with a nested data file.",
            &format!("Beta, version {number}."),
            &[("assets/data/table.csv", table.as_str())],
        ),
        Skill::new(
            "crash-gamma",
            "A skill with one file.",
            &format!("Gamma, version {number}, {}.", "words ".repeat(10)),
            &[],
        ),
    ]
}

/// Serves both versions, at `/v0/index.json` and `/v1/index.json`; beta's table and gamma's
/// definition drip, so kills can land during the download too.
fn serve(server: &Server, versions: &[Vec<Skill>]) -> Vec<String> {
    versions
        .iter()
        .enumerate()
        .map(|(number, skills)| {
            let base = format!("/v{number}");
            let url = serve_pack(server, &base, skills, &number.to_string());
            for (skill, file) in [
                ("crash-beta", "assets/data/table.csv"),
                ("crash-gamma", "SKILL.md"),
            ] {
                let body = skills
                    .iter()
                    .find(|candidate| candidate.name == skill)
                    .unwrap()
                    .files[file]
                    .clone();
                server.route(
                    &format!("{base}/{skill}/{file}"),
                    Reply::Drip { body, every: DRIP },
                );
            }
            url
        })
        .collect()
}

/// The inode of each skill folder in `root` (a publish or an exchange changes it).
fn published(root: &Path) -> BTreeMap<String, u64> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| {
            let metadata = std::fs::symlink_metadata(entry.path()).unwrap();
            #[cfg(unix)]
            let identity = std::os::unix::fs::MetadataExt::ino(&metadata);
            #[cfg(not(unix))]
            let identity = metadata
                .modified()
                .unwrap()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64;
            (entry.file_name().to_string_lossy().into_owned(), identity)
        })
        .collect()
}

/// Waits (polling, yielding the processor) until `ready` holds or the child has exited, then
/// until `delay` more has passed, then kills the child. Returns whether the kill landed before
/// the child had exited by itself.
fn kill_when(child: &mut Child, mut ready: impl FnMut() -> bool, delay: Duration) -> bool {
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if ready() {
            break;
        }
        std::thread::yield_now();
    }
    let deadline = Instant::now() + delay;
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::yield_now();
    }
    let alive = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    alive
}

/// Asserts what discovery shows is whole; returns how many listed skills match each version.
fn assert_whole(tree: &Tree, root: &Path, versions: &[Vec<Skill>], run: u64) -> [usize; 2] {
    let mut matches = [0; 2];
    let listing = listed(tree);
    for (name, (scope, location)) in &listing {
        assert_eq!(scope, "user", "run {run}: {name}");
        let dir = root.join(name);
        assert_eq!(
            location,
            &text(&dir.join("SKILL.md")),
            "run {run}: {name} is listed from somewhere else"
        );
        assert!(!location.contains(STAGING_PREFIX), "run {run}: {location}");
        let mut files: Files = files_of(&dir);
        let provenance = files
            .remove(PROVENANCE_FILE)
            .unwrap_or_else(|| panic!("run {run}: {name} has no provenance record"));
        let which = versions
            .iter()
            .position(|skills| {
                skills
                    .iter()
                    .any(|skill| &skill.name == name && skill.files == files)
            })
            .unwrap_or_else(|| {
                panic!(
                    "run {run}: {name} is partial or mixed: {:?}",
                    files.keys().collect::<Vec<_>>()
                )
            });
        matches[which] += 1;
        let provenance: serde_json::Value = serde_json::from_slice(&provenance)
            .unwrap_or_else(|error| panic!("run {run}: {name}'s provenance: {error}"));
        let digests: serde_json::Map<String, serde_json::Value> = files
            .iter()
            .map(|(path, bytes)| (path.clone(), sha256(bytes).into()))
            .collect();
        assert_eq!(
            provenance["sha256"],
            serde_json::Value::from(digests),
            "run {run}: {name}"
        );
    }
    // A folder that discovery skips (say, one without its definition yet) would still be a
    // partial skill in plain sight: every visible name is a listed skill or the lock file.
    let Ok(entries) = std::fs::read_dir(root) else {
        // Killed before the root was made: nothing may be listed from it.
        assert!(listing.is_empty(), "run {run}: {listing:?}");
        return matches;
    };
    for entry in entries {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            name.starts_with('.') || name == LOCK_FILE || listing.contains_key(&name),
            "run {run}: {name} is in the root but not a listed skill"
        );
    }
    if root.join(LOCK_FILE).exists() {
        // Parses: never torn.
        read_json(&root.join(LOCK_FILE));
    }
    matches
}

#[test]
fn an_install_killed_at_random_points_never_leaves_a_partial_skill_visible() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let versions = [version(0), version(1)];
    let urls = serve(&server, &versions);
    let root = tree.root(Place::UserAgents);
    let mut random = Random(SEED);

    // One uncontrolled run, in a tree of its own, tells how long a whole install takes here
    // (once the binary is built: the first test to need it builds it).
    skills_tests::skills_binary();
    let calibration = Tree::new();
    let started = Instant::now();
    install_json(&calibration, &[&urls[0]]);
    let whole = started.elapsed();

    let (mut killed, mut staged_left, mut mixed) = (0, 0, 0);
    for run in 0..RUNS {
        let url = &urls[(run % 2) as usize];
        let before = published(&root);
        let moment = match random.below(3) {
            0 => Moment::After(Duration::from_micros(
                random.below(whole.as_micros() as u64 + 1),
            )),
            1 => Moment::WhileStaging(Duration::from_micros(
                random.below(MAX_KILL_AFTER_TRIGGER_MICROS),
            )),
            _ => Moment::AfterPublish(Duration::from_micros(
                random.below(MAX_KILL_AFTER_TRIGGER_MICROS),
            )),
        };
        let mut child = command(&tree, &["--json", "install", url, "--force"])
            .spawn()
            .unwrap();
        let landed = match moment {
            Moment::After(delay) => kill_when(&mut child, || true, delay),
            Moment::WhileStaging(delay) => {
                kill_when(&mut child, || !staging_leftovers(&root).is_empty(), delay)
            }
            Moment::AfterPublish(delay) => {
                kill_when(&mut child, || published(&root) != before, delay)
            }
        };
        let status = child.wait().unwrap();
        if landed {
            killed += 1;
        } else {
            assert!(status.success(), "run {run} ({moment:?}) failed by itself");
        }
        if !staging_leftovers(&root).is_empty() {
            staged_left += 1;
        }
        let matches = assert_whole(&tree, &root, &versions, run);
        if matches[0] > 0 && matches[1] > 0 {
            mixed += 1;
        }
    }
    eprintln!(
        "crash test: {killed} of {RUNS} runs killed; {staged_left} left a staging folder; \
         {mixed} left skills of both versions; a whole install takes {whole:?}"
    );
    assert!(
        killed >= RUNS / 2,
        "only {killed} of {RUNS} kills landed before the install finished"
    );
    assert!(
        staged_left > 0,
        "no kill landed while files were being written"
    );

    // Stale staging folders neither show nor block: an install without a kill completes, the
    // next finds everything in place, and the lock file agrees with the folders.
    let outcomes = install_json(&tree, &[&urls[1], "--force"]);
    assert_eq!(outcomes.len(), 3);
    let again = install_json(&tree, &[&urls[1]]);
    assert!(
        again
            .iter()
            .all(|outcome| outcome["already_installed"] == true),
        "{again:#?}"
    );
    assert_eq!(staging_leftovers(&root), Vec::<String>::new());
    assert_eq!(assert_whole(&tree, &root, &versions, RUNS), [0, 3]);
    let lock = read_json(&root.join(LOCK_FILE));
    for outcome in &again {
        let slug = outcome["slug"].as_str().unwrap();
        assert_eq!(
            lock["skills"][slug]["sha256"], outcome["sha256"],
            "the lock entry of {slug} does not describe the installed copy: {lock:#}"
        );
    }
}
