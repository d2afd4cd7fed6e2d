//! Questions asked of the catalog: `list`, `find` (for `show`), `read` (bodies on demand) and
//! `explain` (02 §Identity, collisions and order; §Rendering the catalog, **Reading one
//! skill**). Each runs a discovery, so the answer reflects the files as they are now.

use skills_types::catalog::{
    Candidate, Explanation, HiddenReason, ListOptions, Listing, SkillBody, Standing,
    listed_shadowed,
};
use skills_types::render::{RenderOptions, Rendered};
use skills_types::search::MAX_LIMIT;
use skills_types::{Catalog, Error, Skill, SkillSummary, SkillsConfig};

use crate::discover::{collision_reason, discover};
use crate::load;

/// The catalog as summaries, optionally with the shadowed copies and one scope only.
pub fn list(config: &SkillsConfig, options: &ListOptions) -> Result<Listing, Error> {
    list_with(config, options, &|_, _| {})
}

/// What a layer above fills in on the discovered records before they are listed or rendered
/// (the audit's marks: `skills_audit::mark`), once per command. This crate knows nothing of
/// it; it only gives the records a chance to carry it.
pub type Annotate<'a> = &'a (dyn Fn(&SkillsConfig, &mut [Skill]) + Sync);

/// [`list`], the records annotated first.
pub fn list_with(
    config: &SkillsConfig,
    options: &ListOptions,
    annotate: Annotate<'_>,
) -> Result<Listing, Error> {
    let mut catalog = discover(config)?;
    annotate_catalog(config, &mut catalog, annotate);
    Ok(list_from(catalog, options))
}

fn annotate_catalog(config: &SkillsConfig, catalog: &mut Catalog, annotate: Annotate<'_>) {
    annotate(config, &mut catalog.skills);
    annotate(config, &mut catalog.shadowed);
}

/// The listing and the rendered catalog from one discovery: what a server that shows both
/// (the MCP server's instructions and its lists) needs at start, for the price of one.
pub fn overview(
    config: &SkillsConfig,
    list: &ListOptions,
    render: &RenderOptions,
) -> Result<(Listing, Rendered), Error> {
    overview_with(config, list, render, &|_, _| {})
}

/// [`overview`], the records annotated first.
pub fn overview_with(
    config: &SkillsConfig,
    list: &ListOptions,
    render: &RenderOptions,
    annotate: Annotate<'_>,
) -> Result<(Listing, Rendered), Error> {
    let mut catalog = discover(config)?;
    annotate_catalog(config, &mut catalog, annotate);
    let rendered = render_from(config, &catalog, render)?;
    Ok((list_from(catalog, list), rendered))
}

fn list_from(mut catalog: Catalog, options: &ListOptions) -> Listing {
    // A summary keeps a few of a record's fields; the rest (frontmatter, paths, maps) is ten
    // thousand small frees for ten thousand skills. The summaries take their fields, and what
    // is left of the records is freed on the thread pool while the caller uses the listing.
    let mut records = std::mem::take(&mut catalog.skills);
    let mut shadowed = std::mem::take(&mut catalog.shadowed);
    let mut listing = catalog.into_listing(options);
    // The losers first: which copy beat each is read from the winners' records.
    listing.shadowed = listed_shadowed(&records, &mut shadowed, options);
    listing.skills = summaries(&mut records, options);
    rayon::spawn(move || drop((records, shadowed)));
    listing
}

/// Summaries of the records of the asked scope, their fields taken.
fn summaries(records: &mut [Skill], options: &ListOptions) -> Vec<SkillSummary> {
    records
        .iter_mut()
        .filter(|skill| options.scope.is_none_or(|scope| skill.scope == scope))
        .map(SkillSummary::take_from)
        .collect()
}

/// The bodies of the named skills, each with its base directory, in the order asked.
pub fn read(config: &SkillsConfig, names: &[&str]) -> Result<Vec<SkillBody>, Error> {
    read_with(config, names, &|_, _| {})
}

/// [`read`], each resolved record annotated first, so a body carries the mark its listing
/// shows (an agent that loads a flagged skill is told so with the instructions).
pub fn read_with(
    config: &SkillsConfig,
    names: &[&str],
    annotate: Annotate<'_>,
) -> Result<Vec<SkillBody>, Error> {
    let catalog = discover(config)?;
    let mut skills = names
        .iter()
        .map(|name| resolve(&catalog, name).cloned())
        .collect::<Result<Vec<Skill>, Error>>()?;
    annotate(config, &mut skills);
    skills
        .into_iter()
        .map(|skill| {
            let document = load::load_document(&skill.location)?;
            let shadows_user = skill.shadows_user();
            Ok(SkillBody {
                id: skill.id,
                name: skill.name,
                dir: skill.dir,
                location: skill.location,
                when_to_use: skill.when_to_use,
                inputs: skill.inputs,
                body: document.body,
                shadows_user,
                audit: skill.audit,
            })
        })
        .collect()
}

/// The catalog rendered for an agent; without a budget in `options`, the configured
/// `budget_chars` (from `SkillsConfig` or a `skills.toml`) applies.
///
/// With a query, the catalog is ranked for it by the search index (08 §Relevance): the pinned
/// skills first, then the skills it matched (the search's best [`MAX_LIMIT`]), best first,
/// then the rest, and the budget leaves out the least relevant first
/// ([`crate::render::render_ranked`]).
///
/// Every pinned name must pick a skill of the catalog (by name or id, as `show` looks it up):
/// a pin that picks none is an [`Error::InvalidInput`] naming each such pin, so a typo in a
/// pin fails instead of leaving the skill it meant to protect to the budget unannounced.
pub fn render_catalog(config: &SkillsConfig, options: &RenderOptions) -> Result<Rendered, Error> {
    render_catalog_with(config, options, &|_, _| {})
}

/// [`render_catalog`], the records annotated first.
pub fn render_catalog_with(
    config: &SkillsConfig,
    options: &RenderOptions,
    annotate: Annotate<'_>,
) -> Result<Rendered, Error> {
    let mut catalog = discover(config)?;
    annotate_catalog(config, &mut catalog, annotate);
    render_from(config, &catalog, options)
}

fn render_from(
    config: &SkillsConfig,
    catalog: &Catalog,
    options: &RenderOptions,
) -> Result<Rendered, Error> {
    let mut options = options.clone();
    if options.budget_chars.is_none() {
        options.budget_chars = catalog.budget_chars;
    }
    options.pinned = resolve_pins(catalog, &options.pinned)?;
    let task = options.query.as_deref().map(str::trim);
    let mut rendered = match task.filter(|task| !task.is_empty()) {
        // The search answers from the same files: it discovers again, from the catalog cache.
        Some(task) => {
            let matched: Vec<String> = crate::search::search(config, task, MAX_LIMIT)?
                .into_iter()
                .map(|hit| hit.name)
                .collect();
            crate::render::render_ranked(&catalog.skills, &options, &matched)
        }
        None => crate::render::render(&catalog.skills, &options),
    };
    rendered.shadows_user = catalog.user_shadows();
    Ok(rendered)
}

/// The names of the skills `pins` pick, or why some pick none (all of them, in one error).
fn resolve_pins(catalog: &Catalog, pins: &[String]) -> Result<Vec<String>, Error> {
    let mut names = Vec::with_capacity(pins.len());
    let mut problems = Vec::new();
    for pin in pins {
        match resolve(catalog, pin) {
            Ok(skill) => names.push(skill.name.clone()),
            Err(error) => problems.push(error.to_string()),
        }
    }
    if problems.is_empty() {
        return Ok(names);
    }
    Err(Error::InvalidInput(format!(
        "{} pinned skill{} not in the catalog: {}",
        problems.len(),
        if problems.len() == 1 { " is" } else { "s are" },
        problems.join("; ")
    )))
}

/// Every copy of `name` and why the winner won.
pub fn explain(config: &SkillsConfig, name: &str) -> Result<Explanation, Error> {
    let catalog = discover(config)?;
    let winner = catalog.skills.iter().find(|skill| skill.name == name);
    let hidden = catalog.hidden.iter().find(|hidden| hidden.name == name);
    let losers: Vec<&Skill> = catalog
        .shadowed
        .iter()
        .filter(|skill| skill.name == name)
        .collect();
    let mut candidates = Vec::new();
    let rule;
    if let Some(winner) = winner {
        candidates.push(Candidate {
            standing: Standing::Winner,
            scope: winner.scope,
            root: winner.root.clone(),
            location: winner.location.clone(),
            reason: if losers.is_empty() {
                "the only copy".to_owned()
            } else {
                format!(
                    "the highest-precedence copy: {} scope, root {}",
                    winner.scope,
                    winner.root.display()
                )
            },
        });
        for loser in &losers {
            candidates.push(Candidate {
                standing: Standing::Shadowed,
                scope: loser.scope,
                root: loser.root.clone(),
                location: loser.location.clone(),
                reason: collision_reason(winner, loser),
            });
        }
        rule = "profile > project > user > legacy; within a scope, the earlier root; within a root, the earlier path".to_owned();
    } else if let Some(hidden) = hidden {
        let why = match &hidden.reason {
            HiddenReason::Denied { pattern } => {
                format!("denied by the permission rule '{pattern}'")
            }
            HiddenReason::Disabled => "disabled in the configuration".to_owned(),
        };
        candidates.push(Candidate {
            standing: Standing::Hidden,
            scope: hidden.scope,
            root: catalog
                .roots
                .iter()
                .find(|root| hidden.location.starts_with(&root.path))
                .map(|root| root.path.clone())
                .unwrap_or_default(),
            location: hidden.location.clone(),
            reason: why.clone(),
        });
        for loser in &losers {
            candidates.push(Candidate {
                standing: Standing::Shadowed,
                scope: loser.scope,
                root: loser.root.clone(),
                location: loser.location.clone(),
                reason: format!("a copy of a {why} skill"),
            });
        }
        rule = format!("the winning copy is {why}, so no copy is offered");
    } else {
        return Err(unloadable(&catalog, name).unwrap_or_else(|| not_found(&catalog, name)));
    }
    Ok(Explanation {
        name: name.to_owned(),
        candidates,
        rule,
    })
}

/// Looks a skill up by name, then by id; hidden skills are refused with the reason.
pub fn resolve<'c>(catalog: &'c Catalog, name: &str) -> Result<&'c Skill, Error> {
    let by_id: Vec<&Skill> = catalog
        .skills
        .iter()
        .filter(|skill| skill.id == name)
        .collect();
    if let Some(skill) = catalog.skills.iter().find(|skill| skill.name == name) {
        // The same word naming one skill and the folder of another would make the answer
        // depend on which rule is tried first; say so instead of guessing.
        if let Some(other) = by_id.iter().find(|other| other.location != skill.location) {
            return Err(Error::AmbiguousSkill {
                name: name.to_owned(),
                others: format!(
                    "ask for '{}' (the folder of the skill named '{name}') or '{}' (the name of the skill in the folder '{name}')",
                    skill.id, other.name
                ),
            });
        }
        return Ok(skill);
    }
    if let Some(hidden) = catalog.hidden.iter().find(|hidden| hidden.name == name) {
        return Err(match &hidden.reason {
            HiddenReason::Denied { pattern } => Error::SkillDenied {
                name: name.to_owned(),
                pattern: pattern.clone(),
            },
            HiddenReason::Disabled => Error::SkillDisabled {
                name: name.to_owned(),
            },
        });
    }
    match by_id.as_slice() {
        [skill] => Ok(skill),
        [] => Err(unloadable(catalog, name).unwrap_or_else(|| not_found(catalog, name))),
        several => Err(Error::AmbiguousSkill {
            name: name.to_owned(),
            others: format!(
                "it is the folder of {} skills; ask for one by name: {}",
                several.len(),
                several
                    .iter()
                    .map(|skill| skill.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// When a skill directory named `name` was found but its definition file could not be loaded,
/// that is the answer, not "no such skill".
fn unloadable(catalog: &Catalog, name: &str) -> Option<Error> {
    catalog.diagnostics.iter().find_map(|diagnostic| {
        let path = diagnostic.path.as_ref()?;
        let dir = path.parent()?.file_name()?;
        let is_definition = path
            .file_name()
            .and_then(|file| file.to_str())
            .is_some_and(|file| skills_types::files::match_definition(file).is_some());
        (is_definition && dir == name && diagnostic.is_error()).then(|| Error::Unloadable {
            path: path.clone(),
            diagnostic: Box::new(diagnostic.clone()),
        })
    })
}

fn not_found(catalog: &Catalog, name: &str) -> Error {
    Error::SkillNotFound {
        name: name.to_owned(),
        suggestion: nearest(name, catalog.skills.iter().map(|skill| skill.name.as_str()))
            .map(str::to_owned),
    }
}

/// The candidate closest to `name` when it is close enough to be a typo of it (about one
/// edit per three characters, at least one), for "did you mean". Skills and declared tools
/// suggest by the same rule.
pub fn nearest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.chars().count() / 3).max(1))
        .min()
        .map(|(_, candidate)| candidate)
}

/// Edit distance over characters counting a swap of neighbours as one edit (optimal string
/// alignment), for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut table = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in table.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in table.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[(i - 1) * width + j] + 1)
                .min(table[i * width + j - 1] + 1)
                .min(table[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[(i - 2) * width + j - 2] + 1);
            }
            table[i * width + j] = best;
        }
    }
    table[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(id: &str, name: &str) -> Skill {
        let mut skill = crate::testing::skill(name, "A skill.", skills_types::SkillScope::User);
        skill.id = id.to_owned();
        skill.dir = skill.dir.with_file_name(id);
        skill.location = skill.dir.join("SKILL.md");
        skill
    }

    #[test]
    fn pins_pick_skills_by_name_or_id_and_unknown_ones_are_named() {
        let catalog = Catalog {
            skills: vec![skill("pdf", "pdf-tools"), skill("csv", "csv")],
            ..Catalog::default()
        };
        let pins = |names: &[&str]| {
            names
                .iter()
                .map(|name| (*name).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            resolve_pins(&catalog, &pins(&["csv", "pdf"])).unwrap(),
            ["csv", "pdf-tools"]
        );
        let error = resolve_pins(&catalog, &pins(&["pdf-tool", "csv", "zzz"])).unwrap_err();
        assert_eq!(error.kind(), "invalid_input");
        assert_eq!(
            error.to_string(),
            "2 pinned skills are not in the catalog: no skill named 'pdf-tool'; did you mean 'pdf-tools'?; no skill named 'zzz'"
        );
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("pdf", "pdf"), 0);
        assert_eq!(edit_distance("pdf", "pdf-tools"), 6);
        assert_eq!(edit_distance("pfd-tools", "pdf-tools"), 1);
        assert_eq!(edit_distance("alpah", "alpha"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    /// The user's `shared` lost to the project's; `mine` lost to another user root's copy.
    fn shadowing() -> (Vec<Skill>, Vec<Skill>) {
        use skills_types::SkillScope::{Project, User};
        use skills_types::skill::Shadowed;
        let lost = |skill: &Skill| Shadowed {
            scope: skill.scope,
            root: skill.root.clone(),
            location: skill.location.clone(),
            reason: "precedence".to_owned(),
        };
        let user_shared = crate::testing::skill("shared", "The user's.", User);
        let mut user_mine = crate::testing::skill("mine", "Second root.", User);
        user_mine.location = "/skills/user2/mine/SKILL.md".into();
        let mut project_shared = crate::testing::skill("shared", "The tree's.", Project);
        project_shared.shadowed.push(lost(&user_shared));
        let mut first_mine = crate::testing::skill("mine", "First root.", User);
        first_mine.shadowed.push(lost(&user_mine));
        (
            vec![first_mine, project_shared],
            vec![user_shared, user_mine],
        )
    }

    #[test]
    fn a_scope_listing_shows_its_copy_another_scope_won_marked() {
        use skills_types::SkillScope::{Project, User};
        let (winners, mut losers) = shadowing();
        let mut options = ListOptions::default();
        assert!(listed_shadowed(&winners, &mut losers.clone(), &options).is_empty());
        options.scope = Some(User);
        let shown = listed_shadowed(&winners, &mut losers.clone(), &options);
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert_eq!(shown[0].name, "shared");
        assert_eq!(shown[0].shadowed_by, Some(Project));
        options.scope = Some(Project);
        assert!(listed_shadowed(&winners, &mut losers.clone(), &options).is_empty());
        options.scope = None;
        options.include_shadowed = true;
        let all = listed_shadowed(&winners, &mut losers, &options);
        let by: Vec<_> = all
            .iter()
            .map(|s| (s.name.as_str(), s.shadowed_by))
            .collect();
        assert_eq!(by, [("shared", Some(Project)), ("mine", Some(User))]);
        assert!(winners[1].shadows_user() && !winners[0].shadows_user());
    }
}
