//! Discovery (02): finds every skill under the configured roots, resolves name collisions by
//! precedence, applies permissions, and returns the [`Catalog`] an agent core shows its model.
//!
//! The steps, each in its own module: the configuration files are layered on
//! (`settings`); the roots are planned in precedence order, untrusted ones set aside
//! (`roots`); the walk finds skill directories (`scan`); definition files are parsed in
//! parallel, unchanged ones taken from the cache (`cache`, `sidecar`); then the first copy
//! of each name met wins, the rest are recorded as shadowed, and permission rules hide or flag
//! the winners (`permission`). The result is sorted by name and byte-for-byte identical from
//! run to run on the same tree. A watching handle's discoveries ([`rediscover`]) keep their
//! walk, and a burst inside known skill folders looks at those folders alone (`walked`).

mod agent_policy;
mod cache;
mod extent;
mod last_good;
pub(crate) mod overlap;

use overlap::UserPlaces;

pub(crate) use cache::roots_digest;
mod permission;
mod probe;
pub mod remote;
mod roots;
mod scan;
pub(crate) mod settings;
mod sidecar;
mod walked;

pub use walked::Walked;

pub use agent_policy::{AgentPolicy, agent_policy};

pub(crate) use extent::{RootExtent, extent};
pub(crate) use probe::DirKey;

pub use sidecar::{is_model_tool_name, is_offered, tool_name};

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use skills_types::catalog::{Hidden, HiddenReason, Root};
use skills_types::config::Permission;
use skills_types::files::{
    AGENTS_METADATA_DIR, OPENAI_METADATA_FILE, SKILL_JSON, SKILL_TOML, WORKFLOW_TOML,
};
use skills_types::limits::MAX_AGENT_METADATA_BYTES;
use skills_types::limits::MAX_SKILL_MD_BYTES;
use skills_types::skill::{Invocation, Shadowed, SkillInput};
use skills_types::{
    Catalog, Diagnostic, DiagnosticCode, Error, Frontmatter, Severity, Skill, SkillsConfig,
};

use crate::load::{self, Fallback};
use crate::trust;
use cache::{Cache, LoadedView, Stamp, Stamps};
use scan::Found;

pub use settings::CONFIG_FILE;

/// `config` with the home `skills.toml` applied (never a workspace's): the settings only the
/// home file may give (`[github] url`, `[registry]`, `[install] root`) fill what the caller
/// left unset; the caller's values win.
pub fn home_settings(config: &SkillsConfig) -> SkillsConfig {
    settings::effective(config, false).config
}

/// One definition file, parsed, before collisions are resolved.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Loaded {
    pub(crate) frontmatter: Frontmatter,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) when_to_use: Option<String>,
    pub(crate) inputs: Vec<SkillInput>,
    /// Who may start it: its frontmatter's `disable-model-invocation` and its
    /// `agents/openai.yaml` policy together.
    pub(crate) invocation: Invocation,
}

/// Sidecar files are looked for in this order; the first present is read.
pub(crate) const SIDECARS: [&str; 2] = [SKILL_TOML, WORKFLOW_TOML];

/// The roots of one scope, in order: the roots the scope itself defines (not the `paths` of a
/// configuration file), less those that lead into the user's own places. Trust is the
/// caller's to check.
pub(crate) fn roots_of(config: &SkillsConfig, scope: skills_types::SkillScope) -> Vec<PathBuf> {
    scope_roots(config, scope).0
}

/// [`roots_of`], and the roots of the scope set aside because they lead into the user's own
/// places (for a write to refuse, naming the link). The home configuration is read for its
/// `paths`: the user's roots named there are the user's places too.
pub(crate) fn scope_roots(
    config: &SkillsConfig,
    scope: skills_types::SkillScope,
) -> (Vec<PathBuf>, Vec<overlap::Overlap>) {
    let config = home_settings(config);
    let plan = roots::plan(
        &config,
        &settings::Sources::default(),
        true,
        &user_places(&config),
    );
    let roots = plan
        .roots
        .into_iter()
        .filter(|root| root.scope == scope && !config.extra_roots.contains(&root.path))
        .map(|root| root.path)
        .collect();
    let overlapping = plan
        .overlapping
        .into_iter()
        .filter(|overlap| overlap.scope == scope)
        .collect();
    (roots, overlapping)
}

/// [`home_settings`], under the name the facade's `Skills::home_config` and the registry use
/// (the command line resolves `[registry] token_env` from it).
pub fn home_config(config: &SkillsConfig) -> SkillsConfig {
    home_settings(config)
}

/// `config` with every configuration file it reaches applied: the home `skills.toml`, then
/// the workspace's when the workspace is trusted (which may only tighten `[runtime]`), for
/// what reports settings (`skills runtimes`). A run is checked against [`run_policy`].
pub fn effective_config(config: &SkillsConfig) -> SkillsConfig {
    settings::effective(config, trust::standing(config).trusted).config
}

/// The configuration a run, a declared tool or a self-test is checked against: as
/// [`effective_config`], or `config_invalid` when a configuration file it reaches exists but
/// cannot be honoured (unreadable, not TOML, a policy key whose value means nothing). A rule
/// in such a file is unknown, and a default must never stand in for it: a `deny` the user
/// wrote would stop applying the moment a script took the file's read permission away.
pub fn run_policy(config: &SkillsConfig) -> Result<SkillsConfig, Error> {
    let layered = settings::effective(config, trust::standing(config).trusted);
    match layered.refusal() {
        Some(refusal) => Err(refusal),
        None => Ok(layered.config),
    }
}

/// The root of the profile `config` is opened for, as discovery lists it: a profile skill
/// found anywhere else belongs to another profile.
pub fn profile_root(config: &SkillsConfig) -> Option<PathBuf> {
    roots::profile_root(config)
}

/// The permission of the skill `name` under the rules `config` reaches (the stricter of the
/// home's and a trusted workspace's), with the pattern of the rule that decided; `None` when
/// no rule matched (the default, `allow`) or a file that cannot be honoured made it `ask`.
pub fn permission(config: &SkillsConfig, name: &str) -> (Permission, Option<String>) {
    let layered = settings::effective(config, trust::standing(config).trusted);
    let (permission, rule) = layered.verdict(name);
    (permission, rule.map(str::to_owned))
}

/// What is wrong with the configuration files `config` reaches (the home `skills.toml`, and
/// the workspace's when it is trusted): the `invalid-config` diagnostics `list` shows, for the
/// commands that use a file's settings without listing (`runtimes`, `tools`, `setup`), so a
/// value that means nothing (`[runtime] sandbox = "of"`) is said wherever it matters.
pub fn settings_diagnostics(config: &SkillsConfig) -> Vec<Diagnostic> {
    settings::effective(config, trust::standing(config).trusted).diagnostics
}

/// Everything a skill folder's `skill.toml` (or `workflow.toml`) says, as the runtime reads
/// it, and what was wrong with it: each problem is a diagnostic naming its key, and the rest
/// of the file still applies. A folder without a sidecar has an empty manifest.
///
/// It reads the same file with the same parser as discovery (`skill.toml` first, then
/// `workflow.toml`), so the runtime and the catalog never disagree about a skill's inputs.
pub fn read_skill_manifest(
    skill_dir: &Path,
) -> (skills_types::run::SkillManifest, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let manifest = match sidecar_file(skill_dir) {
        Some(path) => sidecar::read_sidecar(&path, &mut diagnostics),
        None => skills_types::run::SkillManifest::default(),
    };
    (manifest, diagnostics)
}

/// The sidecar a skill folder has, as discovery probes them: `skill.toml`, then
/// `workflow.toml`, the first that is a regular file (a link is not followed).
pub(crate) fn sidecar_file(skill_dir: &Path) -> Option<PathBuf> {
    SIDECARS
        .iter()
        .map(|name| skill_dir.join(name))
        .find(|path| std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_file()))
}

/// What is wrong with a skill folder's sidecar, for validation: its diagnostics, and one for
/// each declared tool that is not offered (its offered name, `<skill>__<tool>`, a model API
/// would refuse, or its schema holds text an agent cannot be shown). `sidecar` is the folder's
/// sidecar as [`sidecar_file`] picks it, which the caller looked up or read off a listing of
/// the folder.
pub(crate) fn sidecar_diagnostics_of(
    skill_dir: &Path,
    sidecar: Option<&Path>,
    skill: &str,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let manifest = match sidecar {
        Some(path) => sidecar::read_sidecar(path, &mut diagnostics),
        None => skills_types::run::SkillManifest::default(),
    };
    let path = sidecar.map_or_else(|| skill_dir.join(SKILL_TOML), Path::to_path_buf);
    diagnostics.extend(sidecar::tool_diagnostics(skill, &manifest, &path));
    diagnostics
}

/// The user's own places (`overlap`) under `config` as given: pass a configuration that
/// holds the home `skills.toml` (`home_settings`) and never a workspace's, whose `paths` name
/// workspace roots, not the user's.
pub(crate) fn user_places(config: &SkillsConfig) -> UserPlaces {
    roots::user_places(config)
}

/// Discovers every skill the configuration reaches.
pub fn discover(config: &SkillsConfig) -> Result<Catalog, Error> {
    discover_with(config, scan::scan)
}

/// [`discover`] again after a watch's burst named `touched`: when every path lies inside a
/// skill folder the last walk found, only those folders are looked at again and the rest of
/// that walk is taken as it was; otherwise every root is walked. `walked` keeps the walk for
/// the next burst ([`Walked`]).
pub fn rediscover(
    config: &SkillsConfig,
    walked: &mut Walked,
    touched: &std::collections::BTreeSet<PathBuf>,
) -> Result<Catalog, Error> {
    discover_with(config, |roots, policy, limits| {
        walked.walk(roots, policy, limits, touched)
    })
}

/// A discovery whose walk of the planned roots is `walk`.
fn discover_with(
    config: &SkillsConfig,
    walk: impl FnOnce(
        &[Root],
        skills_types::config::SymlinkPolicy,
        skills_types::config::DiscoveryLimits,
    ) -> scan::Scan
    + Send,
) -> Result<Catalog, Error> {
    let started = std::time::Instant::now();
    let standing = trust::standing(config);
    let trusted = standing.trusted;
    let mut layered = settings::effective(config, trusted);
    let mut diagnostics = std::mem::take(&mut layered.diagnostics);
    let config = &layered.config;
    diagnostics.extend(standing.diagnostics);
    // The user's places come from the home layer alone: a workspace's `paths` are in
    // `layered.project`, never in `extra_roots`.
    let plan = roots::plan(config, &layered.project, trusted, &user_places(config));
    diagnostics.extend(
        plan.overlapping
            .iter()
            .filter_map(overlap::Overlap::diagnostic),
    );
    diagnostics.extend(remote::diagnostics(config, &config.urls));
    diagnostics.extend(remote::diagnostics(config, &layered.project.urls));
    if !plan.untrusted.is_empty() {
        let listed: Vec<String> = plan
            .untrusted
            .iter()
            .map(|root| root.path.display().to_string())
            .collect();
        diagnostics.push(
            Diagnostic::new(
                DiagnosticCode::UntrustedWorkspace,
                Severity::Info,
                format!(
                    "the workspace is not trusted, so {} were not loaded; run `skills trust` to load them",
                    listed.join(", ")
                ),
            )
            .with_path(&config.workspace),
        );
    }

    for root in &plan.roots {
        tracing::debug!(scope = %root.scope, root = %root.path.display(), "scanning");
    }
    // The cache depends only on the roots, so it is read and decoded while the walk runs: the
    // walk waits on the file system much of the time, and the decoding fills those gaps.
    let (scanned, cache) = rayon::join(
        || walk(&plan.roots, config.symlinks, config.limits),
        || config.cache.then(|| Cache::open(config, &plan.roots)),
    );
    tracing::debug!(found = scanned.found.len(), elapsed = ?started.elapsed(), "walk done");
    diagnostics.extend(scanned.diagnostics);
    let mut built = load_all(cache, &plan.roots, scanned.found);
    diagnostics.extend(last_good::keep(&config.last_good, &mut built));
    let mut catalog = assemble(&layered, built, &mut diagnostics);
    catalog.diagnostics = diagnostics;
    catalog.trusted = trusted;
    catalog.untrusted_roots = plan.untrusted;
    catalog.roots = plan.roots;
    catalog.budget_chars = config.budget_chars;
    tracing::info!(
        skills = catalog.skills.len(),
        shadowed = catalog.shadowed.len(),
        hidden = catalog.hidden.len(),
        findings = catalog.diagnostics.len(),
        trusted,
        elapsed = ?started.elapsed(),
        "discovered"
    );
    Ok(catalog)
}

/// A skill record for every found definition file (or why it could not be loaded), in the
/// order they were found: unchanged files come from the cache (when there is one), the rest
/// are read and parsed; both on every core, in one pass.
fn load_all(
    cache: Option<Cache>,
    roots: &[Root],
    found: Vec<Found>,
) -> Vec<Result<Skill, Diagnostic>> {
    // Only the index of each hit is kept here: its stamps stay in the cache entry, so ten
    // thousand hits do not hold a second copy of them (a few hundred bytes each).
    let hits: Vec<Option<usize>> = found
        .par_iter()
        .enumerate()
        .map(|(position, found)| plan(found, position, cache.as_ref()))
        .collect();
    let hit_count = hits.iter().filter(|hit| hit.is_some()).count();
    tracing::debug!(
        hits = hit_count,
        misses = found.len() - hit_count,
        "catalog cache"
    );
    // Rewrite the cache only when something is parsed now or a cached file is gone.
    let rewrite = cache
        .as_ref()
        .is_some_and(|cache| hit_count != found.len() || hit_count != cache.len());
    // A file not taken from the cache is stamped and read below one handle on its folder: its
    // side files and its definition file are looked up by name, not by their whole paths.
    let load = |(found, hit): (Found, &Option<usize>)| {
        let taken = hit.and_then(|index| {
            let cache = cache.as_ref()?;
            Some((*cache.stamps(index)?, cache.take(index)?))
        });
        let (stamps, loaded) = match taken {
            Some((stamps, loaded)) => (stamps, loaded),
            None => {
                // Below the parent's handle the scan kept (`<id>/<file>`), or a handle on
                // the skill folder opened now: the parent's saves an open and a close.
                let own;
                let below = match &found.parent {
                    Some(parent) => Below {
                        folder: parent,
                        prefix: Some(found.id.as_str()),
                    },
                    None => {
                        own = probe::Folder::open(&found.dir);
                        Below {
                            folder: &own,
                            prefix: None,
                        }
                    }
                };
                // An unreadable directory gets a stamp that never matches a cached one.
                let stamps = probe(&found, found.dir_stamp.unwrap_or(found.stamp), &below);
                let loaded = load_one(&found, &stamps, &below);
                (stamps, loaded)
            }
        };
        (
            stamps,
            loaded.and_then(|loaded| record(found, loaded, roots)),
        )
    };
    if !rewrite {
        // Nothing to write: the stamps are not kept at all.
        let built = found
            .into_par_iter()
            .zip(&hits)
            .map(|pair| load(pair).1)
            .collect();
        drop(cache);
        return built;
    }
    let (stamps, built): (Vec<Stamps>, Vec<Result<Skill, Diagnostic>>) =
        found.into_par_iter().zip(&hits).map(load).unzip();
    drop(hits);
    if let Some(cache) = cache {
        let writer = cache.into_writer();
        // A record's definition file is its location; a failure's, the path its finding
        // names (every failure names it; one that did not would only be parsed again). The
        // list borrows the stamps and is sized once: a list grown by doubling, each item a
        // copy of its stamps, was 6.5 MB at 10,000 skills, at the peak of a cold listing.
        let mut stored = Vec::with_capacity(built.len());
        stored.extend(stamps.iter().zip(&built).filter_map(|(stamps, outcome)| {
            Some(match outcome {
                Ok(skill) => (
                    skill.location.as_path(),
                    stamps,
                    Ok(LoadedView::from(skill)),
                ),
                Err(diagnostic) => (diagnostic.path.as_deref()?, stamps, Err(diagnostic)),
            })
        }));
        writer.store(&stored);
    }
    built
}

/// The name a skill is known by, as [`record`] decides it: the declared name, unless the one
/// sanitiser would change it; then the folder's name, unless that would be changed too.
///
/// An agent is only ever shown names through the sanitiser (`sanitize::json` at every exit),
/// and calls a skill by the name it was shown. A name holding a control, format or
/// line-break character would be shown as another name: one the skill cannot be called by,
/// or — `pdf` plus a zero-width space — the name of another skill, whose listing it would
/// then speak for. So such a name is never the skill's name.
fn known_name<'a>(declared: &'a str, id: &'a str) -> Option<&'a str> {
    use skills_types::sanitize::is_clean_line;
    if is_clean_line(declared) {
        Some(declared)
    } else if is_clean_line(id) {
        Some(id)
    } else {
        None
    }
}

/// The catalog's record of a found, loaded skill; a skill with neither a declared name nor a
/// folder name that can be shown is a finding instead ([`known_name`]).
fn record(found: Found, mut loaded: Loaded, roots: &[Root]) -> Result<Skill, Diagnostic> {
    let declared = &loaded.frontmatter.name;
    let Some(name) = known_name(declared, &found.id).map(str::to_owned) else {
        return Err(Diagnostic::warning(
            DiagnosticCode::NameUnshowable,
            format!(
                "neither the name '{}' nor the folder's name holds only characters an agent \
                 can be shown (it has a control, format or line-break character), so no one \
                 could call the skill; it is not listed: rename the folder",
                declared.escape_debug()
            ),
        )
        .with_path(&found.definition));
    };
    if name != *declared {
        loaded.diagnostics.push(
            Diagnostic::warning(
                DiagnosticCode::NameUnshowable,
                format!(
                    "the name '{}' holds a control, format or line-break character, which no \
                     agent or terminal is shown, so no one could call the skill by it; the \
                     folder's name '{name}' is used",
                    declared.escape_debug()
                ),
            )
            .with_path(&found.definition),
        );
    }
    let root = &roots[found.root];
    Ok(Skill {
        id: found.id,
        name,
        description: loaded.frontmatter.description.clone(),
        scope: root.scope,
        root: root.path.clone(),
        location: found.definition,
        dir: found.dir,
        frontmatter: loaded.frontmatter,
        when_to_use: loaded.when_to_use,
        inputs: loaded.inputs,
        resources: None,
        diagnostics: loaded.diagnostics,
        shadowed: Vec::new(),
        permission: Permission::Allow,
        invocation: loaded.invocation,
        audit: None,
    })
}

/// The skill's stamps and the cache entry to use, when nothing it depends on changed.
fn plan(found: &Found, position: usize, cache: Option<&Cache>) -> Option<usize> {
    let dir = found.dir_stamp?;
    let (index, cached) = cache?.lookup(position, &found.definition)?;
    // While the directory's stamp holds, no side file appeared or vanished: only the ones
    // that existed need a look.
    let unchanged = cached.definition == found.stamp
        && cached.dir == dir
        && cached
            .sidecar
            .is_none_or(|(which, stamp)| stamp_of(&sidecar_path(found, which)) == Some(stamp))
        && cached
            .manifest
            .is_none_or(|stamp| stamp_of(&found.dir.join(SKILL_JSON)) == Some(stamp))
        // The skill folder's stamp does not change when a file appears in `agents/`, the
        // `agents` folder's does; while it holds, only an existing file can have changed.
        && cached.agents.is_none_or(|(folder, file)| {
            let agents = found.dir.join(AGENTS_METADATA_DIR);
            folder_stamp_of(&agents) == Some(folder)
                && file.is_none_or(|stamp| stamp_of(&agents.join(OPENAI_METADATA_FILE)) == Some(stamp))
        });
    unchanged.then_some(index)
}

/// Looks for every side file of a skill and stamps them. They are looked up by name below a
/// handle on the skill folder: most are absent, and a lookup of the whole path for each made
/// the kernel's path walk the largest cost of a listing without a cache.
fn probe(found: &Found, dir: Stamp, folder: &Below<'_>) -> Stamps {
    let stamp = |name: &str| {
        folder
            .lstat(name)
            .ok()
            .filter(|info| info.kind == probe::Kind::File)
            .map(|info| info.stamp)
    };
    let sidecar = SIDECARS.iter().enumerate().find_map(|(index, name)| {
        let which = u8::try_from(index).ok()?;
        stamp(name).map(|stamp| (which, stamp))
    });
    // `agents/openai.yaml` is looked for only below a real `agents` folder (a link to one is
    // not followed), whose own stamp shows when the file comes or goes.
    let agents = folder
        .lstat(AGENTS_METADATA_DIR)
        .ok()
        .filter(|info| info.kind == probe::Kind::Other && info.key().is_some())
        .map(|info| (info.stamp, stamp(&agent_policy::relative_path())));
    Stamps {
        definition: found.stamp,
        dir,
        sidecar,
        manifest: stamp(SKILL_JSON),
        agents,
    }
}

fn sidecar_path(found: &Found, which: u8) -> PathBuf {
    let name = SIDECARS
        .get(usize::from(which))
        .copied()
        .unwrap_or(SKILL_TOML);
    found.dir.join(name)
}

fn stamp_of(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|metadata| metadata.is_file())
        .map(|metadata| Stamp::of(&metadata))
}

/// The stamp of a real folder (not a link to one).
fn folder_stamp_of(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|metadata| metadata.is_dir())
        .map(|metadata| Stamp::of(&metadata))
}

/// A skill folder's files, looked up below a handle on it or on its parent.
struct Below<'a> {
    folder: &'a probe::Folder,
    /// The skill folder's name, when `folder` is its parent.
    prefix: Option<&'a str>,
}

impl Below<'_> {
    fn relative<'n>(&self, name: &'n str) -> Cow<'n, str> {
        match self.prefix {
            Some(prefix) => Cow::Owned(format!("{prefix}/{name}")),
            None => Cow::Borrowed(name),
        }
    }

    fn lstat(&self, name: &str) -> std::io::Result<probe::Info> {
        self.folder.lstat(&self.relative(name))
    }

    fn open_file(&self, name: &str) -> Option<std::io::Result<std::fs::File>> {
        self.folder.open_file(&self.relative(name))
    }
}

fn load_one(found: &Found, stamps: &Stamps, folder: &Below<'_>) -> Result<Loaded, Diagnostic> {
    let mut diagnostics = Vec::new();
    let fallback = match stamps.manifest {
        Some(_) => sidecar::read_manifest(&found.dir.join(SKILL_JSON), &mut diagnostics),
        None => Fallback::default(),
    };
    let unloadable = |error: Error| match error {
        Error::Unloadable { diagnostic, .. } => diagnostic.with_path(&found.definition),
        other => Diagnostic::warning(DiagnosticCode::Unreadable, other.to_string())
            .with_path(&found.definition),
    };
    let opened = found
        .definition
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| folder.open_file(name));
    let bytes = match opened {
        Some(opened) => load::read_opened(&found.definition, opened, MAX_SKILL_MD_BYTES),
        None => load::read_definition(&found.definition, MAX_SKILL_MD_BYTES),
    }
    .map_err(unloadable)?;
    let (frontmatter, document_diagnostics, _body) =
        load::parse_parts(&found.definition, &bytes, &fallback).map_err(unloadable)?;
    // A frontmatter that does not parse leaves only guesses (the folder's name, the body's
    // first paragraph): never offered to an agent as the skill, so not loaded at all.
    if let Some(refusal) = load::refusal(&document_diagnostics) {
        let mut refusal = refusal.clone().with_path(&found.definition);
        refusal.message = format!(
            "{}; the skill is not loaded until its frontmatter parses",
            refusal.message
        );
        return Err(refusal);
    }
    let sidecar = match stamps.sidecar {
        Some((which, _)) => {
            let path = sidecar_path(found, which);
            let sidecar = sidecar::read_sidecar(&path, &mut diagnostics);
            let skill = known_name(&frontmatter.name, &found.id).unwrap_or(&frontmatter.name);
            diagnostics.extend(sidecar::tool_diagnostics(skill, &sidecar, &path));
            sidecar
        }
        None => skills_types::run::SkillManifest::default(),
    };
    let policy = match stamps.agents {
        Some((_, Some(_))) => {
            let relative = agent_policy::relative_path();
            let path = found.dir.join(&relative);
            let read = match folder.open_file(&relative) {
                Some(opened) => load::read_opened(&path, opened, MAX_AGENT_METADATA_BYTES),
                None => load::read_definition(&path, MAX_AGENT_METADATA_BYTES),
            };
            agent_policy::decode(&path, read)
        }
        _ => AgentPolicy::Absent,
    };
    diagnostics.extend(policy.diagnostic());
    let invocation = if frontmatter.disables_model_invocation() {
        Invocation::Manual
    } else {
        policy.invocation()
    };
    let mut all = document_diagnostics;
    all.extend(diagnostics);
    Ok(Loaded {
        frontmatter,
        diagnostics: all,
        when_to_use: sidecar.when_to_use,
        inputs: sidecar.inputs,
        invocation,
    })
}

/// Resolves collisions (the first copy of a name met wins: the scan runs in precedence order),
/// applies permissions (the combined verdict of the home and the workspace) and `disabled`,
/// and sorts.
fn assemble(
    layered: &settings::Layered,
    mut built: Vec<Result<Skill, Diagnostic>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Catalog {
    // A file that could not be loaded is a finding of the scan, in scan order.
    for outcome in &mut built {
        if let Err(diagnostic) = outcome {
            diagnostics.push(std::mem::replace(diagnostic, taken()));
        }
    }
    // Sorting by name while keeping the copies of one name in scan order (precedence order)
    // makes the first of each run the winner, and every list below comes out sorted by name.
    // The positions are sorted, as (name, position) pairs: an unstable sort of small pairs,
    // stable by construction; a record is hundreds of bytes, which a sort would move many
    // times. The records are then put in that order in place, the failed slots last.
    let mut pairs: Vec<(&str, usize)> = built
        .iter()
        .enumerate()
        .filter_map(|(index, outcome)| Some((outcome.as_ref().ok()?.name.as_str(), index)))
        .collect();
    pairs.par_sort_unstable();
    let loaded = pairs.len();
    let mut order: Vec<usize> = pairs.into_iter().map(|(_, index)| index).collect();
    order.extend(
        built
            .iter()
            .enumerate()
            .filter(|(_, outcome)| outcome.is_err())
            .map(|(index, _)| index),
    );
    permute(&mut built, order);
    built.truncate(loaded);
    let mut skills: Vec<Skill> = built.into_iter().filter_map(Result::ok).collect();

    // Each run of one name: the first copy wins, the rest are shadowed; then the rules may hide
    // the winner. Records leave the list by a mask, so the rest stay where they are.
    let mut keep = vec![true; skills.len()];
    let mut shadowed = Vec::new();
    let mut hidden = Vec::new();
    let mut start = 0;
    while start < skills.len() {
        let mut end = start + 1;
        while end < skills.len() && skills[end].name == skills[start].name {
            let (before, after) = skills.split_at_mut(end);
            let (winner, loser) = (&mut before[start], &after[0]);
            let reason = collision_reason(winner, loser);
            winner.diagnostics.push(Diagnostic::new(
                DiagnosticCode::Shadowed,
                Severity::Info,
                format!(
                    "'{}' at {} shadows the copy at {} ({reason})",
                    winner.name,
                    winner.location.display(),
                    loser.location.display()
                ),
            ));
            winner.shadowed.push(Shadowed {
                scope: loser.scope,
                root: loser.root.clone(),
                location: loser.location.clone(),
                reason,
            });
            // Copied out (losers are few); the mask drops the original below.
            shadowed.push(loser.clone());
            keep[end] = false;
            end += 1;
        }
        let winner = &mut skills[start];
        let disabled = layered.config.disabled.contains(&winner.name);
        let (permission, pattern) = layered.verdict(&winner.name);
        let reason = match (disabled, permission, pattern) {
            (true, _, _) => Some(HiddenReason::Disabled),
            (false, Permission::Deny, Some(pattern)) => Some(HiddenReason::Denied {
                pattern: pattern.to_owned(),
            }),
            _ => None,
        };
        match reason {
            Some(reason) => {
                hidden.push(Hidden {
                    name: std::mem::take(&mut winner.name),
                    scope: winner.scope,
                    location: std::mem::take(&mut winner.location),
                    reason,
                });
                keep[start] = false;
            }
            None => winner.permission = permission,
        }
        start = end;
    }
    let mut kept = keep.into_iter();
    skills.retain(|_| kept.next().unwrap_or(false));
    Catalog {
        skills,
        shadowed,
        hidden,
        ..Catalog::default()
    }
}

/// Puts `items` in the given order in place: afterwards `items[k]` is what `items[order[k]]`
/// was. `order` must be a permutation of the positions; each cycle is walked once, by swaps.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// What is left in a slot whose content was moved out (allocates nothing).
fn taken() -> Diagnostic {
    Diagnostic::new(DiagnosticCode::Unreadable, Severity::Info, String::new())
}

/// Why `winner` beats `loser`, which shares its name and was met later in the scan.
pub(crate) fn collision_reason(winner: &Skill, loser: &Skill) -> String {
    if winner.scope != loser.scope {
        format!(
            "the {} scope takes precedence over the {} scope",
            winner.scope, loser.scope
        )
    } else if winner.root != loser.root {
        format!(
            "both are {} skills, and the root {} comes before {}",
            winner.scope,
            winner.root.display(),
            loser.root.display()
        )
    } else {
        format!(
            "both are in {}, and {} sorts before {}",
            winner.root.display(),
            relative(&winner.dir, &winner.root),
            relative(&loser.dir, &loser.root)
        )
    }
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests;
