//! Questions asked of the catalog: `list`, `find` (for `show`), `read` (bodies on demand) and
//! `explain` (02 §Identity, collisions and order; §Rendering the catalog, **Reading one
//! skill**). Each runs a discovery, so the answer reflects the files as they are now.

use skills_types::catalog::{
    Candidate, Explanation, HiddenReason, ListOptions, Listing, SkillBody, Standing,
};
use skills_types::{Catalog, Error, Skill, SkillSummary, SkillsConfig};

use crate::discover::{collision_reason, discover};
use crate::load;

/// The catalog as summaries, optionally with the shadowed copies and one scope only.
pub fn list(config: &SkillsConfig, options: &ListOptions) -> Result<Listing, Error> {
    let catalog = discover(config)?;
    Ok(listing(catalog, options))
}

/// The listing of an already discovered catalog.
pub fn listing(catalog: Catalog, options: &ListOptions) -> Listing {
    let keep = |skill: &&Skill| options.scope.is_none_or(|scope| skill.scope == scope);
    let summaries = |skills: &[Skill]| -> Vec<SkillSummary> {
        skills.iter().filter(keep).map(SkillSummary::from).collect()
    };
    Listing {
        skills: summaries(&catalog.skills),
        shadowed: if options.include_shadowed {
            summaries(&catalog.shadowed)
        } else {
            Vec::new()
        },
        diagnostics: catalog.diagnostics,
        trusted: catalog.trusted,
        untrusted_roots: catalog.untrusted_roots,
    }
}

/// The skill an agent would use under `name` (or, failing that, whose directory is `name`).
pub fn find(config: &SkillsConfig, name: &str) -> Result<Skill, Error> {
    let catalog = discover(config)?;
    resolve(&catalog, name).cloned()
}

/// The bodies of the named skills, each with its base directory, in the order asked.
pub fn read(config: &SkillsConfig, names: &[&str]) -> Result<Vec<SkillBody>, Error> {
    let catalog = discover(config)?;
    names
        .iter()
        .map(|name| {
            let skill = resolve(&catalog, name)?;
            let document = load::load_document(&skill.location)?;
            Ok(SkillBody {
                id: skill.id.clone(),
                name: skill.name.clone(),
                dir: skill.dir.clone(),
                location: skill.location.clone(),
                body: document.body,
            })
        })
        .collect()
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
                "the first copy in precedence order".to_owned()
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
        rule = "the higher scope wins (profile > project > user > legacy); within a scope the earlier root; within a root the earlier path in byte order".to_owned();
    } else if let Some(hidden) = hidden {
        let why = match &hidden.reason {
            HiddenReason::Denied { pattern } => format!("denied by the permission rule '{pattern}'"),
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
        return Err(not_found(&catalog, name));
    }
    Ok(Explanation {
        name: name.to_owned(),
        candidates,
        rule,
    })
}

/// Looks a skill up by name, then by id; hidden skills are refused with the reason.
pub(crate) fn resolve<'c>(catalog: &'c Catalog, name: &str) -> Result<&'c Skill, Error> {
    if let Some(skill) = catalog.skills.iter().find(|skill| skill.name == name) {
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
    let by_id: Vec<&Skill> = catalog.skills.iter().filter(|skill| skill.id == name).collect();
    match by_id.as_slice() {
        [skill] => Ok(skill),
        [] => Err(not_found(catalog, name)),
        several => Err(Error::InvalidInput(format!(
            "'{name}' is the directory of {} skills ({}); ask for one of them by name",
            several.len(),
            several
                .iter()
                .map(|skill| skill.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn not_found(catalog: &Catalog, name: &str) -> Error {
    let suggestion = catalog
        .skills
        .iter()
        .map(|skill| (edit_distance(name, &skill.name), &skill.name))
        .filter(|(distance, candidate)| *distance <= candidate.chars().count().max(3) / 3)
        .min()
        .map(|(_, candidate)| candidate.clone());
    Error::SkillNotFound {
        name: name.to_owned(),
        suggestion,
    }
}

/// Levenshtein distance over characters, for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("pdf", "pdf"), 0);
        assert_eq!(edit_distance("pdf", "pdf-tools"), 6);
        assert_eq!(edit_distance("pfd-tools", "pdf-tools"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
