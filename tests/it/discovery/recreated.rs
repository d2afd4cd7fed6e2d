//! A trusted folder deleted and made again at its path is not the folder the user trusted
//! (issue 29 §3; `docs/decisions.md` §Trust is bound to the folder's birth), whatever inode it
//! gets: on ext4 a folder made again right after the old one went gets its inode back, and a
//! tmpfs mounted again (a reboot) starts its device's inode numbers over. Both are made to
//! happen here, through the built binary, and the new folder is untrusted and `list` says so;
//! a file system that reports no birth time (ramfs) cannot be trusted by record at all.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Place, Tree, json_codes, json_names, text};

/// What `stat -f -c %T` calls ext2, ext3 and ext4 (one magic number).
const EXT4: &str = "ext2/ext3";

/// The file system type of the folder `path`, as coreutils names it.
fn file_system(path: &Path) -> String {
    let output = Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// The first of the system's temporary folder and cargo's test folder that is on ext4.
fn ext4_parent() -> Option<PathBuf> {
    [
        std::env::temp_dir(),
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
    ]
    .into_iter()
    .find(|candidate| file_system(candidate) == EXT4)
}

/// The clone: one project skill in the workspace, one user skill in the home.
fn clone_into(tree: &Tree) {
    tree.skill(
        Place::ProjectAgents,
        "p",
        "project-skill",
        "From the clone.",
    );
}

#[test]
fn a_folder_made_again_with_its_old_inode_is_untrusted_and_list_says_so() {
    // Where no ext4 folder is at hand the same loop runs on the temporary folder's file
    // system and the folder must still be untrusted; the inode's return is asserted on ext4
    // (the tmpfs test below makes device and inode come back on every machine).
    let ext4 = ext4_parent();
    let tree = Tree::new_in(&ext4.clone().unwrap_or_else(std::env::temp_dir));
    tree.skill(Place::UserOpenhuman, "u", "user-skill", "From the home.");
    let mut reused = false;
    for _ in 0..64 {
        clone_into(&tree);
        tree.run(&["trust", "-q"]).ok();
        let listing = tree.run(&["list", "--json"]).json();
        assert_eq!(
            json_names(&listing, "skills"),
            ["project-skill", "user-skill"]
        );
        let inode = std::fs::metadata(&tree.workspace).unwrap().ino();
        // `rm -rf ws && git clone … ws`.
        std::fs::remove_dir_all(&tree.workspace).unwrap();
        std::fs::create_dir(&tree.workspace).unwrap();
        if std::fs::metadata(&tree.workspace).unwrap().ino() == inode {
            reused = true;
            break;
        }
    }
    if ext4.is_some() {
        assert!(reused, "ext4 gave the folder's inode back within 64 tries");
    }
    clone_into(&tree);

    let run = tree.run(&["list"]);
    assert_eq!(run.ok(), "user-skill  user     From the home.\n");
    let warning = format!(
        "the workspace {} was trusted, but the folder there now is not the one trusted",
        text(&tree.workspace)
    );
    assert!(
        run.stderr.contains(&warning)
            && run
                .stderr
                .contains(&format!("run `skills trust {}`", text(&tree.workspace))),
        "{}",
        run.stderr
    );
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(listing["trusted"], false);
    assert_eq!(
        json_codes(&listing["diagnostics"]),
        ["trust-replaced", "untrusted-workspace"]
    );
    let records = tree.run(&["trust", "--list", "--json"]).json();
    assert_eq!(records["workspaces"][0]["state"], "replaced");
    assert_eq!(records["workspaces"].as_array().unwrap().len(), 1);

    // Trusting it again trusts the new folder, with no warning left.
    tree.run(&["trust", "-q"]).ok();
    let run = tree.run(&["list"]);
    assert_eq!(run.ok().lines().count(), 2, "{run:?}");
    assert_eq!(run.stderr, "");
}

/// The test's shell script, run as root of a user and mount namespace of its own, where it may
/// mount file systems on `$3`: it mounts a tmpfs, makes and trusts a workspace there, mounts a
/// fresh tmpfs in its place with the same workspace, and then mounts a ramfs (no birth times)
/// there and tries to trust a workspace on it. Every command's output goes to a file in `$4`.
const SCRIPT: &str = r#"
set -eu
skills=$1 home=$2 mount_point=$3 out=$4
ws=$mount_point/ws
skills() { "$skills" --workspace "$ws" --home "$home" "$@"; }
clone() {
    mkdir -p "$ws/.agents/skills/p"
    printf -- '---\nname: project-skill\ndescription: From the clone.\n---\nBody.\n' \
        >"$ws/.agents/skills/p/SKILL.md"
}
mount -t tmpfs tmpfs "$mount_point"
clone
skills trust -q
stat -c '%d %i' "$ws" >"$out/first"
skills list --json >"$out/trusted.json"
umount "$mount_point"
# The kernel hands a new tmpfs the lowest free anonymous device number, which is the one just
# freed unless another process (a concurrent test's sandbox mounting its procfs) takes it in
# between: mount again until it comes back, which is the attack this test is about.
tries=0
while :; do
    mount -t tmpfs tmpfs "$mount_point"
    clone
    stat -c '%d %i' "$ws" >"$out/again"
    if cmp -s "$out/first" "$out/again" || [ "$tries" -ge 100 ]; then break; fi
    tries=$((tries + 1))
    umount "$mount_point"
    sleep 0.05
done
skills list --json >"$out/again.json"
skills list >"$out/again.out" 2>"$out/again.err"
skills trust --list --json >"$out/records.json"
umount "$mount_point"
mount -t ramfs ramfs "$mount_point"
clone
status=0
skills trust >"$out/ramfs.out" 2>"$out/ramfs.err" || status=$?
echo "$status" >"$out/ramfs.status"
skills list --json >"$out/ramfs.json"
umount "$mount_point"
"#;

/// util-linux `unshare` options for a user namespace whose root we are, with a mount
/// namespace of its own: mounting there touches nothing outside.
const UNSHARE_OPTIONS: [&str; 3] = ["--user", "--map-root-user", "--mount"];

#[test]
fn a_tmpfs_mounted_again_gives_device_and_inode_back_and_is_untrusted() {
    let tree = Tree::new();
    tree.skill(Place::UserOpenhuman, "u", "user-skill", "From the home.");
    let mount_point = tree.base.join("mnt");
    let out = tree.base.join("out");
    std::fs::create_dir(&mount_point).unwrap();
    std::fs::create_dir(&out).unwrap();
    let mut command = Command::new("unshare");
    command
        .args(UNSHARE_OPTIONS)
        .args(["sh", "-c", SCRIPT, "sh"])
        .arg(skills_tests::skills_binary())
        .arg(&tree.home)
        .arg(&mount_point)
        .arg(&out)
        .env_remove("NO_COLOR")
        .env("CLICOLOR", "0")
        .env_remove("COLUMNS");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SKILLS_") {
            command.env_remove(key);
        }
    }
    let output = command.output().unwrap();
    // Like the network tests: never pass without having run.
    assert!(
        output.status.success(),
        "`unshare {}` and the script in it must work: run as root, or as a user allowed to \
         create user namespaces (check with `unshare --user --map-root-user --mount true`): \
         {output:?}",
        UNSHARE_OPTIONS.join(" ")
    );
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    let json = |name: &str| serde_json::from_str::<serde_json::Value>(&read(name)).unwrap();
    let workspace = text(&mount_point.join("ws"));

    assert_eq!(
        json_names(&json("trusted.json"), "skills"),
        ["project-skill", "user-skill"]
    );
    // The fresh tmpfs took the old device number and handed out the same first inode.
    assert_eq!(read("first"), read("again"), "device and inode came back");
    let again = json("again.json");
    assert_eq!(json_names(&again, "skills"), ["user-skill"]);
    assert_eq!(again["trusted"], false);
    assert_eq!(
        json_codes(&again["diagnostics"]),
        ["trust-replaced", "untrusted-workspace"]
    );
    assert_eq!(read("again.out"), "user-skill  user     From the home.\n");
    assert!(
        read("again.err").contains(&format!(
            "the workspace {workspace} was trusted, but the folder there now is not the one trusted"
        )),
        "{}",
        read("again.err")
    );
    assert_eq!(json("records.json")["workspaces"][0]["state"], "replaced");

    // ramfs reports no birth time: trust is refused, saying why, and nothing is trusted.
    assert_eq!(read("ramfs.status").trim(), "1");
    assert!(
        read("ramfs.err").contains("does not report when a folder was made")
            && read("ramfs.err").contains("--trust-workspace"),
        "{}",
        read("ramfs.err")
    );
    let ramfs = json("ramfs.json");
    assert_eq!(ramfs["trusted"], false);
    assert_eq!(json_names(&ramfs, "skills"), ["user-skill"]);
}
