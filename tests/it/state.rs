//! Every state file the program keeps, attacked through the built binary: the rows of
//! `skills_ops::state::KINDS` (the table the code goes by; a kind without a row here fails
//! [`every_kind_of_state_file_has_a_row`]) × every trap that fits it (a FIFO, a link to
//! `/dev/zero`, a link to a copy elsewhere, an oversized file, corrupt content, and the
//! program's own folder above it made a link) × every command that reads or writes it
//! (`list`, `search`, `trust`, `runs`, `logs`, `cancel`, `run`, `runtimes`, `setup`,
//! `registry ...`, `update --remote`, `install`, `install` without a source (a restore),
//! `update`, `uninstall`, `audit`, `audit --accept`), each against a fresh tree and, where
//! the network is involved, a loopback server only.
//!
//! Every command runs under a watchdog (killed and failed after [`WATCHDOG`]) and a memory
//! bound (its peak resident memory, `VmHWM` in `/proc/PID/status`, polled while it runs; it is
//! killed and failed past [`MAX_PEAK_KIB`]), and must say something sensible: a cache is
//! rebuilt and the command succeeds, a record the user would lose stops the command with a
//! message naming it, nothing panics. Whatever a link pointed at must be exactly as it was
//! afterwards: nothing is ever written through a link.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use skills_ops::state::{Form, KINDS, Kind, WhenBroken};
use skills_tests::http::Server;

use crate::discovery::{Place, Run, Tree};
use crate::install::{ALLOW_LOCAL_HTTP, Skill, serve_pack};

/// Far longer than any of these commands takes, even on a machine loaded by many test
/// processes at once (they take well under a second alone); reaching it means the command
/// hangs on a state file.
const WATCHDOG: Duration = Duration::from_secs(30);

/// Far more than any of these commands needs (a search peaks near 40 MiB in a debug build);
/// reaching it means a read without a bound.
const MAX_PEAK_KIB: u64 = 256 * 1024;

/// One command of a row, with the environment it needs besides the lab's.
struct Step {
    args: Vec<String>,
    env: Vec<(String, String)>,
}

fn step(args: &[&str]) -> Step {
    Step {
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        env: Vec::new(),
    }
}

/// A fresh tree with the state files of one row in place.
struct Lab {
    tree: Tree,
    _server: Option<Server>,
    /// The environment of every command in the lab.
    env: Vec<(String, String)>,
    /// What a row needs to name things it made (a run id).
    id: String,
}

impl Lab {
    fn new(tree: Tree) -> Self {
        Self {
            tree,
            _server: None,
            env: Vec::new(),
            id: String::new(),
        }
    }

    fn app(&self) -> PathBuf {
        self.tree.home.join(".openhuman")
    }

    /// Where the things a link points at are kept: never written by a command.
    fn outside(&self) -> PathBuf {
        self.tree.base.join("outside")
    }

    /// Runs one command to its end (or kills it at a bound) and says what it did.
    fn run(&self, step: &Step) -> Run {
        let mut command = skills_tests::skills();
        command
            .current_dir(&self.tree.base)
            .arg("--workspace")
            .arg(&self.tree.workspace)
            .arg("--home")
            .arg(&self.tree.home)
            .args(&step.args)
            .env_remove("COLUMNS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in self.env.iter().chain(&step.env) {
            command.env(key, value);
        }
        bounded(command, &step.args)
    }

    /// Runs a seeding command, which must succeed.
    fn seed(&self, args: &[&str]) -> Run {
        let run = self.run(&step(args));
        assert_eq!(run.code, Some(0), "seeding with {args:?}: {run:?}");
        run
    }
}

/// Runs `command` to its end under the watchdog and the memory bound; both of its pipes are
/// drained on threads of their own, so a child that prints a lot never blocks on them.
fn bounded(mut command: Command, args: &[String]) -> Run {
    let mut child = command.spawn().unwrap();
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|pipe| Box::new(pipe) as _));
    let stderr = drain(child.stderr.take().map(|pipe| Box::new(pipe) as _));
    let status = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    let mut peak = 0;
    // The status line that set `peak`, shown if it fails the bound.
    let mut peak_seen = String::new();
    let code = loop {
        if let Some((name, peak_now)) = std::fs::read_to_string(&status)
            .ok()
            .as_deref()
            .and_then(program_peak)
            && peak_now > peak
        {
            peak = peak_now;
            peak_seen = format!("{name} at {peak_now} KiB");
        }
        if let Some(exit) = child.try_wait().unwrap() {
            break exit.code();
        }
        let failure = if peak > MAX_PEAK_KIB {
            Some(format!(
                "its memory grew to {peak} KiB ({peak_seen}): a read without a bound"
            ))
        } else if started.elapsed() > WATCHDOG {
            Some(format!(
                "it still ran after {WATCHDOG:?}: it hangs on a state file"
            ))
        } else {
            None
        };
        if let Some(failure) = failure {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`skills {}`: {failure}; stderr so far: {}",
                args.join(" "),
                stderr.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// The program's name and peak resident memory (KiB) as `/proc/PID/status` reports them,
/// when the process is the program under test: a status read before the child has become
/// `skills` (a copy of this test process, whose peak is the harness's) says nothing of the
/// command's memory.
fn program_peak(status: &str) -> Option<(&str, u64)> {
    let field = |key: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .map(str::trim)
    };
    let name = field("Name:")?;
    let program = skills_tests::skills_binary().file_name()?.to_str()?;
    // The kernel keeps the first 15 bytes of the name.
    if !program.starts_with(name) || name.is_empty() {
        return None;
    }
    let peak = field("VmHWM:")?
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some((name, peak))
}

/// What can be planted at a state file (or at the program's folder above it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Trap {
    Fifo,
    DevZero,
    /// The real file (or folder) moved elsewhere and a link left in its place.
    Elsewhere,
    Oversized,
    Corrupt,
    /// The program's folder holding it moved elsewhere and a link left in its place.
    LinkedFolder,
}

impl Trap {
    /// The traps that fit `kind`: an oversized file only where something is read, a linked
    /// folder only where the folder is the program's.
    fn for_kind(kind: &Kind) -> Vec<Self> {
        // `/dev/zero` first: a reader without a bound meets the memory bound before a FIFO
        // could hang it.
        let mut traps = vec![Self::DevZero, Self::Fifo, Self::Elsewhere, Self::Corrupt];
        if matches!(kind.form, Form::File | Form::Log) {
            traps.push(Self::Oversized);
        }
        if !kind.folders.is_empty() {
            traps.push(Self::LinkedFolder);
        }
        traps
    }

    /// Plants the trap at `at` (which may not exist yet); returns the path the command's
    /// message may name (the file, or the linked folder).
    fn plant(self, lab: &Lab, kind: &Kind, at: &Path) -> PathBuf {
        let outside = lab.outside();
        std::fs::create_dir_all(&outside).unwrap();
        if self == Self::LinkedFolder {
            let folder = at.parent().unwrap();
            let moved = outside.join("moved-folder");
            std::fs::rename(folder, &moved).unwrap();
            symlink(&moved, folder).unwrap();
            return folder.to_path_buf();
        }
        if self == Self::Elsewhere {
            let moved = outside.join("moved");
            if std::fs::symlink_metadata(at).is_ok() {
                std::fs::rename(at, &moved).unwrap();
            } else {
                std::fs::write(&moved, "a file elsewhere\n").unwrap();
            }
            symlink(&moved, at).unwrap();
            return at.to_path_buf();
        }
        match std::fs::symlink_metadata(at) {
            Ok(metadata) if metadata.is_dir() => std::fs::remove_dir_all(at).unwrap(),
            Ok(_) => std::fs::remove_file(at).unwrap(),
            Err(_) => std::fs::create_dir_all(at.parent().unwrap()).unwrap(),
        }
        match self {
            Self::Fifo => {
                let made = Command::new("mkfifo").arg(at).status().unwrap();
                assert!(made.success(), "mkfifo {}", at.display());
            }
            Self::DevZero => symlink("/dev/zero", at).unwrap(),
            // Sparse: one byte over the kind's limit costs no room, and is refused unread.
            Self::Oversized => std::fs::File::create(at)
                .unwrap()
                .set_len(kind.limit + 1)
                .unwrap(),
            Self::Corrupt => std::fs::write(at, "{\u{1}not what the program wrote\n").unwrap(),
            Self::Elsewhere | Self::LinkedFolder => unreachable!(),
        }
        at.to_path_buf()
    }
}

/// Everything under `dir`, not following links: each entry's kind, mode and bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let metadata = std::fs::symlink_metadata(&path).unwrap();
            let what = if metadata.is_dir() {
                stack.push(path.clone());
                "folder".to_owned()
            } else if metadata.is_file() {
                format!("{:?}", std::fs::read(&path).unwrap())
            } else {
                format!("{:?}", metadata.file_type())
            };
            let mode = metadata.permissions().mode();
            found.insert(path, format!("{mode:o} {} {what}", metadata.mtime()));
        }
    }
    found
}

/// One row of the table: how to make a tree holding the kind's files, where they are in it,
/// what makes the commands write them (run after the trap is planted), and the commands that
/// read or write them.
struct Row {
    kind: &'static str,
    build: fn() -> Lab,
    instances: fn(&Lab) -> Vec<PathBuf>,
    before: fn(&Lab),
    steps: fn(&Lab) -> Vec<Step>,
}

/// Nothing to do before the commands: they write the kind's files anyway.
fn nothing(_: &Lab) {}

/// Walks every instance of the row's kind × every trap that fits it × every command.
fn walk(id: &str) {
    let kind = KINDS.iter().find(|kind| kind.id == id).unwrap();
    let row = ROWS.iter().find(|row| row.kind == id).unwrap();
    let count = (row.instances)(&(row.build)()).len();
    assert!(count > 0, "{id}: the lab holds no file of the kind");
    for which in 0..count {
        for trap in Trap::for_kind(kind) {
            let lab = (row.build)();
            let at = (row.instances)(&lab)[which].clone();
            let named = trap.plant(&lab, kind, &at);
            (row.before)(&lab);
            let outside = snapshot(&lab.outside());
            for step in (row.steps)(&lab) {
                let run = lab.run(&step);
                let case = format!(
                    "{id} {trap:?} at {}: `skills {}`",
                    at.display(),
                    step.args.join(" ")
                );
                assert_sensible(&run, kind, trap, &named, &case);
                assert_eq!(
                    snapshot(&lab.outside()),
                    outside,
                    "{case}: something was written through the link: {run:?}"
                );
                let shown = lab.outside().display().to_string();
                assert!(
                    !run.stdout.contains(&shown),
                    "{case}: the output shows what is behind the link: {run:?}"
                );
            }
        }
    }
}

/// A sensible answer: nothing panics; a cache is rebuilt and the command succeeds (unless the
/// program's folder above it is a link, which is refused by name where it must be written);
/// anything else succeeds or names what is wrong.
fn assert_sensible(run: &Run, kind: &Kind, trap: Trap, named: &Path, case: &str) {
    assert!(!run.stderr.contains("panicked"), "{case}: {run:?}");
    if run.code == Some(0) {
        return;
    }
    assert!(
        !(kind.when_broken == WhenBroken::Rebuilt && trap != Trap::LinkedFolder),
        "{case}: a cache that cannot be used is rebuilt, never a failure: {run:?}"
    );
    let output = format!("{}{}", run.stdout, run.stderr);
    let names_it = output.contains(&named.display().to_string())
        || named
            .file_name()
            .is_some_and(|name| output.contains(&*name.to_string_lossy()));
    let says_why = kind.when_broken == WhenBroken::Skipped && output.contains("error");
    assert!(
        names_it || says_why,
        "{case}: a failure must name {}: {run:?}",
        named.display()
    );
}

/// The paths below `dir` whose names `keep` accepts, sorted.
fn files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().path())
                .filter(|path| keep(&path.file_name().unwrap().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// The one folder below `dir` whose name starts with `prefix`.
fn folder_in(dir: &Path, prefix: &str) -> PathBuf {
    let found = files_in(dir, |name| name.starts_with(prefix));
    assert_eq!(found.len(), 1, "{}: {found:?}", dir.display());
    found[0].clone()
}

// The home: a user skill, a trusted workspace with a project skill, the catalog cache and the
// search index made by the first commands.

fn home() -> Lab {
    let tree = Tree::new();
    tree.skill(
        Place::UserAgents,
        "pdf-tools",
        "pdf-tools",
        "Reads and fills PDF forms.",
    );
    tree.skill(
        Place::ProjectAgents,
        "ws-notes",
        "ws-notes",
        "Keeps notes on PDF forms.",
    );
    let lab = Lab::new(tree);
    lab.seed(&["trust"]);
    lab.seed(&["--json", "list"]);
    lab.seed(&["search", "pdf"]);
    lab
}

/// A skill edited since the caches were written: the next listing rewrites the catalog
/// cache, the next search re-indexes it and rewrites the stamps.
fn edit_a_skill(lab: &Lab) {
    lab.tree.skill(
        Place::UserAgents,
        "pdf-tools",
        "pdf-tools",
        "Reads, fills and flattens PDF forms.",
    );
}

fn home_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "list"]),
        step(&["search", "pdf"]),
        step(&["--json", "search", "forms"]),
    ]
}

fn trust_steps(lab: &Lab) -> Vec<Step> {
    let mut steps = home_steps(lab);
    steps.push(step(&["trust", "--list"]));
    steps.push(step(&["trust"]));
    steps
}

fn search_dir(lab: &Lab) -> PathBuf {
    folder_in(&lab.app().join("cache"), "search-")
}

// Runs: one run of a user skill, logged.

fn runs() -> Lab {
    let (tree, _) = crate::runtime::lab(&[("scripts/ok.sh", "echo ok\n")], None);
    let mut lab = Lab::new(tree);
    lab.seed(&["run", crate::runtime::SKILL, "scripts/ok.sh"]);
    let log = files_in(&lab.app().join("runs"), |name| name.ends_with(".jsonl"));
    lab.id = log[0].file_stem().unwrap().to_string_lossy().into_owned();
    lab
}

fn runs_steps(lab: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "runs"]),
        step(&["runs"]),
        step(&["logs", &lab.id]),
        step(&["--json", "cancel", &lab.id]),
        step(&["run", crate::runtime::SKILL, "scripts/ok.sh"]),
    ]
}

// The registry: a catalog served on loopback, cached by a first search.

fn registry() -> Lab {
    let server = Server::start().unwrap();
    let catalog = json!([
        {"name": "pdf-tools", "description": "Reads PDF forms.", "source": "acme", "category": "documents"},
        {"name": "csv-tools", "description": "Cleans CSV files.", "source": "acme", "category": "data"}
    ]);
    server.text("/catalog.json", &catalog.to_string());
    let mut lab = Lab::new(Tree::new());
    lab.env = vec![
        (
            "SKILLS_REGISTRY_CATALOG_URL".to_owned(),
            server.url("/catalog.json"),
        ),
        (ALLOW_LOCAL_HTTP.to_owned(), "1".to_owned()),
    ];
    lab._server = Some(server);
    lab.seed(&["--json", "registry", "search", "pdf"]);
    lab
}

fn registry_steps(_: &Lab) -> Vec<Step> {
    let mut refetch = step(&["--json", "registry", "search", "pdf"]);
    refetch
        .env
        .push(("SKILLS_REGISTRY_REFRESH_ON_BOOT".to_owned(), "1".to_owned()));
    vec![
        step(&["--json", "registry", "search", "pdf"]),
        step(&["--json", "registry", "browse"]),
        refetch,
    ]
}

// Remote packs: one pack on loopback, fetched once.

fn remote() -> Lab {
    let server = Server::start().unwrap();
    let pack = serve_pack(
        &server,
        "/pack",
        &[Skill::new(
            "team-style",
            "The team's style.",
            "Use tabs.",
            &[],
        )],
        "1.0.0",
    );
    let tree = Tree::new();
    tree.user_config(&format!("urls = [\"{pack}\"]\n"));
    let mut lab = Lab::new(tree);
    lab.env = vec![(ALLOW_LOCAL_HTTP.to_owned(), "1".to_owned())];
    lab._server = Some(server);
    lab.seed(&["--json", "update", "--remote"]);
    lab
}

fn remote_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "list", "--all"]),
        step(&["--json", "update", "--remote"]),
        step(&["--json", "list", "--scope", "remote"]),
    ]
}

fn remote_copy(lab: &Lab) -> PathBuf {
    folder_in(&lab.app().join("remote"), "")
}

// Installs: a pack installed into the user root; another pack to install next.

fn installed() -> Lab {
    let server = Server::start().unwrap();
    let pack = serve_pack(
        &server,
        "/pack",
        &[
            Skill::new("pdf-tools", "Reads PDF forms.", "Read them.", &[]),
            Skill::new("csv-tools", "Cleans CSV files.", "Clean them.", &[]),
        ],
        "1.0.0",
    );
    serve_pack(
        &server,
        "/other",
        &[Skill::new("style-guide", "House style.", "Be brief.", &[])],
        "1.0.0",
    );
    let mut lab = Lab::new(Tree::new());
    lab.env = vec![(ALLOW_LOCAL_HTTP.to_owned(), "1".to_owned())];
    lab.id = server.url("/other");
    lab._server = Some(server);
    lab.seed(&["--json", "install", &pack]);
    lab
}

fn install_steps(lab: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "list"]),
        step(&["--json", "install", &lab.id]),
        step(&["--json", "update"]),
        step(&["--json", "install", "--scope", "user"]),
        step(&["--json", "uninstall", "csv-tools"]),
    ]
}

// The vercel tool's project lock: a trusted workspace whose `skills-lock.json` lists a skill
// of a local folder, restored once.

fn vercel() -> Lab {
    let tree = Tree::new();
    tree.write(
        &tree.workspace.join("vendor/team-notes/SKILL.md"),
        "---\nname: team-notes\ndescription: Keeps team notes.\n---\nWrite them down.\n",
    );
    tree.write(
        &tree.workspace.join("skills-lock.json"),
        json!({"version": 1, "skills": {"team-notes": {
            "source": "vendor/team-notes", "sourceType": "local", "computedHash": "77c0"
        }}})
        .to_string(),
    );
    let lab = Lab::new(tree);
    lab.seed(&["trust"]);
    lab.seed(&["--json", "install"]);
    lab
}

fn vercel_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "install"]),
        step(&["--json", "install", "--frozen"]),
        step(&["--json", "list"]),
    ]
}

fn user_root(lab: &Lab) -> PathBuf {
    lab.tree.root(Place::UserAgents)
}

// Managed Node: an installed runtime, no node on `PATH`, and a distribution that answers
// nothing (a closed loopback port).

fn managed() -> Lab {
    let (tree, _) = crate::runtime::lab(&[("scripts/hello.js", "console.log('hi');\n")], None);
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    tree.user_config(&format!(
        "[runtime]\nmanaged_node = \"22\"\nnode_dist = \"http://127.0.0.1:{closed}/dist\"\n"
    ));
    let bin = tree.home.join(".openhuman/runtimes/node-v22.1.0/bin");
    // It says where it really is (links resolved): a runtime followed through a link would
    // show the place it points to.
    tree.write(
        &bin.join("node"),
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v22.1.0; exit 0; fi\n\
         cd \"${0%/*}\" && echo \"managed node in $(pwd -P)\"\n",
    );
    std::fs::set_permissions(bin.join("node"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let no_node = tree.base.join("no-node-here");
    std::fs::create_dir_all(&no_node).unwrap();
    let mut lab = Lab::new(tree);
    lab.env = vec![
        ("PATH".to_owned(), no_node.display().to_string()),
        (ALLOW_LOCAL_HTTP.to_owned(), "1".to_owned()),
    ];
    lab.seed(&["--json", "runtimes"]);
    lab
}

fn managed_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "runtimes"]),
        step(&["run", crate::runtime::SKILL, "scripts/hello.js"]),
    ]
}

// npm: the npm fixture skill, whose `ci` makes npm's cache.

fn npm() -> Lab {
    let (tree, _) = crate::runtime::npm::npm_lab("");
    let lab = Lab::new(tree);
    let run = crate::runtime::npm::npm(&lab.tree, &["ci"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    lab
}

fn npm_steps(_: &Lab) -> Vec<Step> {
    let registry = format!("http://127.0.0.1:{}/", crate::runtime::npm::closed_port());
    let mut ci = step(&["run", crate::runtime::SKILL, "--yes", "--npm", "ci"]);
    ci.env.push(("npm_config_registry".to_owned(), registry));
    vec![ci]
}

// Skill environments: the npm skill of `runtime/setup.rs`, set up once (npm installs a
// tarball from inside the skill, offline); its run falls back to "no environment" when the
// environment cannot be used, so a trap never makes it fail.

fn environment() -> Lab {
    let (tree, _) = crate::runtime::setup::greeter_lab();
    let mut lab = Lab::new(tree);
    lab.env = vec![(
        "npm_config_registry".to_owned(),
        format!("http://127.0.0.1:{}/", crate::runtime::npm::closed_port()),
    )];
    lab.seed(&["setup", "greeter"]);
    lab
}

/// The skill's place in `runtimes/envs/`.
fn environment_place(lab: &Lab) -> PathBuf {
    folder_in(&lab.app().join("runtimes/envs"), "greeter-")
}

fn environment_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "setup", "greeter"]),
        step(&["run", "greeter", "scripts/maybe.js"]),
    ]
}

fn environment_lock_steps(_: &Lab) -> Vec<Step> {
    vec![step(&["--json", "setup", "greeter", "--force"])]
}

// Interpreter versions: a Python run with the interpreter's binary configured (a launcher
// script such as a pyenv shim is never remembered).

fn versions() -> Lab {
    let (tree, _) = crate::runtime::lab(&[("scripts/hello.py", "print('hi')\n")], None);
    let python = crate::runtime::real_python();
    tree.user_config(&format!("[runtime]\npython = \"{}\"\n", python.display()));
    let lab = Lab::new(tree);
    lab.seed(&["run", crate::runtime::SKILL, "scripts/hello.py"]);
    lab
}

fn versions_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "runtimes"]),
        step(&["run", crate::runtime::SKILL, "scripts/hello.py"]),
    ]
}

// The audit's acceptances: a skill with a finding, accepted once.

fn accepted() -> Lab {
    let tree = Tree::new();
    tree.write(
        &tree.root(Place::UserAgents).join("hiding/SKILL.md"),
        "---\nname: hiding\ndescription: Hides things.\n---\nRead the \u{202e}invoice.\n",
    );
    let lab = Lab::new(tree);
    lab.seed(&["audit", "--accept", "hiding"]);
    lab.seed(&["audit", "hiding"]);
    lab
}

fn accepted_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "audit", "hiding"]),
        step(&["audit"]),
        step(&["audit", "--accept", "hiding"]),
    ]
}

// The audit's verdicts: a flagged skill audited once, then listed, shown and re-checked.

fn verdicts() -> Lab {
    let tree = Tree::new();
    tree.write(
        &tree.root(Place::UserAgents).join("hiding/SKILL.md"),
        "---\nname: hiding\ndescription: Hides things.\n---\nRead the \u{202e}invoice.\n",
    );
    let lab = Lab::new(tree);
    // Flagged at high: the seed must succeed, so it fails only on critical.
    lab.seed(&["audit", "--fail-on", "critical", "hiding"]);
    lab
}

fn verdicts_steps(_: &Lab) -> Vec<Step> {
    vec![
        step(&["--json", "list"]),
        step(&["show", "hiding"]),
        step(&["audit", "--fail-on", "critical", "hiding"]),
        step(&["check"]),
    ]
}

/// The rows: one per kind of `skills_ops::state::KINDS`.
const ROWS: &[Row] = &[
    Row {
        kind: "audit-verdicts",
        build: verdicts,
        instances: |lab| vec![lab.app().join("audit-verdicts.json")],
        before: nothing,
        steps: verdicts_steps,
    },
    Row {
        kind: "audit-accepted",
        build: accepted,
        instances: |lab| vec![lab.app().join("audit-accepted.json")],
        before: nothing,
        steps: accepted_steps,
    },
    Row {
        kind: "interpreter-versions",
        build: versions,
        instances: |lab| vec![lab.app().join("cache/interpreters.json")],
        before: nothing,
        steps: versions_steps,
    },
    Row {
        kind: "trust-record",
        build: home,
        instances: |lab| vec![lab.app().join("trusted-workspaces.json")],
        before: edit_a_skill,
        steps: trust_steps,
    },
    Row {
        kind: "catalog-cache",
        build: home,
        instances: |lab| {
            files_in(&lab.app().join("cache"), |name| {
                name.starts_with("catalog-")
            })
        },
        before: edit_a_skill,
        steps: home_steps,
    },
    Row {
        kind: "search-stamps",
        build: home,
        instances: |lab| vec![search_dir(lab).join("stamps.json")],
        before: edit_a_skill,
        steps: home_steps,
    },
    Row {
        kind: "search-meta",
        build: home,
        instances: |lab| {
            let dir = search_dir(lab);
            vec![dir.join("meta.json"), dir.join(".managed.json")]
        },
        before: edit_a_skill,
        steps: home_steps,
    },
    Row {
        kind: "search-segment",
        build: home,
        instances: |lab| {
            let mut found = files_in(&search_dir(lab), |name| {
                !name.ends_with(".json") && !name.ends_with(".lock")
            });
            // One of each kind of segment file, in an order that does not depend on its id.
            found.sort_by_key(|path| path.extension().map(|extension| extension.to_owned()));
            found
        },
        before: edit_a_skill,
        steps: home_steps,
    },
    Row {
        kind: "search-lock",
        build: home,
        instances: |lab| {
            let dir = search_dir(lab);
            vec![
                dir.join(".tantivy-writer.lock"),
                dir.join(".tantivy-meta.lock"),
            ]
        },
        before: edit_a_skill,
        steps: home_steps,
    },
    Row {
        kind: "run-log",
        build: runs,
        instances: |lab| vec![lab.app().join("runs").join(format!("{}.jsonl", lab.id))],
        before: nothing,
        steps: runs_steps,
    },
    Row {
        kind: "cancel-marker",
        build: runs,
        instances: |lab| vec![lab.app().join("runs").join(format!("{}.cancel", lab.id))],
        before: nothing,
        steps: runs_steps,
    },
    Row {
        kind: "registry-header",
        build: registry,
        instances: |lab| vec![lab.app().join("skill-registry/cache.json")],
        before: nothing,
        steps: registry_steps,
    },
    Row {
        kind: "registry-data",
        build: registry,
        instances: |lab| {
            files_in(&lab.app().join("skill-registry"), |name| {
                name.starts_with("catalog-")
            })
        },
        before: nothing,
        steps: registry_steps,
    },
    Row {
        kind: "registry-lock",
        build: registry,
        instances: |lab| vec![lab.app().join("skill-registry/.refresh.lock")],
        before: nothing,
        steps: registry_steps,
    },
    Row {
        kind: "remote-state",
        build: remote,
        instances: |lab| vec![remote_copy(lab).join("state.json")],
        before: nothing,
        steps: remote_steps,
    },
    Row {
        kind: "remote-copy",
        build: remote,
        instances: |lab| vec![remote_copy(lab).join("skills")],
        before: nothing,
        steps: remote_steps,
    },
    Row {
        kind: "remote-lock",
        build: remote,
        instances: |lab| vec![lab.app().join("remote/.skills-install.lock")],
        before: nothing,
        steps: remote_steps,
    },
    Row {
        kind: "managed-runtime",
        build: managed,
        instances: |lab| vec![lab.app().join("runtimes/node-v22.1.0")],
        before: nothing,
        steps: managed_steps,
    },
    Row {
        kind: "npm-cache",
        build: npm,
        instances: |lab| vec![lab.app().join("runtimes/npm-cache")],
        before: nothing,
        steps: npm_steps,
    },
    Row {
        kind: "skill-env-record",
        build: environment,
        instances: |lab| vec![environment_place(lab).join("setup.json")],
        before: nothing,
        steps: environment_steps,
    },
    Row {
        kind: "skill-env",
        build: environment,
        instances: |lab| vec![folder_in(&environment_place(lab), "env-")],
        before: nothing,
        steps: environment_steps,
    },
    Row {
        kind: "skill-env-lock",
        build: environment,
        instances: |lab| vec![environment_place(lab).join(".setup.lock")],
        before: nothing,
        steps: environment_lock_steps,
    },
    Row {
        kind: "install-record",
        build: installed,
        instances: |lab| vec![user_root(lab).join(".skills-installed.json")],
        before: nothing,
        steps: install_steps,
    },
    Row {
        kind: "legacy-install-record",
        build: installed,
        instances: |lab| vec![user_root(lab).join("skills-lock.json")],
        before: nothing,
        steps: install_steps,
    },
    Row {
        kind: "install-lock",
        build: installed,
        instances: |lab| vec![user_root(lab).join(".skills-install.lock")],
        before: nothing,
        steps: install_steps,
    },
    Row {
        kind: "vercel-lock",
        build: vercel,
        instances: |lab| vec![lab.tree.workspace.join("skills-lock.json")],
        before: nothing,
        steps: vercel_steps,
    },
    Row {
        kind: "provenance",
        build: installed,
        instances: |lab| vec![user_root(lab).join("pdf-tools/.skill-source.json")],
        before: nothing,
        steps: install_steps,
    },
];

/// The memory bound reads the program itself: a running `skills` (a server waiting on its
/// input) is seen with a peak, and a status of another program is not taken for it.
#[test]
fn the_memory_bound_sees_the_program() {
    let mut child = skills_tests::skills()
        .args(["mcp", "--no-scripts"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    let seen = loop {
        let seen = std::fs::read_to_string(&status)
            .ok()
            .and_then(|text| program_peak(&text).map(|(_, peak)| peak));
        if seen.is_some() || started.elapsed() > WATCHDOG {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen.is_some_and(|peak| peak > 0), "{seen:?}");
    let harness = "Name:\tit-0123456789ab\nVmHWM:\t  333332 kB\n";
    assert_eq!(program_peak(harness), None);
    let program = "Name:\tskills\nVmHWM:\t  4096 kB\n";
    assert_eq!(program_peak(program), Some(("skills", 4096)));
}

#[test]
fn every_kind_of_state_file_has_a_row() {
    let mut kinds: Vec<&str> = KINDS.iter().map(|kind| kind.id).collect();
    let mut rows: Vec<&str> = ROWS.iter().map(|row| row.kind).collect();
    kinds.sort_unstable();
    rows.sort_unstable();
    assert_eq!(
        rows, kinds,
        "every kind of state file, and nothing else, has a row here"
    );
}

/// One test per row, so the rows run in parallel and a failure names its kind.
macro_rules! rows {
    ($($test:ident => $kind:literal,)*) => {
        $(
            #[test]
            fn $test() {
                walk($kind);
            }
        )*
    };
}

rows! {
    the_trust_record => "trust-record",
    the_catalog_cache => "catalog-cache",
    the_search_stamps => "search-stamps",
    the_search_records => "search-meta",
    the_search_segments => "search-segment",
    the_search_locks => "search-lock",
    a_run_log => "run-log",
    a_cancel_marker => "cancel-marker",
    the_registry_header => "registry-header",
    the_registry_data => "registry-data",
    the_registry_lock => "registry-lock",
    a_remote_fetch_record => "remote-state",
    a_remote_copy => "remote-copy",
    the_remote_lock => "remote-lock",
    a_managed_runtime => "managed-runtime",
    the_npm_cache => "npm-cache",
    a_skill_environment_record => "skill-env-record",
    a_skill_environment => "skill-env",
    a_skill_environment_lock => "skill-env-lock",
    the_install_record => "install-record",
    the_legacy_install_record => "legacy-install-record",
    the_install_lock => "install-lock",
    a_provenance_record => "provenance",
    the_interpreter_versions => "interpreter-versions",
    the_vercel_lock => "vercel-lock",
    the_audit_acceptances => "audit-accepted",
    the_audit_verdicts => "audit-verdicts",
}
