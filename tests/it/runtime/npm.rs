//! The `Npm` target and managed Node (07 §What a run is, §Runtimes), through the built binary.
//!
//! The npm tests run the real `npm` of this machine on the fixture `npm-skill/`: a package
//! whose one dependency is a local `file:` folder (`vendor/greet`), with a lock file made once
//! by `npm install --package-lock-only --ignore-scripts --offline`, and a `postinstall` that
//! would leave a marker. They run under the default policy (`workspace-write`, `network =
//! "deny"`), and every one also points `npm_config_registry` at a closed loopback port: should
//! the code ever let npm look for a registry, it finds nothing there, never the internet.
//!
//! The managed-Node tests serve a tiny fake distribution (an `index.json`, a
//! `SHASUMS256.txt` and a tarball whose `bin/node` is a shell script) from a loopback server
//! the test starts, and run with a `PATH` that holds no node.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::Digest as _;
use skills_tests::http::{Reply, Server};

use super::{SKILL, lab, log_files};
use crate::discovery::{Run, Tree};

/// The fixture skill, beside this file.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("it/runtime/npm-skill")
}

/// Copies the fixture's files into `dir`.
fn copy_fixture(dir: &Path) {
    let mut stack = vec![fixture()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(fixture()).unwrap();
            if path.is_dir() {
                std::fs::create_dir_all(dir.join(relative)).unwrap();
                stack.push(path);
            } else {
                std::fs::copy(&path, dir.join(relative)).unwrap();
            }
        }
    }
}

/// A port on loopback that nothing listens on.
pub(crate) fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The user skill [`SKILL`] holding the npm fixture; the home configuration passes
/// `npm_config_registry` through (the second lock) plus `extra`.
pub(crate) fn npm_lab(extra: &str) -> (Tree, PathBuf) {
    let (tree, dir) = lab(&[], None);
    copy_fixture(&dir);
    tree.user_config(&format!(
        "[runtime]\npass_env = [\"npm_config_registry\"]\n{extra}"
    ));
    (tree, dir)
}

/// `skills run SKILL --npm ARGS... --yes`, with npm's registry a closed loopback port.
pub(crate) fn npm(tree: &Tree, args: &[&str]) -> Run {
    let registry = format!("http://127.0.0.1:{}/", closed_port());
    let mut all = vec!["run", SKILL, "--yes", "--npm"];
    all.extend_from_slice(args);
    tree.run_with(&all, &[("npm_config_registry", registry.as_str())])
}

#[test]
fn a_local_dependency_installs_with_ci_without_its_install_scripts_then_npm_test_passes() {
    let (tree, dir) = npm_lab("");
    let run = npm(&tree, &["ci"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let linked = dir.join("node_modules/greet");
    assert!(
        linked.join("index.js").is_file(),
        "npm ci installed the local dependency: {run:?}"
    );
    // `--ignore-scripts` was passed: neither the package's nor the dependency's
    // `postinstall` ran.
    assert!(!dir.join("postinstall-ran").exists(), "{run:?}");
    assert!(
        !dir.join("vendor/greet/postinstall-ran").exists(),
        "{run:?}"
    );
    // The start record says what ran, with the flags the runtime added.
    let logs = log_files(&tree);
    assert_eq!(logs.len(), 1);
    let start = &super::records(&logs[0])[0];
    assert_eq!(start["target"], "npm ci", "{start}");

    let run = npm(&tree, &["test"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("npm test passed: hello, npm"),
        "{run:?}"
    );
    // A run writes no npm log into the cache.
    let logs_dir = tree.home.join(".openhuman/runtimes/npm-cache/_logs");
    let npm_logs = std::fs::read_dir(&logs_dir).map_or(0, Iterator::count);
    assert!(
        npm_logs <= 1,
        "only the install may have logged: {npm_logs}"
    );
}

#[test]
fn install_scripts_run_only_when_the_home_configuration_allows_them() {
    let (tree, dir) = npm_lab("allow_install_scripts = true\n");
    let run = npm(&tree, &["ci"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    // The same fixture as above: its marker is what `--ignore-scripts` kept from appearing.
    assert_eq!(
        std::fs::read_to_string(dir.join("postinstall-ran")).unwrap(),
        "yes",
        "{run:?}"
    );
}

#[test]
fn a_registry_dependency_is_refused_under_network_deny_at_once_and_nothing_runs() {
    let (tree, dir) = npm_lab("");
    let package = std::fs::read_to_string(dir.join("package.json")).unwrap();
    let package = package.replace(
        "\"greet\": \"file:vendor/greet\"",
        "\"greet\": \"file:vendor/greet\",\n    \"left-pad\": \"^1.3.0\"",
    );
    assert!(package.contains("left-pad"));
    std::fs::write(dir.join("package.json"), package).unwrap();
    for subcommand in ["ci", "install"] {
        let started = Instant::now();
        let run = npm(&tree, &[subcommand]);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "refused, not hung"
        );
        assert_eq!(run.code, Some(1), "{run:?}");
        assert!(
            run.stderr.contains("left-pad")
                && run.stderr.contains("`[runtime] network = \"allow\"`"),
            "the message names the dependency and the setting: {run:?}"
        );
        assert!(log_files(&tree).is_empty(), "nothing was started");
        assert!(!dir.join("node_modules").exists());
    }
}

#[test]
fn a_lock_file_that_fetches_from_a_registry_is_refused_under_network_deny() {
    let (tree, dir) = npm_lab("");
    let lock = std::fs::read_to_string(dir.join("package-lock.json")).unwrap();
    let lock = lock.replace(
        "\"vendor/greet\": {",
        "\"vendor/greet/node_modules/left-pad\": {\n      \"version\": \"1.3.0\",\n      \"resolved\": \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz\"\n    },\n    \"vendor/greet\": {",
    );
    assert!(lock.contains("left-pad-1.3.0.tgz"));
    std::fs::write(dir.join("package-lock.json"), lock).unwrap();
    let run = npm(&tree, &["ci"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr
            .contains("package-lock.json installs 'vendor/greet/node_modules/left-pad'")
            && run.stderr.contains("network = \"deny\""),
        "{run:?}"
    );
    assert!(log_files(&tree).is_empty());
}

#[test]
fn npm_runs_are_refused_before_anything_starts_when_the_request_is_not_one_npm_may_do() {
    let cases: [(&[&str], &str); 6] = [
        (&["publish"], "'publish' is not one of them"),
        (&["exec", "rm"], "'exec' is not one of them"),
        (&["install", "left-pad"], "'left-pad' is not one of them"),
        (
            // The command line takes npm's flags after `--`, where a script's arguments go.
            &["ci", "--", "--ignore-scripts=false"],
            "'--ignore-scripts=false' is not one of them",
        ),
        (&["install", "--", "-g"], "'-g' is not one of them"),
        (
            &["run"],
            "needs the name of one of the package's scripts (it declares postinstall, test)",
        ),
    ];
    let (tree, dir) = npm_lab("");
    for (args, needle) in cases {
        let run = npm(&tree, args);
        assert_eq!(run.code, Some(1), "{args:?}: {run:?}");
        assert!(run.stderr.contains(needle), "{args:?}: {run:?}");
    }
    // A flag after `--` is still a flag of the install.
    let run = npm(&tree, &["ci", "--", "--registry=http://127.0.0.1:1/"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr
            .contains("'--registry=http://127.0.0.1:1/' is not one of them")
    );

    // An install under the read-only sandbox could write nothing.
    tree.user_config("[runtime]\npass_env = [\"npm_config_registry\"]\nsandbox = \"read-only\"\n");
    let run = npm(&tree, &["ci"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("sandbox = \"read-only\""), "{run:?}");
    tree.user_config("[runtime]\npass_env = [\"npm_config_registry\"]\n");

    // A project .npmrc could turn back on what the run turns off.
    std::fs::write(dir.join(".npmrc"), "ignore-scripts=false\n").unwrap();
    let run = npm(&tree, &["ci"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains(".npmrc"), "{run:?}");
    std::fs::remove_file(dir.join(".npmrc")).unwrap();

    // A local dependency outside the skill folder.
    let package = std::fs::read_to_string(dir.join("package.json")).unwrap();
    std::fs::write(
        dir.join("package.json"),
        package.replace("file:vendor/greet", "file:../../elsewhere"),
    )
    .unwrap();
    let run = npm(&tree, &["ci"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains("not a path inside the skill folder"),
        "{run:?}"
    );

    // No package.json at all.
    std::fs::remove_file(dir.join("package.json")).unwrap();
    let run = npm(&tree, &["test"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("package.json"), "{run:?}");
    assert!(log_files(&tree).is_empty(), "nothing was ever started");
    assert!(!dir.join("node_modules").exists());
}

#[test]
fn a_script_s_arguments_go_to_the_script_never_to_npm() {
    let (tree, dir) = npm_lab("");
    let package = std::fs::read_to_string(dir.join("package.json")).unwrap();
    std::fs::write(
        dir.join("package.json"),
        package.replace(
            "\"test\": \"node test.js\"",
            "\"test\": \"node test.js\",\n    \"show\": \"node -e \\\"console.log(JSON.stringify(process.argv.slice(1)))\\\" --\"",
        ),
    )
    .unwrap();
    let run = npm(&tree, &["run", "show", "--", "--prefix=/tmp", "x"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("[\"--prefix=/tmp\",\"x\"]"),
        "npm handed both words to the script: {run:?}"
    );
}

/// The name of this machine's Node tarball platform (`linux-x64`), as the distribution
/// spells it.
fn platform() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "linux-arm64",
        _ => "linux-x64",
    }
}

/// The version the fake distribution serves.
const FAKE_VERSION: &str = "22.99.1";

/// A `.tar.gz` of a fake Node distribution: `bin/node` a shell script that answers
/// `--version` and otherwise says it ran (with the `PATH` it got), and `bin/npm` a link into
/// `lib/` as in the real one.
fn fake_tarball() -> Vec<u8> {
    let top = format!("node-v{FAKE_VERSION}-{}", platform());
    let node = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v{FAKE_VERSION}; exit 0; fi\n\
         echo \"managed node ran $1\"\necho \"PATH=$PATH\"\n"
    );
    let mut builder = tar::Builder::new(Vec::new());
    let mut add = |path: &str, mode: u32, body: &[u8]| {
        let mut header = tar::Header::new_gnu();
        header.set_path(format!("{top}/{path}")).unwrap();
        header.set_mode(mode);
        header.set_size(body.len() as u64);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, body).unwrap();
    };
    add("bin/node", 0o755, node.as_bytes());
    add(
        "lib/node_modules/npm/bin/npm-cli.js",
        0o755,
        b"#!/bin/sh\necho npm\n",
    );
    add("README.md", 0o644, b"A fake Node.\n");
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Symlink);
    header.set_mode(0o777);
    header.set_size(0);
    builder
        .append_link(
            &mut header,
            format!("{top}/bin/npm"),
            "../lib/node_modules/npm/bin/npm-cli.js",
        )
        .unwrap();
    let tar = builder.into_inner().unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&tar).unwrap();
    encoder.finish().unwrap()
}

/// A loopback server with the fake distribution under `/dist`; `digest` is what its
/// `SHASUMS256.txt` says of the tarball.
fn distribution(tarball: &[u8], digest: &str) -> Server {
    let server = Server::start().unwrap();
    let file = format!("node-v{FAKE_VERSION}-{}.tar.gz", platform());
    server.text(
        "/dist/index.json",
        &format!(
            "[{{\"version\":\"v23.0.0\",\"files\":[\"linux-x64\",\"linux-arm64\"]}},\
             {{\"version\":\"v{FAKE_VERSION}\",\"files\":[\"headers\",\"linux-x64\",\"linux-arm64\"]}},\
             {{\"version\":\"v22.3.0\",\"files\":[\"linux-x64\",\"linux-arm64\"]}}]"
        ),
    );
    server.text(
        &format!("/dist/v{FAKE_VERSION}/SHASUMS256.txt"),
        &format!(
            "{}  node-v{FAKE_VERSION}-headers.tar.gz\n{digest}  {file}\n",
            "0".repeat(64)
        ),
    );
    server.route(
        &format!("/dist/v{FAKE_VERSION}/{file}"),
        Reply::Ok(tarball.to_vec()),
    );
    server
}

/// A tree whose user skill has `scripts/hello.js`, managed Node 22 from `server`, and a
/// `PATH` folder without node (returned for [`managed`]).
fn managed_lab(server: &Server) -> (Tree, PathBuf) {
    let (tree, _) = lab(&[("scripts/hello.js", "console.log('real node');\n")], None);
    tree.user_config(&format!(
        "[runtime]\nmanaged_node = \"22\"\nnode_dist = \"{}\"\n",
        server.url("/dist")
    ));
    let empty = tree.base.join("no-node-here");
    std::fs::create_dir_all(&empty).unwrap();
    (tree, empty)
}

/// `skills ARGS` with `path` as the whole `PATH` and loopback http allowed for the fixture.
fn managed(tree: &Tree, path: &Path, args: &[&str]) -> Run {
    tree.run_with(
        args,
        &[
            ("PATH", path.to_str().unwrap()),
            ("SKILLS_INSTALL_ALLOW_LOCAL_HTTP", "1"),
        ],
    )
}

fn runtimes_entries(tree: &Tree) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(tree.home.join(".openhuman/runtimes")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn managed_node_is_downloaded_checked_installed_and_used_when_path_has_no_node() {
    let tarball = fake_tarball();
    let digest = format!("{:x}", sha2::Sha256::digest(&tarball));
    let server = distribution(&tarball, &digest);
    let (tree, path) = managed_lab(&server);

    let run = managed(&tree, &path, &["run", SKILL, "scripts/hello.js"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let installed = tree
        .home
        .join(format!(".openhuman/runtimes/node-v{FAKE_VERSION}"));
    assert!(
        run.stdout.contains("managed node ran ") && run.stdout.contains("scripts/hello.js"),
        "the fake node ran the script: {run:?}"
    );
    // Its bin folder is first on the child's PATH.
    let expected = format!("PATH={}:", installed.join("bin").display());
    assert!(run.stdout.contains(&expected), "{run:?}");
    assert_eq!(runtimes_entries(&tree), [format!("node-v{FAKE_VERSION}")]);
    let npm = installed.join("bin/npm");
    assert!(npm.is_symlink(), "the tarball's link was created");
    assert_eq!(
        std::fs::read_link(&npm).unwrap(),
        Path::new("../lib/node_modules/npm/bin/npm-cli.js")
    );
    let targets = server.targets();
    assert_eq!(targets.len(), 3, "index, checksums, tarball: {targets:?}");

    // `skills runtimes` shows the managed node; an installed one needs no network.
    let run = managed(&tree, &path, &["runtimes", "--json"]);
    let value = run.json();
    let node = value
        .as_array()
        .or_else(|| value["runtimes"].as_array())
        .unwrap()
        .iter()
        .find(|runtime| runtime["kind"] == "node")
        .unwrap()
        .clone();
    assert_eq!(node["source"], "managed", "{node}");
    assert_eq!(node["version"], FAKE_VERSION, "{node}");
    assert_eq!(
        node["path"].as_str().unwrap(),
        installed.join("bin/node").to_str().unwrap()
    );
    assert_eq!(server.targets().len(), 3, "nothing fetched again");
}

#[test]
fn a_wrong_checksum_installs_nothing_and_says_so() {
    let tarball = fake_tarball();
    let server = distribution(&tarball, &"ab".repeat(32));
    let (tree, path) = managed_lab(&server);

    let run = managed(&tree, &path, &["run", SKILL, "scripts/hello.js"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("checksum mismatch"), "{run:?}");
    assert!(
        runtimes_entries(&tree).is_empty(),
        "no node-v*, no staging leftovers: {:?}",
        runtimes_entries(&tree)
    );
    assert!(log_files(&tree).is_empty(), "nothing was started");
    // The tarball was fetched and refused, not skipped.
    assert!(
        server
            .targets()
            .iter()
            .any(|target| target.ends_with(".tar.gz")),
        "{:?}",
        server.targets()
    );
}

#[test]
fn rpc_run_takes_npm_words_like_the_command_line() {
    let (tree, _) = npm_lab("");
    assert_eq!(npm(&tree, &["ci"]).code, Some(0));
    let registry = format!("http://127.0.0.1:{}/", closed_port());
    let mut connection =
        crate::serve::Connection::open_with(&tree, &[("npm_config_registry", registry.as_str())]);
    let mut call = |id: u64, params: serde_json::Value| {
        let request = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "skill_runtime.run", "params": params
        });
        connection.send(&request.to_string());
        loop {
            let message = connection.next_message();
            if message["id"] == id {
                return message;
            }
        }
    };
    let answer = call(
        1,
        serde_json::json!({ "skill_id": SKILL, "npm": ["test"], "wait": true }),
    );
    assert_eq!(answer["result"]["status"], "succeeded", "{answer}");
    assert!(
        answer["result"]["stdout"]
            .as_str()
            .unwrap()
            .contains("npm test passed: hello, npm"),
        "{answer}"
    );
    let answer = call(
        2,
        serde_json::json!({ "skill_id": SKILL, "npm": ["publish"], "wait": true }),
    );
    assert_eq!(answer["error"]["data"]["kind"], "invalid_input", "{answer}");
    let answer = call(
        3,
        serde_json::json!({ "skill_id": SKILL, "npm": ["test"], "script": "x.js" }),
    );
    assert_eq!(answer["error"]["code"], -32_602, "{answer}");
}

#[test]
fn a_distribution_whose_link_leaves_its_tree_installs_nothing() {
    let top = format!("node-v{FAKE_VERSION}-{}", platform());
    let mut builder = tar::Builder::new(Vec::new());
    let body = b"#!/bin/sh\necho v22.99.1\n";
    let mut header = tar::Header::new_gnu();
    header.set_path(format!("{top}/bin/node")).unwrap();
    header.set_mode(0o755);
    header.set_size(body.len() as u64);
    header.set_cksum();
    builder.append(&header, &body[..]).unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Symlink);
    header.set_size(0);
    builder
        .append_link(
            &mut header,
            format!("{top}/bin/npm"),
            "../../../../../etc/passwd",
        )
        .unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&builder.into_inner().unwrap()).unwrap();
    let tarball = encoder.finish().unwrap();
    // The checksum is right: only the extractor stands in the way.
    let digest = format!("{:x}", sha2::Sha256::digest(&tarball));
    let server = distribution(&tarball, &digest);
    let (tree, path) = managed_lab(&server);

    let run = managed(&tree, &path, &["run", SKILL, "scripts/hello.js"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains("symbolic link") && run.stderr.contains("leaves the archive's tree"),
        "{run:?}"
    );
    assert!(
        runtimes_entries(&tree).is_empty(),
        "{:?}",
        runtimes_entries(&tree)
    );
    assert!(log_files(&tree).is_empty());
}
