//! Stub parity (06 §Stub parity): every public function of the facade, pinned as a typed
//! function pointer. This file compiles only if the real crates and the stub agree on every
//! signature, and CI builds it in both feature directions, so a signature that drifts on one
//! side breaks the build instead of an agent core's.

use std::path::{Path, PathBuf};

use skills::bus::{
    Activation, Activations, DomainEvent, EventBus, Received, Subscription, TriggeredSkillIndex,
    TriggeredSkillSubscriber,
};
use skills::catalog::{Explanation, ListOptions, Listing, ResourceContent, SkillBody};
use skills::install::{ConnectGuard, ProgressSink, Resolver};
use skills::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
use skills::registry::{self as registry, Counts, Query, Status};
use skills::render::{Rendered, SyncOptions, SyncOutcome};
use skills::run::{
    RuntimeInfo, RuntimeKind, SetupOutcome, SetupRequest, Task, TestOutcome, TestRequest, ToolCall,
    ToolExecution, ToolInfo,
};
use skills::validate::{Options, Profile, Report};
use skills::{Catalog, Error, Skill, SkillDocument, SkillScope, Skills, SkillsConfig};

const _: fn(&Path) -> Result<PathBuf, Error> = skills::load::find_definition;
const _: fn(&Path) -> Result<SkillDocument, Error> = skills::load::load_document;
const _: fn(&Path, &[u8]) -> Result<SkillDocument, Error> = skills::load::parse_document;
const _: fn(&Path, &Options) -> Result<Report, Error> = skills::validate::validate_path;
const _: fn(&Path, &[u8], &Options) -> Result<Report, Error> = skills::validate::validate_bytes;
#[expect(
    clippy::type_complexity,
    reason = "each signature is spelled out in full, so a drift shows in the diff"
)]
const _: fn(&Path, &Options) -> Result<Vec<Result<Report, Error>>, Error> =
    skills::validate::validate_tree;

const _: fn(
    std::sync::Arc<dyn skills::rpc::SkillsService>,
    &skills::mcp::Options,
) -> Result<(), Error> = skills::mcp::serve_stdio;

const _: fn(&skills::publish::Request) -> Result<skills::publish::Outcome, Error> =
    skills::publish::publish;
const _: fn(skills::publish::Request, bool) -> skills::publish::Request =
    skills::publish::Request::keep_going;

const _: fn(SkillsConfig) -> Skills = Skills::new;
const _: fn(&Skills) -> &SkillsConfig = Skills::config;
const _: fn(&Skills) -> Result<Catalog, Error> = Skills::discover;
const _: fn(&Skills) -> SkillsConfig = Skills::home_config;
const _: fn(&Skills, &ListOptions) -> Result<Listing, Error> = Skills::list;
const _: fn(&Skills, &str) -> Result<Skill, Error> = Skills::get;
const _: fn(&Skills, &str, &str) -> Result<ResourceContent, Error> = Skills::read_resource;
const _: fn(&Skills, &CreateSkill) -> Result<Written, Error> = Skills::create;
const _: fn(&Skills, &str, &UpdateSkill) -> Result<Written, Error> = Skills::update;
const _: fn(&Skills, &str, Option<SkillScope>) -> Result<Uninstalled, Error> = Skills::uninstall;
const _: fn(&Skills, &[&str]) -> Result<Vec<SkillBody>, Error> = Skills::read;
const _: fn(&Skills, &str) -> Result<Explanation, Error> = Skills::explain;
const _: fn(&Skills, &skills::render::Options) -> Result<Rendered, Error> = Skills::render_catalog;
const _: fn(&Skills, &SyncOptions) -> Result<SyncOutcome, Error> = Skills::sync_agents_md;
const _: fn(&Skills) -> bool = Skills::is_trusted;
const _: fn(&Skills, &Path) -> Result<skills::trust::Change, Error> = Skills::trust;
const _: fn(&Skills, &Path) -> Result<skills::trust::Change, Error> = Skills::revoke_trust;
const _: fn(&Skills) -> Result<Vec<skills::trust::Workspace>, Error> = Skills::trusted_workspaces;
const _: fn(&[SkillBody]) -> String = skills::render::read_text;

const _: fn(Skills, skills::run::Sink) -> Skills = Skills::with_run_notices;
const _: fn() = skills::run::sandbox_main;
const _: fn(&Skills, &skills::run::Request) -> Result<skills::run::Outcome, Error> = Skills::run;
const _: fn(
    &Skills,
    &skills::run::Request,
    Option<skills::run::Sink>,
) -> Result<skills::run::Outcome, Error> = Skills::run_with;
const _: fn(
    &Skills,
    &skills::run::Request,
    Option<skills::run::Sink>,
) -> Result<skills::run::Started, Error> = Skills::start_run;
const _: fn(&Skills, &SetupRequest, Option<skills::run::Sink>) -> Result<SetupOutcome, Error> =
    Skills::setup_skill;
const _: fn(&Skills) -> Vec<skills::Diagnostic> = Skills::settings_diagnostics;
const _: fn(&Skills, &str) -> Result<bool, Error> = Skills::cancel_run;
const _: fn(&Skills, usize) -> Result<Vec<skills::run::Summary>, Error> = Skills::recent_runs;
const _: fn(&Skills, &str, u64, usize) -> Result<skills::run::LogChunk, Error> =
    Skills::read_run_log;
const _: fn(&Skills, Option<RuntimeKind>) -> Vec<RuntimeInfo> = Skills::resolve_runtimes;
/// Input values by name, as `render_task` takes them.
type Inputs = serde_json::Map<String, serde_json::Value>;
const _: fn(&Skills, &str, &Inputs) -> Result<Task, Error> = Skills::render_task;
const _: fn(&Skills) -> Result<Vec<ToolInfo>, Error> = Skills::list_tools;
const _: fn(&Skills, &skills::watch::Options) -> Result<skills::watch::Watch, Error> =
    Skills::watch;
const _: fn(&Skills, &str, usize) -> Result<Vec<skills::search::Hit>, Error> = Skills::search;
const _: fn(&Skills, &ToolCall) -> Result<ToolExecution, Error> = Skills::execute_tool;
/// What `run_tests` answers.
type TestOutcomes = Result<Vec<TestOutcome>, Error>;
const _: fn(&Skills, &TestRequest, Option<skills::run::Sink>) -> TestOutcomes = Skills::run_tests;

// The audit (issue 31).
const _: fn(&Skills, &skills::audit::Request) -> Result<skills::audit::Reports, Error> =
    Skills::audit;
/// Where `audit_each` hands each report.
type ReportSink<'a> = &'a mut dyn FnMut(skills::audit::Report);
const _: fn(&Skills, &skills::audit::Request, ReportSink) -> Result<skills::audit::Summary, Error> =
    Skills::audit_each;
const _: fn(&Skills, &str) -> Result<skills::audit::Accepted, Error> = Skills::audit_accept;
const _: fn(&Skills, &[String]) -> Result<skills::audit::Recheck, Error> = Skills::audit_recheck;
const _: fn(&Skills, &[skills::audit::Report]) -> Result<(), Error> = Skills::audit_record;
const _: fn(&Path, &skills::audit::Caps) -> Option<String> = skills::audit::stamp;
const _: fn(&Path, &skills::audit::Options) -> Result<skills::audit::Report, Error> =
    skills::audit::scan_dir;
/// Files an install holds in memory, as `scan_files` takes them.
type Staged = [(String, Vec<u8>)];
const _: fn(&Path, &Staged, &skills::audit::Options) -> skills::audit::Report =
    skills::audit::scan_files;
const _: fn() -> skills::audit::Options = skills::audit::Options::new;
const _: fn(skills::audit::Options, skills::audit::Severity) -> skills::audit::Options =
    skills::audit::Options::with_fail_on;
const _: fn(skills::audit::Options, Vec<String>) -> skills::audit::Options =
    skills::audit::Options::with_neighbours;
const _: fn() -> skills::audit::Caps = skills::audit::Caps::default;
const _: &str = skills::audit::RULES_VERSION;

/// `check_updates` and `update_installed` are `async` like `install`; pinned the same way.
#[expect(
    dead_code,
    reason = "compiled, never called: the signature is the test"
)]
fn update_signatures<'a>(
    skills: &'a Skills,
    request: &'a skills::update::Request,
) -> (
    impl Future<Output = Result<Vec<skills::update::Check>, Error>> + Send + 'a,
    impl Future<Output = Result<Vec<skills::update::Outcome>, Error>> + Send + 'a,
) {
    (
        skills.check_updates(request),
        skills.update_installed(request),
    )
}

/// `restore` is `async` like `install`; pinned the same way.
#[expect(
    dead_code,
    reason = "compiled, never called: the signature is the test"
)]
fn restore_signature<'a>(
    skills: &'a Skills,
    request: &'a skills::restore::Request,
) -> impl Future<Output = Result<skills::restore::Report, Error>> + Send + 'a {
    skills.restore(request)
}

/// `install` is `async`, so it is pinned through a function with its exact signature, and its
/// future must be `Send` (an agent core spawns it on a multi-threaded runtime).
#[expect(
    dead_code,
    reason = "compiled, never called: the signature is the test"
)]
fn install_signature<'a>(
    skills: &'a Skills,
    request: &'a skills::install::Request,
) -> impl Future<Output = Result<Vec<skills::install::Outcome>, Error>> + Send + 'a {
    skills.install(request)
}
const _: fn(Skills, std::sync::Arc<dyn Resolver>) -> Skills = Skills::with_resolver;

/// The registry's `async` methods, pinned the same way; their futures must be `Send` too.
#[expect(
    dead_code,
    reason = "compiled, never called: the signatures are the test"
)]
mod registry_signatures {
    use super::*;

    fn browse<'a>(
        skills: &'a Skills,
        category: Option<&'a str>,
    ) -> impl Future<Output = Result<registry::Listing, Error>> + Send + 'a {
        skills.registry_browse(category)
    }

    fn search<'a>(
        skills: &'a Skills,
        query: &'a Query,
    ) -> impl Future<Output = Result<registry::Listing, Error>> + Send + 'a {
        skills.registry_search(query)
    }

    fn categories(skills: &Skills) -> impl Future<Output = Result<Counts, Error>> + Send + '_ {
        skills.registry_categories()
    }

    fn sources(skills: &Skills) -> impl Future<Output = Result<Counts, Error>> + Send + '_ {
        skills.registry_sources()
    }

    fn refresh(skills: &Skills) -> impl Future<Output = Result<Status, Error>> + Send + '_ {
        skills.registry_refresh()
    }

    fn show<'a>(
        skills: &'a Skills,
        id: &'a str,
    ) -> impl Future<Output = Result<registry::Details, Error>> + Send + 'a {
        skills.registry_show(id)
    }

    fn install<'a>(
        skills: &'a Skills,
        request: &'a registry::InstallRequest,
    ) -> impl Future<Output = Result<skills::install::Outcome, Error>> + Send + 'a {
        skills.registry_install(request)
    }
}
const _: fn(&Skills, &str, Option<SkillScope>) -> Result<Uninstalled, Error> =
    Skills::registry_uninstall;
const _: fn(&str) -> Result<registry::Coordinates, registry::CoordinatesError> =
    registry::Coordinates::parse;
const _: fn(Skills, ConnectGuard) -> Skills = Skills::with_connect_guard;
const _: fn(Skills, ProgressSink) -> Skills = Skills::with_progress;
const _: fn(Skills, EventBus) -> Skills = Skills::with_events;
const _: fn(&Skills) -> Option<&EventBus> = Skills::events;

#[expect(
    dead_code,
    reason = "compiled, never called: the signature is the test"
)]
fn start_triggers_signature(
    skills: &Skills,
) -> impl Future<Output = Result<(TriggeredSkillSubscriber, Activations), Error>> + Send + '_ {
    skills.start_triggers()
}

// The bus, its subscriptions and the trigger types.
const _: fn(usize) -> EventBus = EventBus::new;
const _: fn(&EventBus, DomainEvent) -> usize = EventBus::publish;
const _: fn(&EventBus) -> Subscription = EventBus::subscribe;
const _: fn(&EventBus) -> usize = EventBus::subscriber_count;
const _: usize = EventBus::DEFAULT_CAPACITY;
const _: fn(&mut Subscription) -> Option<Received> = Subscription::try_recv;
const _: fn(&Catalog) -> TriggeredSkillIndex = TriggeredSkillIndex::build;
const _: fn(&TriggeredSkillIndex, &DomainEvent) -> Vec<String> = TriggeredSkillIndex::matching;
const _: fn(&TriggeredSkillIndex) -> usize = TriggeredSkillIndex::len;
const _: fn(&TriggeredSkillIndex) -> bool = TriggeredSkillIndex::is_empty;
const _: fn(&TriggeredSkillSubscriber) -> TriggeredSkillIndex = TriggeredSkillSubscriber::index;
const _: usize = TriggeredSkillSubscriber::CAPACITY;
const _: fn(&mut Activations) -> Option<Activation> = Activations::try_recv;

#[expect(
    dead_code,
    reason = "compiled, never called: the signatures are the test"
)]
async fn receive_signatures(subscription: &mut Subscription, activations: &mut Activations) {
    let _: Option<Received> = subscription.recv().await;
    let _: Option<Activation> = activations.recv().await;
    let _: Result<(TriggeredSkillSubscriber, Activations), Error> =
        TriggeredSkillSubscriber::start(
            &EventBus::default(),
            std::sync::Arc::new(|| Ok(Catalog::default())),
        )
        .await;
}

const fn assert_send_sync<T: Send + Sync>() {}
const _: () = {
    assert_send_sync::<Error>();
    assert_send_sync::<SkillDocument>();
    assert_send_sync::<Report>();
    assert_send_sync::<Options>();
    assert_send_sync::<SkillsConfig>();
    assert_send_sync::<skills::ToolResult>();
    assert_send_sync::<Skills>();
    assert_send_sync::<Catalog>();
    assert_send_sync::<EventBus>();
    assert_send_sync::<Subscription>();
    assert_send_sync::<TriggeredSkillSubscriber>();
    assert_send_sync::<Activations>();
    assert_send_sync::<skills::audit::Options>();
    assert_send_sync::<skills::audit::Reports>();
};

/// CI runs each direction with `SKILLS_EXPECT_ENABLED` set, so a feature-unification accident
/// (some other crate turning the feature back on) cannot silently test the wrong side.
#[test]
fn enabled_matches_the_mode_ci_asked_for() {
    let expected = std::env::var("SKILLS_EXPECT_ENABLED").unwrap_or_else(|_| {
        // Run by hand: the best available truth is how this test crate was compiled.
        if cfg!(feature = "skills") { "1" } else { "0" }.to_owned()
    });
    assert_eq!(
        skills::ENABLED,
        expected == "1",
        "SKILLS_EXPECT_ENABLED={expected}"
    );
}

#[expect(
    clippy::unwrap_used,
    reason = "test setup: a fixture that cannot be written ends the test"
)]
fn write_skill(root: &Path) -> PathBuf {
    let dir = root.join("pdf-tools");
    std::fs::create_dir(&dir).unwrap();
    let file = dir.join("SKILL.md");
    std::fs::write(
        &file,
        "---\nname: pdf-tools\ndescription: Reads PDFs.\n---\nBody\n",
    )
    .unwrap();
    file
}

#[test]
fn each_side_behaves_as_documented() {
    let root = tempfile::tempdir().unwrap();
    let file = write_skill(root.path());
    let dir = file.parent().unwrap();
    let options = Options::new(Profile::Agentskills);
    if skills::ENABLED {
        assert_eq!(skills::load::find_definition(dir).unwrap(), file);
        assert_eq!(
            skills::load::load_document(&file).unwrap().frontmatter.name,
            "pdf-tools"
        );
        assert!(skills::load::parse_document(&file, b"---\nname: a\n---\n").is_ok());
        assert!(
            skills::validate::validate_path(dir, &options)
                .unwrap()
                .valid
        );
        let bytes = b"---\nname: Other\ndescription: d\n---\n";
        assert!(
            !skills::validate::validate_bytes(&file, bytes, &options)
                .unwrap()
                .valid
        );
        assert_eq!(
            skills::validate::validate_tree(root.path(), &options)
                .unwrap()
                .len(),
            1
        );
        let site = root.path().join("site");
        let published =
            skills::publish::publish(&skills::publish::Request::new(vec![dir.into()], &site))
                .unwrap();
        assert_eq!(published.skills.len(), 1);
        assert!(published.index.is_file());
    } else {
        let disabled = |error: Error| assert_eq!(error.kind(), "disabled");
        let site = root.path().join("site");
        disabled(
            skills::publish::publish(&skills::publish::Request::new(vec![dir.into()], &site))
                .unwrap_err(),
        );
        assert!(!site.exists(), "the stub writes nothing");
        disabled(skills::load::find_definition(dir).unwrap_err());
        disabled(skills::load::load_document(&file).unwrap_err());
        disabled(skills::load::parse_document(&file, b"").unwrap_err());
        disabled(skills::validate::validate_path(dir, &options).unwrap_err());
        disabled(skills::validate::validate_bytes(&file, b"", &options).unwrap_err());
        disabled(skills::validate::validate_tree(root.path(), &options).unwrap_err());
    }
}

#[test]
fn the_handle_behaves_as_documented_on_each_side() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let root = home.path().join(".openhuman/skills");
    std::fs::create_dir_all(&root).unwrap();
    write_skill(&root);
    let mut config = SkillsConfig::new(workspace.path(), home.path());
    config.cache = false;
    let skills = Skills::new(config);
    let markdown = skills::render::Options::new(skills::render::Format::Markdown);
    if skills::ENABLED {
        assert_eq!(skills.discover().unwrap().skills.len(), 1);
        assert_eq!(
            skills.list(&ListOptions::default()).unwrap().skills[0].name,
            "pdf-tools"
        );
        let described = skills.get("pdf-tools").unwrap();
        assert_eq!(described.id, "pdf-tools");
        assert_eq!(described.resources, Some(Vec::new()));
        let error = skills
            .read_resource("pdf-tools", "../SKILL.md")
            .unwrap_err();
        assert_eq!(error.kind(), "refused_path");
        let written = skills
            .create(&CreateSkill::new("made", "Made here."))
            .unwrap();
        assert!(written.location.is_file());
        let mut changes = UpdateSkill::default();
        changes.description = Some("Changed.".into());
        skills.update("made", &changes).unwrap();
        assert_eq!(skills.get("made").unwrap().description, "Changed.");
        assert!(!skills.uninstall("made", None).unwrap().was_link);
        assert_eq!(skills.read(&["pdf-tools"]).unwrap()[0].body, "Body\n");
        assert_eq!(skills.explain("pdf-tools").unwrap().candidates.len(), 1);
        assert!(
            skills
                .render_catalog(&markdown)
                .unwrap()
                .text
                .contains("**pdf-tools**")
        );
        assert!(!skills.is_trusted());
        let workspace = skills.config().workspace.clone();
        skills.trust(&workspace).unwrap();
        assert!(skills.is_trusted());
        assert_eq!(skills.trusted_workspaces().unwrap().len(), 1);
        assert!(skills.revoke_trust(&workspace).unwrap().changed);
        let outcome = skills.sync_agents_md(&SyncOptions::default()).unwrap();
        assert!(outcome.changed);
    } else {
        let disabled = |error: Error| assert_eq!(error.kind(), "disabled");
        assert!(skills.discover().unwrap().skills.is_empty());
        assert!(
            skills
                .list(&ListOptions::default())
                .unwrap()
                .skills
                .is_empty()
        );
        disabled(skills.get("pdf-tools").unwrap_err());
        disabled(skills.read_resource("pdf-tools", "x.md").unwrap_err());
        disabled(skills.create(&CreateSkill::new("made", "d")).unwrap_err());
        disabled(skills.update("made", &UpdateSkill::default()).unwrap_err());
        disabled(skills.uninstall("made", None).unwrap_err());
        disabled(skills.read(&["pdf-tools"]).unwrap_err());
        disabled(skills.explain("pdf-tools").unwrap_err());
        assert_eq!(skills.render_catalog(&markdown).unwrap().text, "");
        assert!(!skills.is_trusted());
        let workspace = skills.config().workspace.clone();
        disabled(skills.trust(&workspace).unwrap_err());
        disabled(skills.revoke_trust(&workspace).unwrap_err());
        disabled(skills.trusted_workspaces().unwrap_err());
        disabled(skills.sync_agents_md(&SyncOptions::default()).unwrap_err());
        assert_eq!(skills::render::read_text(&[]), "");
    }
}

#[test]
fn the_audit_behaves_as_documented_on_each_side() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let root = home.path().join(".openhuman/skills");
    std::fs::create_dir_all(&root).unwrap();
    let dir = write_skill(&root).parent().unwrap().to_path_buf();
    let mut config = SkillsConfig::new(workspace.path(), home.path());
    config.cache = false;
    let skills = Skills::new(config);
    let request = skills::audit::Request::new();
    let options = skills::audit::Options::new();
    let staged = vec![("SKILL.md".to_owned(), b"---\nname: a\n---\n".to_vec())];
    let staged_report = skills::audit::scan_files(&dir, &staged, &options);
    if skills::ENABLED {
        let reports = skills.audit(&request).unwrap();
        assert_eq!(reports.results.len(), 1);
        let mut handed = Vec::new();
        let summary = skills
            .audit_each(&request, &mut |report| handed.push(report))
            .unwrap();
        assert_eq!(handed, reports.results);
        assert_eq!(summary, reports.summary);
        assert!(reports.results[0].is_safe);
        assert!(skills::audit::scan_dir(&dir, &options).unwrap().is_safe);
        assert!(staged_report.is_safe);
        assert!(!skills.audit_accept("pdf-tools").unwrap().recorded);
        let recheck = skills.audit_recheck(&[]).unwrap();
        assert_eq!(recheck.unchanged, 1, "{recheck:?}");
        assert!(recheck.diagnostics.is_empty(), "{recheck:?}");
        assert!(skills.audit_record(&reports.results).is_ok());
        assert!(skills::audit::stamp(&dir, &skills::audit::Caps::default()).is_some());
        assert!(skills.get("pdf-tools").unwrap().audit.is_some());
    } else {
        let disabled = |error: Error| assert_eq!(error.kind(), "disabled");
        disabled(skills.audit(&request).unwrap_err());
        let mut handed = 0;
        disabled(
            skills
                .audit_each(&request, &mut |_| handed += 1)
                .unwrap_err(),
        );
        assert_eq!(handed, 0, "nothing scanned, nothing handed on");
        disabled(skills.audit_accept("pdf-tools").unwrap_err());
        disabled(skills.audit_recheck(&[]).unwrap_err());
        disabled(skills.audit_record(&[]).unwrap_err());
        assert!(skills::audit::stamp(&dir, &skills::audit::Caps::default()).is_none());
        disabled(skills::audit::scan_dir(&dir, &options).unwrap_err());
        // Nothing was scanned, so nothing is claimed clean.
        assert!(!staged_report.is_safe);
        assert_eq!(staged_report.skipped.len(), 1);
    }
}

#[test]
fn the_registry_behaves_as_documented_on_each_side() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    // No catalog is configured, and none is reachable: nothing here touches the network.
    let skills = Skills::new(SkillsConfig::new(workspace.path(), home.path()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let request = registry::InstallRequest::new("@acme/pdf");
    let answers = runtime.block_on(async {
        [
            skills.registry_browse(None).await.map(drop),
            skills.registry_search(&Query::new("pdf")).await.map(drop),
            skills.registry_categories().await.map(drop),
            skills.registry_sources().await.map(drop),
            skills.registry_refresh().await.map(drop),
            skills.registry_install(&request).await.map(drop),
        ]
    });
    let expected = if skills::ENABLED {
        "not_configured"
    } else {
        "disabled"
    };
    for answer in answers {
        assert_eq!(answer.unwrap_err().kind(), expected);
    }
    let uninstalled = skills.registry_uninstall("@acme/pdf", None).unwrap_err();
    assert_eq!(
        uninstalled.kind(),
        if skills::ENABLED {
            "not_found"
        } else {
            "disabled"
        }
    );
    // Coordinates are plain data: parsed the same on both sides.
    let coordinates = registry::Coordinates::parse("acme--pdf@1.0").unwrap();
    assert_eq!(coordinates.to_string(), "@acme/pdf@1.0");
}

#[test]
fn the_runtime_behaves_as_documented_on_each_side() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let dir = home.path().join(".openhuman/skills/hello");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: hello\ndescription: Says hello.\n---\nRun scripts/hello.sh.\n",
    )
    .unwrap();
    std::fs::write(dir.join("scripts/hello.sh"), "echo \"hello $1\"\n").unwrap();
    let mut config = SkillsConfig::new(workspace.path(), home.path());
    config.cache = false;
    config.runtime.inherited_env = std::env::vars()
        .filter(|(name, _)| name == "PATH")
        .collect();
    // This test binary never calls `sandbox_main`, so it cannot be the sandbox's helper;
    // the sandbox is tested through binaries that do (tests/it/runtime/sandbox.rs).
    config.runtime.sandbox = skills::run::SandboxMode::Off;
    let skills = Skills::new(config.clone());
    let request = skills::run::Request::new(
        "hello",
        skills::run::Target::Script {
            path: "scripts/hello.sh".into(),
        },
    )
    .with_args(["world"]);
    let inputs = serde_json::Map::new();
    if skills::ENABLED {
        let outcome = skills.run(&request).unwrap();
        assert_eq!(outcome.stdout, "hello world\n");
        assert_eq!(outcome.exit_status(), 0);
        let runs = skills.recent_runs(10).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].run_id, outcome.run_id);
        assert!(!skills.cancel_run(&outcome.run_id).unwrap(), "it has ended");
        let log = skills.read_run_log(&outcome.run_id, 0, 1 << 16).unwrap();
        assert!(log.text.contains("hello world"));
        assert!(
            skills
                .resolve_runtimes(Some(RuntimeKind::Sh))
                .iter()
                .all(|runtime| runtime.usable)
        );
        assert!(
            skills
                .render_task("hello", &inputs)
                .unwrap()
                .prompt
                .contains("Run scripts/hello.sh.")
        );
        let mut read_only = config;
        read_only.read_only = true;
        let refused = Skills::new(read_only).run(&request).unwrap_err();
        assert_eq!(refused.kind(), "read_only");
        assert_eq!(skills.recent_runs(10).unwrap().len(), 1, "nothing ran");
    } else {
        let disabled = |error: Error| assert_eq!(error.kind(), "disabled");
        disabled(skills.run(&request).unwrap_err());
        disabled(skills.start_run(&request, None).unwrap_err());
        disabled(
            skills
                .cancel_run("0190b3c2-7d4e-7000-8000-000000000000")
                .unwrap_err(),
        );
        disabled(
            skills
                .read_run_log("0190b3c2-7d4e-7000-8000-000000000000", 0, 10)
                .unwrap_err(),
        );
        disabled(skills.render_task("hello", &inputs).unwrap_err());
        assert!(skills.recent_runs(10).unwrap().is_empty());
        assert!(skills.resolve_runtimes(None).is_empty());
        assert!(
            !home.path().join(".openhuman/runs").exists(),
            "the stub writes nothing"
        );
    }
}

#[test]
fn a_watch_behaves_as_documented_on_each_side() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let skills = Skills::new(SkillsConfig::new(workspace.path(), home.path()));
    let watched = skills.watch(&skills::watch::Options::default());
    if skills::ENABLED {
        let mut watch = watched.unwrap();
        match watch.blocking_next() {
            Some(skills::watch::Event::Ready { skills, watching }) => {
                assert_eq!(skills, 0);
                assert!(!watching.is_empty(), "the nearest folders above the roots");
            }
            other => panic!("a watch starts with `ready`, not {other:?}"),
        }
    } else {
        assert_eq!(watched.unwrap_err().kind(), "disabled");
    }
}
