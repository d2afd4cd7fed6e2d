//! `Skills`: the handle an agent core holds. It carries the configuration and answers every
//! question about the catalog; each method delegates to the compiled-in behaviour (or to the
//! stub's twin when the `skills` feature is off), so each signature is written once, here.
//! The live catalog (what orders events, keeps a watch's walk and the open search index) is
//! one value of `skills_ops::live::Catalog` (the stub's twin without the feature): the handle
//! holds it and delegates, and holds no state machine of its own.

use std::path::Path;
use std::sync::Arc;

use skills_types::catalog::{Explanation, ListOptions, Listing, SkillBody};
use skills_types::event::SkillsEvent;
use skills_types::install::{
    ConnectGuard, Hooks, InstallOutcome, InstallRequest, ProgressSink, Resolver,
};
use skills_types::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
use skills_types::registry::{self, Counts, Query, Status};
use skills_types::render::{RenderOptions, Rendered, SyncOptions, SyncOutcome};
use skills_types::run::{
    RunHooks, RunLogChunk, RunNotice, RunOutcome, RunRequest, RunSink, RunSummary, RuntimeInfo,
    RuntimeKind, SetupOutcome, SetupRequest, StartedRun, Task, TestOutcome, TestRequest,
};
use skills_types::search::SearchHit;
use skills_types::service::{BoxFuture, SkillsService};
use skills_types::skill::{Resource, ResourceBytes, ResourceContent};
use skills_types::tool::{ToolCall, ToolExecution, ToolInfo};
use skills_types::trust::{TrustChange, TrustedWorkspace};
use skills_types::validate::{Options, Report};
use skills_types::watch::{Watch, WatchOptions};
use skills_types::{Catalog, Error, Skill, SkillScope, SkillsConfig};

use crate::bus::{Activations, CatalogSource, EventBus, TriggeredSkillSubscriber};
use crate::{audit_impl, install_impl, ops, runtime_impl};

/// The skills subsystem for one workspace and home.
#[derive(Clone, Debug)]
pub struct Skills {
    config: SkillsConfig,
    hooks: Hooks,
    events: Option<EventBus>,
    /// The live catalog, shared by the handle's clones: events in order, a watch's kept walk
    /// and stamps, the open search index.
    live: ops::live::Catalog,
    runtime: runtime_impl::Runtime,
    /// The handle's own notice sink (`with_run_notices`); its bus is added per run.
    run_hooks: RunHooks,
}

impl Skills {
    /// A handle over this configuration. Nothing is read until a method asks.
    pub fn new(config: SkillsConfig) -> Self {
        Self {
            config,
            hooks: Hooks::default(),
            events: None,
            live: ops::live::Catalog::new(),
            runtime: runtime_impl::Runtime::new(),
            run_hooks: RunHooks::default(),
        }
    }

    /// The same handle telling `sink` about every run it starts: output as it is read and
    /// the end (what `skills serve` turns into `skill_runtime.output` and
    /// `skill_runtime.finished` notifications).
    #[must_use]
    pub fn with_run_notices(mut self, sink: RunSink) -> Self {
        self.run_hooks.notices = Some(sink);
        self
    }

    /// The same handle resolving host names with `resolver` (every answer still goes through
    /// the address check).
    #[must_use]
    pub fn with_resolver(mut self, resolver: Arc<dyn Resolver>) -> Self {
        self.hooks.resolver = Some(resolver);
        self
    }

    /// The same handle vetting every address before the client connects to it (a test or a
    /// sandbox proving nothing leaves the machine).
    #[must_use]
    pub fn with_connect_guard(mut self, guard: ConnectGuard) -> Self {
        self.hooks.connect_guard = Some(guard);
        self
    }

    /// The same handle telling `sink` how installs are going (a progress bar).
    #[must_use]
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.hooks.progress = Some(sink);
        self
    }

    /// The same handle publishing into `bus` (04 §The bus): `created`, `updated`,
    /// `uninstalled` and `installed` after each mutation, then `catalog_changed` (and
    /// `load_error`) when a discovery differs from the last one this handle saw.
    #[must_use]
    pub fn with_events(mut self, bus: EventBus) -> Self {
        self.live = self.live.with_sink(Arc::new(bus.clone()));
        self.events = Some(bus);
        self
    }

    /// The bus the handle publishes into, if any.
    pub fn events(&self) -> Option<&EventBus> {
        self.events.as_ref()
    }

    /// Starts a trigger subscriber on the handle's bus (on the current tokio runtime): every
    /// event matching a skill's `triggers` becomes an [`Activation`](crate::bus::Activation),
    /// and the index is rebuilt on every `catalog_changed`. Fails without a bus.
    pub async fn start_triggers(&self) -> Result<(TriggeredSkillSubscriber, Activations), Error> {
        let bus = self.events.as_ref().ok_or_else(|| Error::NotConfigured {
            what: "the event bus triggers listen on".to_owned(),
            how: "build the handle with `with_events`".to_owned(),
        })?;
        let config = self.checked()?.clone();
        let source: CatalogSource = Arc::new(move || ops::discover::discover(&config));
        TriggeredSkillSubscriber::start(bus, source).await
    }

    /// The configuration the handle was built with.
    pub fn config(&self) -> &SkillsConfig {
        &self.config
    }

    /// The configuration with the home `skills.toml` layered on (the handle's own values
    /// win): where `[registry]` and `[github]` are read from. The stub reads no file and
    /// answers the handle's configuration.
    pub fn home_config(&self) -> SkillsConfig {
        ops::discover::home_config(&self.config)
    }

    /// Discovers every skill: the catalog, the shadowed copies, the hidden skills and what the
    /// scan noticed.
    pub fn discover(&self) -> Result<Catalog, Error> {
        self.live.discover(self.checked()?)
    }

    /// The catalog as summaries (no frontmatter, no bodies).
    pub fn list(&self, options: &ListOptions) -> Result<Listing, Error> {
        ops::catalog::list_with(self.checked()?, options, &audit_impl::mark)
    }

    /// The skill an agent would use under `name` (or whose directory is `name`), with its
    /// bundled files listed.
    pub fn get(&self, name: &str) -> Result<Skill, Error> {
        let config = self.checked()?;
        let mut skill = ops::resources::describe(config, name)?;
        audit_impl::mark(config, std::slice::from_mut(&mut skill));
        Ok(skill)
    }

    /// One bundled file of a skill, read through the safe reader (no traversal, no symlinks,
    /// no hard links, no special files; at most 128 KiB of UTF-8 text).
    pub fn read_resource(
        &self,
        id_or_name: &str,
        relative_path: &str,
    ) -> Result<ResourceContent, Error> {
        ops::resources::read_resource(self.checked()?, id_or_name, relative_path)
    }

    /// One bundled file's bytes, by every rule of [`Skills::read_resource`] but the text
    /// check: for a server that hands out the images and archives a skill bundles.
    pub fn read_resource_bytes(
        &self,
        id_or_name: &str,
        relative_path: &str,
    ) -> Result<ResourceBytes, Error> {
        ops::resources::read_resource_bytes(self.checked()?, id_or_name, relative_path)
    }

    /// The bundled files of each skill folder of `folders` (as a listing just gave them), in
    /// the order given, without a discovery.
    pub fn inventories(&self, folders: &[&Path]) -> Vec<Vec<Resource>> {
        ops::resources::inventories(folders)
    }

    /// The skills that best match `query` (a task as a user phrases it), at most `limit`
    /// (1 to 50), best first, each with its score and the fields it matched; the index is
    /// kept in the cache folder and follows the files. While the handle watches, the index is
    /// kept open and brought up to date once per change the watch reports, so a search does
    /// not discover the catalog again.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        self.live.search(self.checked()?, query, limit)
    }

    /// Watches every root of the catalog, the trust record and the configuration files
    /// (08 §The live catalog) until the returned stream is dropped. It starts with
    /// [`Ready`](crate::watch::Event::Ready); after each burst of file events (quiet
    /// for `options.debounce`) the catalog is discovered again and compared with the last
    /// one, and the difference is one
    /// [`CatalogChanged`](crate::watch::Event::CatalogChanged) (also published on the
    /// handle's bus, so the trigger index and any server on it follow). From the first watch
    /// on, a skill whose definition file stops loading keeps its last valid version in every
    /// answer of this handle and its clones ([`LoadError`](crate::watch::Event::LoadError)
    /// names it) until the file loads again or is removed. A path the kernel will not watch
    /// is polled instead ([`Watching`](crate::watch::Event::Watching)). The skills a
    /// change adds or touches are audited again
    /// ([`AuditChanged`](crate::watch::Event::AuditChanged) when a verdict changed).
    pub fn watch(&self, options: &WatchOptions) -> Result<Watch, Error> {
        self.live
            .watch(self.checked()?, options, Some(audit_impl::rescan))
    }

    /// The listing and the rendered catalog from one discovery.
    pub fn overview(
        &self,
        list: &ListOptions,
        render: &RenderOptions,
    ) -> Result<(Listing, Rendered), Error> {
        ops::catalog::overview_with(self.checked()?, list, render, &audit_impl::mark)
    }

    /// Creates a skill in the first root of its scope, atomically; refuses to overwrite.
    pub fn create(&self, request: &CreateSkill) -> Result<Written, Error> {
        let order = self.begin();
        let written = ops::manage::create(self.writable("create a skill")?, request)?;
        self.changed(&order, SkillsEvent::Created, [&written]);
        Ok(written)
    }

    /// Changes a skill's frontmatter or body, atomically; the body is kept unless replaced.
    pub fn update(&self, id: &str, changes: &UpdateSkill) -> Result<Written, Error> {
        let order = self.begin();
        let written = ops::manage::update(self.writable("change a skill")?, id, changes)?;
        self.changed(&order, SkillsEvent::Updated, [&written]);
        Ok(written)
    }

    /// Removes a skill folder from a user or trusted project root (a symlinked one as a link).
    pub fn uninstall(&self, name: &str, scope: Option<SkillScope>) -> Result<Uninstalled, Error> {
        let order = self.begin();
        let removed = ops::manage::uninstall(self.writable("uninstall a skill")?, name, scope)?;
        self.changed(&order, SkillsEvent::Uninstalled, [&removed]);
        Ok(removed)
    }

    /// The bodies of the named skills, with their base directories, in the order asked.
    pub fn read(&self, names: &[&str]) -> Result<Vec<SkillBody>, Error> {
        ops::catalog::read_with(self.checked()?, names, &audit_impl::mark)
    }

    /// Every copy of `name` and why the winner won.
    pub fn explain(&self, name: &str) -> Result<Explanation, Error> {
        ops::catalog::explain(self.checked()?, name)
    }

    /// The catalog as an agent sees it, in a format and within a budget.
    pub fn render_catalog(&self, options: &RenderOptions) -> Result<Rendered, Error> {
        ops::catalog::render_catalog_with(self.checked()?, options, &audit_impl::mark)
    }

    /// Writes the skills block of `AGENTS.md`, leaving the rest of the file alone.
    pub fn sync_agents_md(&self, options: &SyncOptions) -> Result<SyncOutcome, Error> {
        ops::agents_md::sync(self.writable("write AGENTS.md")?, options)
    }

    /// Installs the skills a source names (a URL of any publisher form, a GitHub repository,
    /// folder or file, an archive, a local folder or archive): downloaded and checked in
    /// memory, then written atomically into the scope's root; one outcome per skill. With
    /// `request.list`, nothing is written.
    pub async fn install(&self, request: &InstallRequest) -> Result<Vec<InstallOutcome>, Error> {
        self.live.baseline(self.checked().ok());
        let outcomes =
            install_impl::install(self.writable("install skills")?, &self.hooks, request).await?;
        let written = outcomes.iter().filter(|outcome| !outcome.already_installed);
        self.changed(&self.live.order(), SkillsEvent::Installed, written);
        Ok(outcomes)
    }

    /// Compares every installed skill (those with a provenance record in a user or project
    /// root; only `request.names` when given) with what its source serves now: an update is
    /// available when the source's files differ from those installed, and a skill is
    /// `locally_modified` when its files on disk differ from them. Writes nothing.
    pub async fn check_updates(
        &self,
        request: &skills_types::update::Request,
    ) -> Result<Vec<skills_types::update::Check>, Error> {
        install_impl::update::check(self.checked()?, &self.hooks, request).await
    }

    /// Re-installs every selected skill whose source changed, through the same staged,
    /// atomic writer as [`Skills::install`], recording the same source. A skill changed
    /// locally since install is kept (`kept_local_changes`) unless `request.force` is set.
    /// Publishes `installed` for each skill written.
    pub async fn update_installed(
        &self,
        request: &skills_types::update::Request,
    ) -> Result<Vec<skills_types::update::Outcome>, Error> {
        self.live.baseline(self.checked().ok());
        let outcomes =
            install_impl::update::update(self.writable("update skills")?, &self.hooks, request)
                .await?;
        let written = outcomes
            .iter()
            .filter_map(|outcome| outcome.installed.as_ref());
        self.changed(&self.live.order(), SkillsEvent::Installed, written);
        Ok(outcomes)
    }

    /// Restores every skill the install records of `request.scope` list (each root's
    /// `.skills-installed.json`; in a project, the vercel tool's `skills-lock.json` too, read
    /// and never written): installed from its recorded source at its recorded version, and
    /// only when what the source serves has the recorded digest. A skill installed as
    /// recorded is left alone. With `request.frozen`, every source is fetched and every skill
    /// compared first, and nothing is written unless nothing differs. Publishes `installed`
    /// for each skill written.
    pub async fn restore(
        &self,
        request: &skills_types::restore::Request,
    ) -> Result<skills_types::restore::Report, Error> {
        self.live.baseline(self.checked().ok());
        let report =
            install_impl::restore::restore(self.writable("restore skills")?, &self.hooks, request)
                .await?;
        let written = report
            .skills
            .iter()
            .filter_map(|outcome| outcome.installed.as_ref());
        self.changed(&self.live.order(), SkillsEvent::Installed, written);
        Ok(report)
    }

    /// Fetches the remote packs the configuration lists (`urls` of the home `skills.toml`, and
    /// of the workspace's when it is trusted) into the cache the `remote` scope lists; with
    /// `request.stale_only`, only those older than a day, missing or failed (what a
    /// long-running process calls in the background). A pack that fails keeps its last good
    /// copy and says why in its line. Never called by a listing.
    pub async fn refresh_remotes(
        &self,
        request: &skills_types::remote::Refresh,
    ) -> Result<Vec<skills_types::remote::Refreshed>, Error> {
        self.live.baseline(self.checked().ok());
        let refreshed =
            install_impl::remote::refresh(self.checked()?, &self.hooks, request).await?;
        self.changed::<()>(&self.live.order(), SkillsEvent::CatalogChanged, []);
        Ok(refreshed)
    }

    /// Every entry of the registry catalog (only those of `category`, ignoring case, when
    /// given), sorted by name. A cached catalog older than an hour answers at once and is
    /// refreshed in the background on the caller's tokio runtime (`catalog.refreshing`); the
    /// next call sees the result.
    pub async fn registry_browse(
        &self,
        category: Option<&str>,
    ) -> Result<registry::Listing, Error> {
        install_impl::registry::browse(self.checked()?, &self.hooks, category).await
    }

    /// The registry entries matching `query` (every word, ignoring case, in the name,
    /// description or tags), best match first. A stale cache is refreshed first.
    pub async fn registry_search(&self, query: &Query) -> Result<registry::Listing, Error> {
        install_impl::registry::search(self.checked()?, &self.hooks, query).await
    }

    /// The registry's categories, each with how many entries it holds.
    pub async fn registry_categories(&self) -> Result<Counts, Error> {
        install_impl::registry::categories(self.checked()?, &self.hooks).await
    }

    /// The registry's sources, each with how many entries it holds.
    pub async fn registry_sources(&self) -> Result<Counts, Error> {
        install_impl::registry::sources(self.checked()?, &self.hooks).await
    }

    /// Fetches the registry catalog now, whatever the cache holds (concurrent refreshes, in
    /// this process or others sharing the home, make one request).
    pub async fn registry_refresh(&self) -> Result<Status, Error> {
        install_impl::registry::refresh(self.checked()?, &self.hooks).await
    }

    /// One registry entry (by its name or any coordinates) as the registry describes it: a
    /// catalog's cached entry, or a ClawHub or skillhub server's answer with its notes (a
    /// moderation flag and whether it stops an install). Downloads nothing.
    pub async fn registry_show(&self, id: &str) -> Result<registry::Details, Error> {
        install_impl::registry::show(self.checked()?, &self.hooks, id).await
    }

    /// Installs a registry entry (by its name or any coordinates, `@acme/pdf@1.2.0`) under
    /// its bare slug, through the same checks and atomic writes as [`Skills::install`]; a
    /// skill of another namespace under that slug is a conflict unless `force` is set.
    /// Publishes `installed` like [`Skills::install`].
    pub async fn registry_install(
        &self,
        request: &registry::InstallRequest,
    ) -> Result<InstallOutcome, Error> {
        self.live.baseline(self.checked().ok());
        let outcome =
            install_impl::registry::install(self.writable("install skills")?, &self.hooks, request)
                .await?;
        let written = Some(&outcome).filter(|outcome| !outcome.already_installed);
        self.changed(&self.live.order(), SkillsEvent::Installed, written);
        Ok(outcome)
    }

    /// Removes the skill installed under the slug of `name` (any coordinates) like
    /// [`Skills::uninstall`] (and publishes `uninstalled` like it); when `name` has a
    /// namespace, a skill there from another namespace is left alone.
    pub fn registry_uninstall(
        &self,
        name: &str,
        scope: Option<SkillScope>,
    ) -> Result<Uninstalled, Error> {
        let order = self.begin();
        let removed =
            install_impl::registry::uninstall(self.writable("uninstall a skill")?, name, scope)?;
        self.changed(&order, SkillsEvent::Uninstalled, [&removed]);
        Ok(removed)
    }

    /// Runs a skill's script, inline code or entry to its end under the process policy of
    /// 07 (argv only, the environment rebuilt from an allowlist, the workspace as working
    /// directory, the whole process group stopped on deadline or cancel, output capped at
    /// 1 MiB per stream) and records it under `<home>/<app_dir>/runs/`. Every check happens
    /// before anything is spawned; a script that fails is an outcome, not an error.
    pub fn run(&self, request: &RunRequest) -> Result<RunOutcome, Error> {
        self.run_with(request, None)
    }

    /// [`Skills::run`], also telling `sink` the run's output as it is read (a command line
    /// printing it live).
    pub fn run_with(
        &self,
        request: &RunRequest,
        sink: Option<RunSink>,
    ) -> Result<RunOutcome, Error> {
        self.runtime
            .run(self.writable("run code")?, request, &self.run_hooks(sink))
    }

    /// Checks and registers a run, then runs it in the background: the id comes back at once
    /// (cancellable from then on) and [`StartedRun::wait`] gives the outcome.
    pub fn start_run(
        &self,
        request: &RunRequest,
        sink: Option<RunSink>,
    ) -> Result<StartedRun, Error> {
        self.runtime
            .start(self.writable("run code")?, request, &self.run_hooks(sink))
    }

    /// Installs a skill's declared dependencies (`requirements.txt`, its scripts' inline
    /// `# /// script` metadata, `package.json`) and the Python packages `request` adds into
    /// the skill's own environment in the home's app folder: a Python virtual environment
    /// made with the interpreter runs use, and npm's `node_modules`. Each step runs like a
    /// run (same spawner, sandbox and log) with the network rule of `[runtime]
    /// setup_network`; `sink` gets their output. Runs of the skill use the environment from
    /// then on. Nothing is installed unless asked for here.
    pub fn setup_skill(
        &self,
        request: &SetupRequest,
        sink: Option<RunSink>,
    ) -> Result<SetupOutcome, Error> {
        self.runtime.setup(
            self.writable("set up a skill's dependencies")?,
            request,
            &self.run_hooks(sink),
        )
    }

    /// Scans what `request` names (skill folders or catalog names; nothing: every skill of
    /// the catalog, every scope) offline: one report per skill, in the order asked, each
    /// with the rules the user accepted for its files as they are now and its verdict against
    /// `request.fail_on` (else `[audit] fail_on`). A target that cannot be scanned is listed
    /// in the summary's `skills_skipped`; a configuration file that cannot be honoured, or a
    /// missing `[audit] rules` folder, is an error.
    pub fn audit(
        &self,
        request: &skills_types::audit::Request,
    ) -> Result<skills_types::audit::Reports, Error> {
        audit_impl::audit(self.checked()?, request)
    }

    /// [`Skills::audit`] with each report handed to `sink` in order as soon as it is known,
    /// none kept (the reports alive at once are a few dozen, whatever the count of skills):
    /// the answer is the totals. An error comes before the first report, never after one.
    pub fn audit_each(
        &self,
        request: &skills_types::audit::Request,
        sink: &mut dyn FnMut(skills_types::audit::Report),
    ) -> Result<skills_types::audit::Summary, Error> {
        audit_impl::audit_each(self.checked()?, request, sink)
    }

    /// Accepts the findings of the skill `name` (or the folder it names) as its files are now:
    /// every rule with a finding at or above the lowest `[audit]` threshold stops blocking
    /// until a byte, a name or a file of the skill changes. Recorded in the home
    /// (`<home>/<app_dir>/audit-accepted.json`), never in the workspace.
    pub fn audit_accept(&self, name: &str) -> Result<skills_types::audit::Accepted, Error> {
        audit_impl::accept(self.writable("accept audit findings")?, name)
    }

    /// `skills check`'s audit part: the skills `names` names (every skill of the catalog when
    /// none) whose last verdict is missing, was made by other rules than those in force, or
    /// is older than their files are scanned again and their verdicts recorded in the home
    /// (`<home>/<app_dir>/audit-verdicts.json`); the flagged ones come back as
    /// `audit-flagged` diagnostics.
    pub fn audit_recheck(&self, names: &[String]) -> Result<skills_types::audit::Recheck, Error> {
        audit_impl::recheck(self.writable("record audit verdicts")?, names)
    }

    /// Records the verdicts of `reports` (each skill folder as its `skill_path` names it, its
    /// files as they are now) for `list`, `show` and the MCP catalog to mark flagged skills
    /// by: what an install calls once it has written the skills it scanned.
    pub fn audit_record(&self, reports: &[skills_types::audit::Report]) -> Result<(), Error> {
        audit_impl::record(self.writable("record audit verdicts")?, reports)
    }

    /// What is wrong with the configuration files this handle reads (the home `skills.toml`,
    /// and a trusted workspace's): the `invalid-config` diagnostics a listing carries, for a
    /// caller that uses the settings without listing (a value that means nothing, such as
    /// `[runtime] sandbox = "of"`, refuses runs and is said here).
    pub fn settings_diagnostics(&self) -> Vec<skills_types::Diagnostic> {
        match self.checked() {
            Ok(config) => ops::discover::settings_diagnostics(config),
            Err(_) => Vec::new(),
        }
    }

    /// Stops a run, from this process or another sharing the home: `true` when a running run
    /// was signalled, `false` when the id is unknown or the run already ended.
    pub fn cancel_run(&self, run_id: &str) -> Result<bool, Error> {
        self.runtime.cancel(self.checked()?, run_id)
    }

    /// The newest runs first, at most `limit` (clamped to 1..=100), each with its status.
    pub fn recent_runs(&self, limit: usize) -> Result<Vec<RunSummary>, Error> {
        self.runtime.recent_runs(self.checked()?, limit)
    }

    /// Up to `max_bytes` (clamped to 1..=256 KiB) of a run's JSON Lines log from `offset`.
    pub fn read_run_log(
        &self,
        run_id: &str,
        offset: u64,
        max_bytes: usize,
    ) -> Result<RunLogChunk, Error> {
        self.runtime
            .read_run_log(self.checked()?, run_id, offset, max_bytes)
    }

    /// The interpreters (every kind, or one): path, version, and whether runs may use it.
    /// Resolved once per handle.
    pub fn resolve_runtimes(&self, kind: Option<RuntimeKind>) -> Vec<RuntimeInfo> {
        match self.checked() {
            Ok(config) => self.runtime.resolve_runtimes(config, kind),
            Err(_) => Vec::new(),
        }
    }

    /// An instruction-only skill as an agent session for the core's own loop: the body with
    /// a block of the (checked) inputs, the `[agent]` table and the `[github]` preflight.
    pub fn render_task(
        &self,
        skill: &str,
        inputs: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Task, Error> {
        self.runtime.render_task(self.checked()?, skill, inputs)
    }

    /// Every tool the catalog's skills declare (`[[tools]]`), offered as `<skill>__<tool>`
    /// with its description, category, the skill's permission and scope, and its schema.
    pub fn list_tools(&self) -> Result<Vec<ToolInfo>, Error> {
        self.runtime.list_tools(self.checked()?)
    }

    /// Calls a declared tool: the arguments are checked against its schema before anything
    /// runs, then its script runs like any run (same policy, sandbox and log) with the
    /// arguments as JSON on stdin and in `SKILL_TOOL_ARGS`; publishes `tool_started` and
    /// `tool_finished` with the call's session id.
    pub fn execute_tool(&self, call: &ToolCall) -> Result<ToolExecution, Error> {
        self.runtime
            .execute_tool(self.writable("run code")?, call, &self.run_hooks(None))
    }

    /// Runs the self-tests (`[[tests]]`) of one skill, or of every skill that declares any,
    /// through the same runtime: one outcome per test, passed or not and why.
    pub fn run_tests(
        &self,
        request: &TestRequest,
        sink: Option<RunSink>,
    ) -> Result<Vec<TestOutcome>, Error> {
        self.runtime
            .run_tests(self.writable("run code")?, request, &self.run_hooks(sink))
    }

    /// Whether the workspace's project and legacy skills are loaded (never with an
    /// application directory that is not one plain folder name).
    pub fn is_trusted(&self) -> bool {
        self.checked().is_ok_and(ops::trust::is_trusted)
    }

    /// Records `workspace` as trusted by this user, in `<home>/<app_dir>/trusted-workspaces.json`
    /// (by canonical path and folder identity; nothing is written into the workspace).
    pub fn trust(&self, workspace: &Path) -> Result<TrustChange, Error> {
        let order = self.begin();
        let change = ops::trust::trust(self.writable("trust a workspace")?, workspace)?;
        self.changed::<()>(&order, SkillsEvent::CatalogChanged, []);
        Ok(change)
    }

    /// Removes the user's record of `workspace`, also when its folder is gone.
    pub fn revoke_trust(&self, workspace: &Path) -> Result<TrustChange, Error> {
        let order = self.begin();
        let change = ops::trust::revoke(self.writable("revoke trust")?, workspace)?;
        self.changed::<()>(&order, SkillsEvent::CatalogChanged, []);
        Ok(change)
    }

    /// Every workspace this user trusts, and whether each folder is still the one trusted.
    pub fn trusted_workspaces(&self) -> Result<Vec<TrustedWorkspace>, Error> {
        ops::trust::list(self.checked()?)
    }

    /// The configuration, once its application directory is known to be one plain folder
    /// name. Every call goes through here: the name is joined onto the home and the
    /// workspace, and `../x` or `/etc` would put the trust record, the caches and new skills
    /// outside both.
    fn checked(&self) -> Result<&SkillsConfig, Error> {
        skills_types::config::check_app_dir(&self.config.app_dir)
            .map_err(|error| Error::InvalidInput(error.to_string()))?;
        Ok(&self.config)
    }

    /// The configuration, when the handle may `action` (it is not read-only).
    fn writable(&self, action: &str) -> Result<&SkillsConfig, Error> {
        let config = self.checked()?;
        if config.read_only {
            return Err(Error::ReadOnly {
                action: action.to_owned(),
            });
        }
        Ok(config)
    }

    /// Who hears about a run: the handle's notice sink and `sink`, and the handle's bus.
    fn run_hooks(&self, sink: Option<RunSink>) -> RunHooks {
        let notices = match (self.run_hooks.notices.clone(), sink) {
            (Some(first), Some(second)) => Some(Arc::new(move |notice: &RunNotice| {
                first(notice);
                second(notice);
            }) as RunSink),
            (first, second) => first.or(second),
        };
        RunHooks {
            notices,
            events: self
                .events
                .clone()
                .map(|bus| Arc::new(bus) as skills_types::event::SharedSink),
        }
    }

    /// Before a mutation: the live catalog's event-order lock, with a catalog to compare the
    /// mutation's with (when the configuration is usable; a mutation refused for it publishes
    /// nothing).
    fn begin(&self) -> ops::live::Order<'_> {
        self.live.begin(self.checked().ok())
    }

    /// After a mutation under `order`: its `kind` event once per result, then the catalog's
    /// changes.
    fn changed<'a, T: serde::Serialize + 'a>(
        &self,
        order: &ops::live::Order<'_>,
        kind: SkillsEvent,
        results: impl IntoIterator<Item = &'a T>,
    ) {
        if let Ok(config) = self.checked() {
            self.live.changed(config, order, kind, results);
        }
    }
}

/// The handle serves the RPC controllers: a controller call is exactly a handle call, with
/// the same configuration and the same events.
impl SkillsService for Skills {
    fn config(&self) -> &SkillsConfig {
        Skills::config(self)
    }

    fn list(&self, options: &ListOptions) -> Result<Listing, Error> {
        Skills::list(self, options)
    }

    fn get(&self, id: &str) -> Result<Skill, Error> {
        Skills::get(self, id)
    }

    fn read(&self, ids: &[&str]) -> Result<Vec<SkillBody>, Error> {
        Skills::read(self, ids)
    }

    fn read_resource(&self, id: &str, relative_path: &str) -> Result<ResourceContent, Error> {
        Skills::read_resource(self, id, relative_path)
    }

    fn read_resource_bytes(&self, id: &str, relative_path: &str) -> Result<ResourceBytes, Error> {
        Skills::read_resource_bytes(self, id, relative_path)
    }

    fn inventories(&self, folders: &[&Path]) -> Vec<Vec<Resource>> {
        Skills::inventories(self, folders)
    }

    fn overview(
        &self,
        list: &ListOptions,
        render: &RenderOptions,
    ) -> Result<(Listing, Rendered), Error> {
        Skills::overview(self, list, render)
    }

    fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        Skills::search(self, query, limit)
    }

    fn watch(&self, options: &WatchOptions) -> Result<Watch, Error> {
        Skills::watch(self, options)
    }

    fn explain(&self, name: &str) -> Result<Explanation, Error> {
        Skills::explain(self, name)
    }

    fn validate(&self, path: &Path, options: &Options) -> Result<Report, Error> {
        ops::validate::validate_path(path, options)
    }

    fn render_catalog(&self, options: &RenderOptions) -> Result<Rendered, Error> {
        Skills::render_catalog(self, options)
    }

    fn create(&self, request: &CreateSkill) -> Result<Written, Error> {
        Skills::create(self, request)
    }

    fn update(&self, id: &str, changes: &UpdateSkill) -> Result<Written, Error> {
        Skills::update(self, id, changes)
    }

    fn uninstall(&self, name: &str, scope: Option<SkillScope>) -> Result<Uninstalled, Error> {
        Skills::uninstall(self, name, scope)
    }

    fn install<'a>(
        &'a self,
        request: &'a InstallRequest,
    ) -> BoxFuture<'a, Result<Vec<InstallOutcome>, Error>> {
        Box::pin(Skills::install(self, request))
    }

    fn registry_browse<'a>(
        &'a self,
        category: Option<&'a str>,
        force_refresh: bool,
    ) -> BoxFuture<'a, Result<registry::Listing, Error>> {
        Box::pin(async move {
            if force_refresh {
                self.registry_refresh().await?;
            }
            Skills::registry_browse(self, category).await
        })
    }

    fn registry_search<'a>(
        &'a self,
        query: &'a Query,
    ) -> BoxFuture<'a, Result<registry::Listing, Error>> {
        Box::pin(Skills::registry_search(self, query))
    }

    fn registry_categories(&self) -> BoxFuture<'_, Result<Counts, Error>> {
        Box::pin(Skills::registry_categories(self))
    }

    fn registry_sources(&self) -> BoxFuture<'_, Result<Counts, Error>> {
        Box::pin(Skills::registry_sources(self))
    }

    fn registry_install<'a>(
        &'a self,
        request: &'a registry::InstallRequest,
    ) -> BoxFuture<'a, Result<InstallOutcome, Error>> {
        Box::pin(Skills::registry_install(self, request))
    }

    fn registry_uninstall(
        &self,
        name: &str,
        scope: Option<SkillScope>,
    ) -> Result<Uninstalled, Error> {
        Skills::registry_uninstall(self, name, scope)
    }

    fn start_run(&self, request: &RunRequest) -> Result<StartedRun, Error> {
        Skills::start_run(self, request, None)
    }

    fn cancel_run(&self, run_id: &str) -> Result<bool, Error> {
        Skills::cancel_run(self, run_id)
    }

    fn recent_runs(&self, limit: usize) -> Result<Vec<RunSummary>, Error> {
        Skills::recent_runs(self, limit)
    }

    fn read_run_log(
        &self,
        run_id: &str,
        offset: u64,
        max_bytes: usize,
    ) -> Result<RunLogChunk, Error> {
        Skills::read_run_log(self, run_id, offset, max_bytes)
    }

    fn resolve_runtimes(&self, kind: Option<RuntimeKind>) -> Vec<RuntimeInfo> {
        Skills::resolve_runtimes(self, kind)
    }

    fn render_task(
        &self,
        skill: &str,
        inputs: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Task, Error> {
        Skills::render_task(self, skill, inputs)
    }

    fn list_tools(&self) -> Result<Vec<ToolInfo>, Error> {
        Skills::list_tools(self)
    }

    fn execute_tool(&self, call: &ToolCall) -> Result<ToolExecution, Error> {
        Skills::execute_tool(self, call)
    }

    fn audit(
        &self,
        request: &skills_types::audit::Request,
    ) -> Result<skills_types::audit::Reports, Error> {
        Skills::audit(self, request)
    }
}
