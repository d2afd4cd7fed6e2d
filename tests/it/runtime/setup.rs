//! `skills setup NAME` and `run --setup` (issue 30 §11) through the built binary, with the
//! machine's real `python3` (its `venv` and `pip`) and `npm`, and no registry: the Python
//! package is a wheel this file writes (a stand-in `pypdf`, pure Python), found through pip's
//! own configuration variables (`PIP_NO_INDEX`, `PIP_FIND_LINKS`, or `PIP_INDEX_URL` at a
//! loopback simple index this file serves); the npm package is a tarball inside the skill.
//!
//! The skill is modelled on Anthropic's `pdf` skill (a `SKILL.md`, `scripts/
//! check_fillable_fields.py` importing `pypdf`), with content written here. Every command
//! runs with the inherited `PIP_*` and `npm_config_*` variables removed and pip's
//! configuration files off (`PIP_CONFIG_FILE=/dev/null`), so only what a test sets reaches the
//! package managers; npm's registry is a closed loopback port.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use serde_json::Value;
use sha2::Digest as _;
use skills_tests::http::{Reply, Server};

use super::sandbox::kernel_abi;
use super::{add_skill, listing, log_files, records};
use crate::discovery::{Place, Run, Tree};

/// The lowest Landlock ABI the default policy (network `deny`) runs under.
const NET_ABI: u8 = 4;

/// The skill, as Anthropic's `pdf` names it.
const PDF: &str = "pdf";

/// The script, in the shape of the `pdf` skill's own: reads a PDF with `pypdf` and says
/// whether it has form fields.
const CHECK_FIELDS: &str = "import sys\nfrom pypdf import PdfReader\n\n\
reader = PdfReader(sys.argv[1])\nif reader.get_fields():\n    \
print(\"This PDF has fillable form fields\")\nelse:\n    \
print(\"This PDF does not have fillable form fields\")\n";

/// The same script declaring its dependency inline (PEP 723).
const CHECK_FIELDS_INLINE: &str = "# /// script\n# requires-python = \">=3.8\"\n\
# dependencies = [\n#   \"pypdf>=9\",\n# ]\n# ///\n";

/// The stand-in `pypdf` the wheel holds: a `PdfReader` whose fields are found by a marker.
const FAKE_PYPDF: &str = "\"\"\"A stand-in for pypdf, written by the test.\"\"\"\n\n\
class PdfReader:\n    def __init__(self, path):\n        with open(path, 'rb') as file:\n            \
self.data = file.read()\n\n    def get_fields(self):\n        \
return {'Text1': 'x'} if b'/AcroForm' in self.data else None\n";

/// The wheel's file name.
const WHEEL: &str = "pypdf-9.9.0-py3-none-any.whl";

/// A pure-Python wheel of `pypdf` 9.9.0 holding [`FAKE_PYPDF`], with its `RECORD` hashes.
fn wheel() -> Vec<u8> {
    let dist = "pypdf-9.9.0.dist-info";
    let files = [
        ("pypdf/__init__.py".to_owned(), FAKE_PYPDF.to_owned()),
        (
            format!("{dist}/METADATA"),
            "Metadata-Version: 2.1\nName: pypdf\nVersion: 9.9.0\nSummary: A stand-in\n".to_owned(),
        ),
        (
            format!("{dist}/WHEEL"),
            "Wheel-Version: 1.0\nGenerator: skills-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
                .to_owned(),
        ),
    ];
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut record = String::new();
    for (name, text) in &files {
        writer.start_file(name.as_str(), options).unwrap();
        writer.write_all(text.as_bytes()).unwrap();
        let digest = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(text.as_bytes()));
        record.push_str(&format!("{name},sha256={digest},{}\n", text.len()));
    }
    record.push_str(&format!("{dist}/RECORD,,\n"));
    writer
        .start_file(format!("{dist}/RECORD"), options)
        .unwrap();
    writer.write_all(record.as_bytes()).unwrap();
    writer.finish().unwrap().into_inner()
}

/// The home's `[runtime]` for these tests: `extra`, and the sandbox off on a kernel without
/// the Landlock ABI the defaults need (the sandbox tests assert the refusal there).
fn runtime_config(extra: &str) -> String {
    let sandbox = if kernel_abi() < NET_ABI {
        "sandbox = \"off\"\n"
    } else {
        ""
    };
    format!("[runtime]\n{sandbox}{extra}")
}

/// Whether runs here are sandboxed (the kernel has what the defaults need).
fn sandboxed() -> bool {
    kernel_abi() >= NET_ABI
}

/// A tree with the `pdf` skill (`script` as its `check_fillable_fields.py`, and
/// `requirements` as its `requirements.txt` when given), a form in the workspace, and the
/// wheel in `<base>/wheels`. Returns the tree, the skill folder and the wheel folder.
fn pdf_lab(script: &str, requirements: Option<&str>, config: &str) -> (Tree, PathBuf, PathBuf) {
    let tree = Tree::new();
    let mut files = vec![("scripts/check_fillable_fields.py", script)];
    if let Some(requirements) = requirements {
        files.push(("requirements.txt", requirements));
    }
    let dir = add_skill(&tree, Place::UserOpenhuman, PDF, &files, None);
    tree.write(
        &dir.join("forms.md"),
        "# Filling forms\n\nRun the check first.\n",
    );
    tree.write(
        &tree.workspace.join("form.pdf"),
        "%PDF-1.4\n1 0 obj << /AcroForm 2 0 R >> endobj\n%%EOF\n",
    );
    tree.write(&tree.workspace.join("plain.pdf"), "%PDF-1.4\n%%EOF\n");
    let wheels = tree.base.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    std::fs::write(wheels.join(WHEEL), wheel()).unwrap();
    tree.user_config(&runtime_config(config));
    (tree, dir, wheels)
}

/// `skills ARGS` in `tree` with only `env` of pip's and npm's variables (see the module
/// documentation).
fn skills(tree: &Tree, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = super::command(tree, args);
    clean_package_managers(&mut command);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Removes the inherited `PIP_*` and `npm_config_*` variables and turns pip's configuration
/// files off; npm's registry is a closed port.
fn clean_package_managers(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("PIP_") || name.to_ascii_lowercase().starts_with("npm_config_") {
            command.env_remove(name);
        }
    }
    command
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env(
            "npm_config_registry",
            format!("http://127.0.0.1:{}/", super::npm::closed_port()),
        );
}

/// pip pointed at the wheel folder only.
fn wheel_folder(wheels: &Path) -> [(&'static str, String); 2] {
    [
        ("PIP_NO_INDEX", "1".to_owned()),
        ("PIP_FIND_LINKS", wheels.display().to_string()),
    ]
}

fn pairs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}

/// `--json run pdf scripts/check_fillable_fields.py -- FORM`.
fn check(tree: &Tree, form: &str) -> Run {
    skills(
        tree,
        &[
            "--json",
            "run",
            PDF,
            "scripts/check_fillable_fields.py",
            "--",
            form,
        ],
        &[],
    )
}

/// The JSON document a command printed on stdout, whatever its status.
fn document(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|error| panic!("{error}: {run:?}"))
}

/// The one hint of `kind` in a run's JSON outcome.
fn hint<'a>(outcome: &'a Value, kind: &str) -> &'a Value {
    outcome["hints"]
        .as_array()
        .and_then(|hints| hints.iter().find(|hint| hint["kind"] == kind))
        .unwrap_or_else(|| panic!("no {kind} hint: {outcome}"))
}

/// The `env-*` folders of the skill's environment.
fn environments(tree: &Tree) -> Vec<PathBuf> {
    let envs = tree.home.join(".openhuman/runtimes/envs");
    let mut found = Vec::new();
    for place in std::fs::read_dir(&envs).into_iter().flatten() {
        for entry in std::fs::read_dir(place.unwrap().path()).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("env-")
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn setup_installs_the_requirements_from_a_wheel_folder_and_runs_use_them() {
    let (tree, dir, wheels) = pdf_lab(
        CHECK_FIELDS,
        Some("# what the scripts import\npypdf>=9\n"),
        // No network at all: the wheel folder is all pip gets.
        "setup_network = \"deny\"\n",
    );
    let skill_before = listing(&dir);

    // Before: the script fails on its import, and the run says how to set the skill up.
    let run = check(&tree, "form.pdf");
    assert_eq!(run.code, Some(1), "{run:?}");
    let outcome = document(&run);
    assert!(
        outcome["stderr"]
            .as_str()
            .unwrap()
            .contains("No module named 'pypdf'"),
        "{outcome}"
    );
    let missing = hint(&outcome, "missing_module");
    assert_eq!(missing["subject"], "pypdf", "{missing}");
    assert_eq!(missing["remedy"], "skills setup pdf", "{missing}");
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("which the skill declares"),
        "{missing}"
    );
    // The human form says it too, under the script's error.
    let shown = skills(
        &tree,
        &[
            "run",
            PDF,
            "scripts/check_fillable_fields.py",
            "--",
            "form.pdf",
        ],
        &[],
    );
    assert!(
        shown
            .stderr
            .contains("hint: the script needs the Python module 'pypdf'"),
        "{shown:?}"
    );

    let env = wheel_folder(&wheels);
    let set_up = skills(&tree, &["--json", "setup", PDF], &pairs(&env));
    assert_eq!(set_up.code, Some(0), "{set_up:?}");
    let outcome = document(&set_up);
    assert_eq!(outcome["status"], "set_up", "{outcome}");
    assert_eq!(outcome["requirements"], serde_json::json!(["pypdf>=9"]));
    assert_eq!(
        outcome["declared_in"],
        serde_json::json!(["requirements.txt"])
    );
    let place = PathBuf::from(outcome["environment"].as_str().unwrap());
    assert!(
        place.starts_with(tree.home.join(".openhuman/runtimes/envs")),
        "{}",
        place.display()
    );
    // Two steps, each a run under the home's sandbox with the setup's network rule.
    let steps = outcome["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{outcome}");
    for step in steps {
        assert_eq!(step["status"], "succeeded", "{step}");
        if sandboxed() {
            assert_eq!(step["sandbox"], "workspace-write", "{step}");
            assert_eq!(step["network"], "deny", "{step}");
        }
    }
    let installed: Vec<String> = listing(&place.join("python"))
        .into_iter()
        .filter(|path| path.ends_with("site-packages/pypdf/__init__.py"))
        .collect();
    assert_eq!(installed.len(), 1, "{:?}", listing(&place));
    // Nothing was written into the skill.
    assert_eq!(listing(&dir), skill_before);

    // Runs use the environment's interpreter now.
    let run = check(&tree, "form.pdf");
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        document(&run)["stdout"],
        "This PDF has fillable form fields\n",
        "{run:?}"
    );
    let plain = check(&tree, "plain.pdf");
    assert_eq!(
        document(&plain)["stdout"],
        "This PDF does not have fillable form fields\n",
        "{plain:?}"
    );
    let logs = log_files(&tree);
    let last = logs
        .iter()
        .map(|log| records(log).remove(0))
        .filter(|start| start["target"] == "script scripts/check_fillable_fields.py")
        .max_by_key(|start| start["started_at"].as_str().unwrap().to_owned())
        .unwrap();
    assert_eq!(
        last["interpreter"],
        place.join("python/bin/python3").display().to_string(),
        "{last}"
    );

    // Set up again: nothing to do, nothing run.
    let again = skills(&tree, &["--json", "setup", PDF], &pairs(&env));
    assert_eq!(again.code, Some(0), "{again:?}");
    assert_eq!(document(&again)["status"], "up_to_date", "{again:?}");
    assert_eq!(log_files(&tree).len(), logs.len());
    assert_eq!(environments(&tree), std::slice::from_ref(&place));

    // Forced, it is made again in a new folder, and the old one goes.
    let forced = skills(&tree, &["--json", "setup", PDF, "--force"], &pairs(&env));
    assert_eq!(document(&forced)["status"], "set_up", "{forced:?}");
    let now = environments(&tree);
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(now[0], place);
    assert_eq!(check(&tree, "form.pdf").code, Some(0));
}

#[test]
fn run_with_setup_installs_what_a_script_declares_inline() {
    let script = format!("{CHECK_FIELDS_INLINE}{CHECK_FIELDS}");
    let (tree, _, wheels) = pdf_lab(&script, None, "setup_network = \"deny\"\n");
    let env = wheel_folder(&wheels);
    let run = skills(
        &tree,
        &[
            "run",
            PDF,
            "scripts/check_fillable_fields.py",
            "--setup",
            "--",
            "form.pdf",
        ],
        &pairs(&env),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.ends_with("This PDF has fillable form fields\n"),
        "{run:?}"
    );
    assert!(
        run.stderr.contains("set up 'pdf'")
            && run.stderr.contains("scripts/check_fillable_fields.py"),
        "{run:?}"
    );
    // A second `--setup` finds it set up and only runs.
    let logs = log_files(&tree).len();
    let again = skills(
        &tree,
        &[
            "run",
            PDF,
            "scripts/check_fillable_fields.py",
            "--setup",
            "--",
            "plain.pdf",
        ],
        &pairs(&env),
    );
    assert_eq!(again.code, Some(0), "{again:?}");
    assert_eq!(log_files(&tree).len(), logs + 1);
}

/// Anthropic's own `pdf` declares nothing: its scripts import `pypdf` and its SKILL.md says
/// to install it. The user gives the skill the package by name.
#[test]
fn a_skill_that_declares_nothing_is_given_a_package_by_the_user() {
    let (tree, _, wheels) = pdf_lab(CHECK_FIELDS, None, "setup_network = \"deny\"\n");
    let outcome = document(&check(&tree, "form.pdf"));
    let missing = hint(&outcome, "missing_module");
    assert_eq!(
        missing["remedy"], "skills setup pdf --package pypdf",
        "{missing}"
    );
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("declares no Python dependencies"),
        "{missing}"
    );

    let env = wheel_folder(&wheels);
    let nothing = skills(&tree, &["setup", PDF], &pairs(&env));
    assert_eq!(nothing.code, Some(1), "{nothing:?}");
    assert!(
        nothing.stderr.contains("declares no dependencies"),
        "{nothing:?}"
    );
    assert!(environments(&tree).is_empty());

    // Where packages come from is pip's configuration, never a package argument.
    for hostile in [
        "--index-url=http://127.0.0.1:1/simple",
        "pypdf @ http://127.0.0.1:1/x.whl",
    ] {
        let package = format!("--package={hostile}");
        let refused = skills(&tree, &["setup", PDF, &package], &pairs(&env));
        assert_eq!(refused.code, Some(1), "{hostile}: {refused:?}");
        assert!(refused.stderr.contains("--package"), "{refused:?}");
        assert!(environments(&tree).is_empty(), "{refused:?}");
    }

    let given = skills(
        &tree,
        &["--json", "setup", PDF, "--package", "pypdf"],
        &pairs(&env),
    );
    assert_eq!(given.code, Some(0), "{given:?}");
    assert_eq!(
        document(&given)["declared_in"],
        serde_json::json!(["--package"])
    );
    assert_eq!(check(&tree, "form.pdf").code, Some(0));
    // The package is kept for later setups.
    let again = skills(&tree, &["--json", "setup", PDF], &pairs(&env));
    assert_eq!(document(&again)["status"], "up_to_date", "{again:?}");
    assert_eq!(
        document(&again)["requirements"],
        serde_json::json!(["pypdf"])
    );
}

/// A PEP 503 simple index of the one wheel, on loopback.
fn index(wheel: &[u8]) -> Server {
    let server = Server::start().unwrap();
    let digest = format!("{:x}", sha2::Sha256::digest(wheel));
    let html = |body: String| Reply::Full {
        status: 200,
        headers: vec![("Content-Type".to_owned(), "text/html".to_owned())],
        body: body.into_bytes(),
    };
    server.route(
        "/simple/pypdf/",
        html(format!(
            "<!DOCTYPE html><html><body><a href=\"/files/{WHEEL}#sha256={digest}\">{WHEEL}</a></body></html>"
        )),
    );
    server.route(&format!("/files/{WHEEL}"), Reply::Ok(wheel.to_vec()));
    server
}

/// Connects to the URL in argv[1]; exits 1 with the error.
const FETCH_PY: &str = "import sys, urllib.request\nurllib.request.urlopen(sys.argv[1], timeout=5)\nprint('fetched')\n";

#[test]
fn the_network_is_open_for_the_setup_alone_and_only_when_the_home_allows_it() {
    let (tree, dir, _) = pdf_lab(CHECK_FIELDS, Some("pypdf>=9\n"), "");
    tree.write(&dir.join("scripts/fetch.py"), FETCH_PY);
    let server = index(&wheel());
    let env = [
        ("PIP_INDEX_URL", server.url("/simple/")),
        // One retry: pip says why a fetch failed only when it retries.
        ("PIP_RETRIES", "1".to_owned()),
        ("PIP_TIMEOUT", "5".to_owned()),
        ("NO_PROXY", "127.0.0.1".to_owned()),
    ];

    // `setup_network` is `allow` by default: pip reaches the index.
    let set_up = skills(&tree, &["--json", "setup", PDF], &pairs(&env));
    assert_eq!(set_up.code, Some(0), "{set_up:?}");
    let targets = server.targets();
    assert!(
        targets.contains(&"/simple/pypdf/".to_owned()),
        "{targets:?}"
    );
    assert!(targets.contains(&format!("/files/{WHEEL}")), "{targets:?}");
    let place = environments(&tree);
    assert_eq!(check(&tree, "form.pdf").code, Some(0));
    if !sandboxed() {
        return;
    }
    // A run of the same skill keeps `network = "deny"`: it cannot reach the same server.
    let connections = server.connections();
    let url = server.url("/simple/");
    let fetch = skills(
        &tree,
        &["--json", "run", PDF, "scripts/fetch.py", "--", &url],
        &[],
    );
    assert_eq!(fetch.code, Some(1), "{fetch:?}");
    let refused = hint(&document(&fetch), "sandbox_network").clone();
    assert_eq!(
        refused["remedy"], "[runtime] network = \"allow\"",
        "{refused}"
    );
    assert_eq!(server.connections(), connections);

    // With `setup_network = "deny"` in the home, the setup cannot reach it either: it fails,
    // saying which setting allows it, and the environment in use stays as it was.
    tree.user_config(&runtime_config("setup_network = \"deny\"\n"));
    let denied = skills(&tree, &["--json", "setup", PDF, "--force"], &pairs(&env));
    assert_eq!(denied.code, Some(1), "{denied:?}");
    let outcome = document(&denied);
    assert_eq!(outcome["status"], "failed", "{outcome}");
    let last = outcome["steps"].as_array().unwrap().last().unwrap();
    let refused = hint(last, "sandbox_network");
    assert_eq!(
        refused["remedy"], "[runtime] setup_network = \"allow\"",
        "{refused}"
    );
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("setup_network = \"deny\""),
        "{refused}"
    );
    assert_eq!(server.connections(), connections, "{:?}", server.targets());
    assert_eq!(environments(&tree), place);
    assert_eq!(check(&tree, "form.pdf").code, Some(0));
    // The human form names it too.
    let shown = skills(&tree, &["setup", PDF, "--force"], &pairs(&env));
    assert!(
        shown.stderr.contains("setting up 'pdf' failed"),
        "{shown:?}"
    );
    assert!(
        shown.stderr.contains("setup_network = \"allow\""),
        "{shown:?}"
    );
}

/// A gzipped npm package tarball (`package/...`) of `greet` 1.0.0.
fn greet_tarball() -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, body) in [
        (
            "package/package.json",
            "{\"name\": \"greet\", \"version\": \"1.0.0\", \"main\": \"index.js\"}\n",
        ),
        (
            "package/index.js",
            "module.exports = (name) => `hello, ${name}`;\n",
        ),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_path(path).unwrap();
        header.set_mode(0o644);
        header.set_size(body.len() as u64);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, body.as_bytes()).unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&tar).unwrap();
    encoder.finish().unwrap()
}

/// The npm skill: a `package.json` whose dependency is a tarball inside the skill, a
/// CommonJS script and an ES module script that use it.
pub(crate) fn greeter_lab() -> (Tree, PathBuf) {
    let tree = Tree::new();
    let dir = add_skill(
        &tree,
        Place::UserOpenhuman,
        "greeter",
        &[
            (
                "package.json",
                "{\"name\": \"greeter\", \"private\": true,\n \"scripts\": {\"postinstall\": \"node -e \\\"require('fs').writeFileSync('postinstall-ran', 'yes')\\\"\"},\n \"dependencies\": {\"greet\": \"file:vendor/greet-1.0.0.tgz\"},\n \"devDependencies\": {\"left-pad\": \"^1.3.0\"}}\n",
            ),
            (
                "scripts/hello.js",
                "console.log(require('greet')('setup'));\n",
            ),
            (
                "scripts/hello.mjs",
                "import greet from 'greet';\nconsole.log(greet('module'));\n",
            ),
            (
                "scripts/maybe.js",
                "let said = 'no environment';\ntry { said = require('greet')('env'); } catch {}\nconsole.log(said);\n",
            ),
        ],
        None,
    );
    std::fs::create_dir_all(dir.join("vendor")).unwrap();
    std::fs::write(dir.join("vendor/greet-1.0.0.tgz"), greet_tarball()).unwrap();
    tree.user_config(&runtime_config("setup_network = \"deny\"\n"));
    (tree, dir)
}

/// `skills ARGS` for the npm skill (npm's registry a closed port).
pub(crate) fn greeter(tree: &Tree, args: &[&str]) -> Run {
    skills(tree, args, &[])
}

#[test]
fn npm_dependencies_install_into_the_environment_and_node_runs_find_them() {
    let (tree, dir) = greeter_lab();
    let skill_before = listing(&dir);
    let before = greeter(&tree, &["--json", "run", "greeter", "scripts/hello.js"]);
    assert_eq!(before.code, Some(1), "{before:?}");
    let missing = hint(&document(&before), "missing_module").clone();
    assert_eq!(missing["subject"], "greet", "{missing}");
    assert_eq!(missing["remedy"], "skills setup greeter", "{missing}");

    let set_up = greeter(&tree, &["--json", "setup", "greeter"]);
    assert_eq!(set_up.code, Some(0), "{set_up:?}");
    let outcome = document(&set_up);
    assert_eq!(outcome["declared_in"], serde_json::json!(["package.json"]));
    let dependencies = outcome["node_dependencies"].as_array().unwrap();
    assert_eq!(dependencies.len(), 1, "{outcome}");
    assert!(
        dependencies[0]
            .as_str()
            .unwrap()
            .starts_with(&format!("greet@file:{}", dir.display())),
        "{outcome}"
    );
    let place = PathBuf::from(outcome["environment"].as_str().unwrap());
    assert!(place.join("node/node_modules/greet/index.js").is_file());
    // Development dependencies are not a script's, and install scripts stay off.
    assert!(!place.join("node/node_modules/left-pad").exists());
    assert!(!place.join("node/postinstall-ran").exists());
    // The skill folder is as it was: no node_modules, no lock file written into it.
    assert_eq!(listing(&dir), skill_before);

    let run = greeter(&tree, &["run", "greeter", "scripts/hello.js"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "hello, setup\n");

    // An ES module import does not read NODE_PATH; the hint says so, not "set it up".
    let module = greeter(&tree, &["--json", "run", "greeter", "scripts/hello.mjs"]);
    assert_eq!(module.code, Some(1), "{module:?}");
    let esm = hint(&document(&module), "missing_module").clone();
    assert!(
        esm["message"].as_str().unwrap().contains("NODE_PATH"),
        "{esm}"
    );
}
