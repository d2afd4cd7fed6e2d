//! Private GitHub repositories through the binary: the token (`GITHUB_TOKEN`, `GH_TOKEN`, or
//! the variable the home configuration's `[github] token_env` names) reaches the configured
//! GitHub's API origin and nothing else. A loopback server shaped like GitHub's API records
//! the `Authorization` header it got; the archive host its redirect leads to is a second
//! loopback server (another port, so another origin), which must get none. The token is never
//! printed (not even at `-vvv`), never written to any file, and leaves the process's own
//! environment once read; a 404, 401 or 403 from GitHub says what to set.

use std::io::BufRead as _;
use std::path::Path;
use std::process::Stdio;

use skills_tests::http::{Reply, Server};

use super::restore::{COMMIT, github_tarball};
use super::{ALLOW_LOCAL_HTTP, Skill};
use crate::discovery::{Place, Run, Tree};

/// A token no test would otherwise print.
const TOKEN: &str = "ghp_canary7Q2x9VbN4mLk0private";

fn skill() -> Skill {
    Skill::new("secret-sauce", "Makes the sauce.", "Stir.", &[])
}

/// The GitHub base (the API) and, on another port, the archive host its redirect leads to.
struct Github {
    api: Server,
    archive: Server,
}

impl Github {
    fn new() -> Self {
        let api = Server::start().unwrap();
        let archive = Server::start().unwrap();
        let tarball = github_tarball("acme", "private", COMMIT, &[skill()]);
        let path = "/acme/private/legacy.tar.gz/HEAD";
        archive.route(path, Reply::Ok(tarball));
        api.route(
            "/api/v3/repos/acme/private/tarball",
            Reply::Redirect(format!("{}?token=SHORTLIVED", archive.url(path))),
        );
        api.route("/api/v3/repos/acme/locked/tarball", Reply::Status(403));
        Self { api, archive }
    }

    fn tree(&self) -> Tree {
        let tree = Tree::new();
        tree.user_config(&format!("[github]\nurl = \"{}\"\n", self.api.url("")));
        tree
    }

    /// The `Authorization` headers each server got, in order.
    fn authorizations(&self) -> (Vec<Option<String>>, Vec<Option<String>>) {
        let of = |server: &Server| {
            server
                .hits()
                .iter()
                .map(|hit| hit.header("authorization").map(str::to_owned))
                .collect()
        };
        (of(&self.api), of(&self.archive))
    }
}

/// The binary on `tree` with exactly these GitHub variables (none from the test's own
/// environment).
fn run(tree: &Tree, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = skills_tests::skills();
    command
        .current_dir(&tree.base)
        .arg("--workspace")
        .arg(&tree.workspace)
        .arg("--home")
        .arg(&tree.home)
        .args(args)
        .env(ALLOW_LOCAL_HTTP, "1")
        .env_remove("GITHUB_TOKEN")
        .env_remove("GH_TOKEN");
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

/// Every file below `dir` that holds `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && std::fs::read(&path)
                    .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(needle))
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[test]
fn the_token_reaches_the_api_origin_and_never_the_archive_host_it_redirects_to() {
    let github = Github::new();
    let tree = github.tree();
    let run = run(
        &tree,
        &["-vvv", "--json", "install", "acme/private"],
        &[("GITHUB_TOKEN", TOKEN)],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let (api, archive) = github.authorizations();
    assert_eq!(api, [Some(format!("Bearer {TOKEN}"))]);
    assert_eq!(
        archive,
        [None],
        "the token crossed the redirect to another origin"
    );
    assert_eq!(
        super::content(super::files_of(
            &tree.root(Place::UserAgents).join("secret-sauce")
        )),
        skill().files
    );
    // Never printed, logged or recorded, and neither is the archive's own short-lived token.
    for (what, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(!text.contains(TOKEN), "the token is in {what}: {text}");
        assert!(
            !text.contains("SHORTLIVED"),
            "the archive's token is in {what}"
        );
    }
    assert!(
        run.stderr.contains("Request") || run.stderr.contains("TRACE"),
        "-vvv logged nothing, so the log proves nothing: {run:?}"
    );
    assert_eq!(files_holding(&tree.base, TOKEN), Vec::<String>::new());
    assert_eq!(
        files_holding(&tree.base, "SHORTLIVED"),
        Vec::<String>::new()
    );
}

#[test]
fn gh_token_and_the_homes_token_env_are_used_and_a_workspace_cannot_name_one() {
    // GH_TOKEN when GITHUB_TOKEN is not set.
    let github = Github::new();
    let tree = github.tree();
    let done = run(&tree, &["install", "acme/private"], &[("GH_TOKEN", TOKEN)]);
    assert_eq!(done.code, Some(0), "{done:?}");
    assert_eq!(github.authorizations().0, [Some(format!("Bearer {TOKEN}"))]);

    // The home's `[github] token_env` names the variable, and wins over GITHUB_TOKEN.
    let github = Github::new();
    let tree = Tree::new();
    tree.user_config(&format!(
        "[github]\nurl = \"{}\"\ntoken_env = \"TEAM_GH_TOKEN\"\n",
        github.api.url("")
    ));
    let done = run(
        &tree,
        &["install", "acme/private"],
        &[("TEAM_GH_TOKEN", TOKEN), ("GITHUB_TOKEN", "ghp_other")],
    );
    assert_eq!(done.code, Some(0), "{done:?}");
    assert_eq!(github.authorizations().0, [Some(format!("Bearer {TOKEN}"))]);

    // A trusted workspace's `[github] token_env` is ignored: a repository cannot choose which
    // of the user's secrets goes to GitHub.
    let github = Github::new();
    let tree = github.tree();
    tree.trust();
    tree.write(
        &tree.workspace.join(".openhuman/skills.toml"),
        "[github]\ntoken_env = \"CLOUD_SECRET\"\n",
    );
    let done = run(
        &tree,
        &["install", "acme/private"],
        &[
            ("CLOUD_SECRET", "aws-canary-secret"),
            ("GITHUB_TOKEN", TOKEN),
        ],
    );
    assert_eq!(done.code, Some(0), "{done:?}");
    assert_eq!(github.authorizations().0, [Some(format!("Bearer {TOKEN}"))]);
    assert!(!done.stderr.contains("aws-canary-secret"));
}

#[test]
fn a_refusal_from_github_says_what_to_set() {
    let github = Github::new();
    let tree = github.tree();
    let missing = run(&tree, &["install", "acme/missing"], &[]);
    assert_ne!(missing.code, Some(0), "{missing:?}");
    assert!(
        missing
            .stderr
            .contains("GitHub answered 404 for acme/missing")
            && missing.stderr.contains("GITHUB_TOKEN or GH_TOKEN")
            && missing.stderr.contains("[github] token_env"),
        "{missing:?}"
    );
    assert_eq!(github.authorizations().0, [None], "no token, none sent");

    let with_token = run(
        &tree,
        &["install", "acme/missing"],
        &[("GITHUB_TOKEN", TOKEN)],
    );
    assert!(
        with_token
            .stderr
            .contains("GitHub answered 404 for acme/missing with the configured token"),
        "{with_token:?}"
    );
    assert!(!with_token.stderr.contains(TOKEN), "{with_token:?}");

    let locked = run(&tree, &["install", "acme/locked"], &[]);
    assert!(
        locked
            .stderr
            .contains("GitHub answered 403 for acme/locked")
            && locked.stderr.contains("rate limit"),
        "{locked:?}"
    );
}

#[test]
fn the_token_leaves_the_process_environment_once_read() {
    let tree = Tree::new();
    tree.user_config("[github]\ntoken_env = \"TEAM_GH_TOKEN\"\n");
    let team = "ghp_canaryTeamToken5d8e";
    let mut command = skills_tests::skills();
    command
        .current_dir(&tree.base)
        .arg("--workspace")
        .arg(&tree.workspace)
        .arg("--home")
        .arg(&tree.home)
        .args(["mcp", "--http", "127.0.0.1:0"])
        .env("GITHUB_TOKEN", TOKEN)
        .env("TEAM_GH_TOKEN", team)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut server = command.spawn().unwrap();
    let stderr = server.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    // Serving: both variables were read and the process executed itself again without them.
    loop {
        let line = lines.next().unwrap().unwrap();
        if line.contains("http://") {
            break;
        }
    }
    let environ = std::fs::read(format!("/proc/{}/environ", server.id()));
    let _ = server.kill();
    let _ = server.wait();
    match environ {
        Ok(environ) => {
            let environ = String::from_utf8_lossy(&environ);
            assert!(
                !environ.contains(TOKEN),
                "GITHUB_TOKEN is still in the environment"
            );
            assert!(
                !environ.contains(team),
                "the token_env variable is still there"
            );
        }
        // Not root: the process is not dumpable, so its environment is not this test's to
        // read (and no other process of the user's can read it either).
        Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied),
    }
}
