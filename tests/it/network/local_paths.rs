//! A source that is an existing local path is local, and the network is never touched
//! (issue 30 §6): `skills install arch/out/x.tar.gz` with that file beside the user installs
//! it, where the same text used to be read as the GitHub shorthand `arch/out` and sent to
//! `api.github.com`. Run in the private namespace with GitHub at a loopback fixture that counts
//! every connection: installing the local file makes none. Without such a path the shorthand
//! is used, and its failure says so.

use std::io::Write as _;

use skills_tests::http::Server;

use super::{client_connections, targets};
use crate::discovery::Tree;
use crate::install::{ALLOW_LOCAL_HTTP, definition};

/// A `.tar.gz` holding one skill named `name` at its top.
fn archive_of(name: &str) -> Vec<u8> {
    let definition = definition(name, "A local skill.", "Body.");
    let mut builder = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_path(format!("{name}/SKILL.md")).unwrap();
    header.set_size(definition.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    builder.append(&header, definition.as_slice()).unwrap();
    let tar = builder.into_inner().unwrap();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&tar).unwrap();
    gzip.finish().unwrap()
}

#[test]
fn an_existing_path_shaped_like_the_shorthand_is_local_and_connects_nowhere() {
    skills_tests::netns::run(|| {
        let tree = Tree::new();
        let github = Server::start().unwrap();
        let base = github.url("");
        let env = [
            (ALLOW_LOCAL_HTTP, "1"),
            ("SKILLS_GITHUB_URL", base.as_str()),
        ];
        let file = tree.base.join("arch/out/x.tar.gz");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, archive_of("from-archive")).unwrap();
        let folder = tree.base.join("acme/tools");
        std::fs::create_dir_all(folder.join("from-folder")).unwrap();
        std::fs::write(
            folder.join("from-folder/SKILL.md"),
            definition("from-folder", "A local skill.", "Body."),
        )
        .unwrap();
        for (text, slug, repository) in [
            ("arch/out/x.tar.gz", "from-archive", "arch/out"),
            ("acme/tools", "from-folder", "acme/tools"),
        ] {
            let outcome = tree.run_with(&["--json", "install", text], &env);
            let document = outcome.json();
            let installed = &document["installed"][0];
            assert_eq!(installed["slug"], slug, "{document}");
            assert_eq!(installed["kind"], "local", "{document}");
            let note = installed["warnings"][0].as_str().unwrap_or_default();
            assert!(
                note.contains(&format!("not from the GitHub repository {repository}")),
                "the reading is said: {document}"
            );
        }
        assert_eq!(client_connections(&github), 0, "{:?}", github.targets());

        // No such path: the shorthand, and its failure says why it was read so.
        let outcome = tree.run_with(&["install", "arch/missing/x.tar.gz"], &env);
        assert_eq!(outcome.code, Some(1), "{outcome:?}");
        assert!(
            outcome
                .stderr
                .contains("was read as the GitHub shorthand owner/repo[/path][@ref], since no file or folder of that name exists here"),
            "{outcome:?}"
        );
        assert_eq!(
            targets(&github),
            ["/api/v3/repos/arch/missing/tarball"],
            "exactly the one request the shorthand means"
        );
    });
}
