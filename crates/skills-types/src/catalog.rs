//! `Catalog`: the result of one discovery (02 §Identity, collisions and order), and the types
//! of the questions asked of it (`list`, `explain`, `read`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::skill::{Skill, SkillSummary};
use crate::{Diagnostic, SkillScope};

/// One root discovery looked at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Root {
    /// The scope the root belongs to.
    pub scope: SkillScope,
    /// The root directory.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// Whether it is one of the shared roots of other agents (`.agents/skills`, `.agent/skills`,
    /// `.claude/skills`).
    pub interop: bool,
}

/// Why a discovered skill is not in the catalog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum HiddenReason {
    /// A permission rule denies it.
    Denied {
        /// The rule's pattern.
        pattern: String,
    },
    /// It is listed in `disabled`.
    Disabled,
}

/// A skill kept out of the catalog by a permission rule or `disabled`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Hidden {
    /// The skill's name.
    pub name: String,
    /// Where it was found.
    pub scope: SkillScope,
    /// Its definition file.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub location: PathBuf,
    /// Why it is hidden.
    pub reason: HiddenReason,
}

/// Everything one discovery found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Catalog {
    /// The skills an agent sees: collision winners that are not hidden, sorted by name.
    pub skills: Vec<Skill>,
    /// Copies that lost a name collision, sorted by name, the closest loser first.
    pub shadowed: Vec<Skill>,
    /// Winners kept out by a permission rule or `disabled`, sorted by name.
    pub hidden: Vec<Hidden>,
    /// Findings about the scan itself: skipped roots and symlinks, limits, unloadable files.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the workspace was trusted (its project and legacy roots were scanned).
    pub trusted: bool,
    /// Project and legacy roots that exist but were skipped because the workspace is not
    /// trusted.
    pub untrusted_roots: Vec<Root>,
    /// The roots scanned, in precedence order (highest first).
    pub roots: Vec<Root>,
    /// The catalog's character budget from the configuration and its files, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_chars: Option<usize>,
}

impl Catalog {
    /// The names of the user skills a workspace skill of the same name shadows, in catalog
    /// order: what `prompt`, `sync` and `read` tell the user on stderr.
    pub fn user_shadows(&self) -> Vec<String> {
        self.skills
            .iter()
            .filter(|skill| skill.shadows_user())
            .map(|skill| skill.name.clone())
            .collect()
    }

    /// The listing of this catalog: summaries, optionally with the shadowed copies, optionally
    /// of one scope only.
    pub fn into_listing(self, options: &ListOptions) -> Listing {
        // Moves the strings rather than copying them: a listing of ten thousand skills should
        // not hold two copies of every description.
        let summaries = |skills: Vec<Skill>| -> Vec<SkillSummary> {
            skills
                .into_iter()
                .filter(|skill| options.scope.is_none_or(|scope| skill.scope == scope))
                .map(SkillSummary::from)
                .collect()
        };
        let mut shadowed = self.shadowed;
        let shadowed = listed_shadowed(&self.skills, &mut shadowed, options);
        Listing {
            skills: summaries(self.skills),
            shadowed,
            hidden: if options.include_shadowed {
                self.hidden
                    .into_iter()
                    .filter(|hidden| options.scope.is_none_or(|scope| hidden.scope == scope))
                    .collect()
            } else {
                Vec::new()
            },
            diagnostics: self.diagnostics,
            trusted: self.trusted,
            untrusted_roots: self.untrusted_roots,
        }
    }
}

/// The shadowed copies a listing shows, each with the scope of the copy that beat it
/// (`shadowed_by`), their fields taken from `losers`.
///
/// With `include_shadowed`, every loser of the asked scope. Without it, a listing of one scope
/// still shows that scope's best copy of a name whose winner is of another scope: `list
/// --scope user` must not hide the user's own skill because a project copy wins (it is
/// marked instead).
pub fn listed_shadowed(
    winners: &[Skill],
    losers: &mut [Skill],
    options: &ListOptions,
) -> Vec<SkillSummary> {
    if !options.include_shadowed && options.scope.is_none() {
        return Vec::new();
    }
    let winner_of: std::collections::HashMap<&std::path::Path, SkillScope> = winners
        .iter()
        .flat_map(|winner| {
            winner
                .shadowed
                .iter()
                .map(|shadowed| (shadowed.location.as_path(), winner.scope))
        })
        .collect();
    let mut shown: Vec<SkillSummary> = Vec::new();
    for loser in losers.iter_mut() {
        if options.scope.is_some_and(|scope| loser.scope != scope) {
            continue;
        }
        let by = winner_of.get(loser.location.as_path()).copied();
        if !options.include_shadowed
            && (by == options.scope || shown.iter().any(|summary| summary.name == loser.name))
        {
            continue;
        }
        let mut summary = SkillSummary::take_from(loser);
        summary.shadowed_by = by;
        shown.push(summary);
    }
    shown
}

/// What `list` returns: the catalog without frontmatter or bodies.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Listing {
    /// The skills an agent sees.
    pub skills: Vec<SkillSummary>,
    /// Copies that lost a collision, each with `shadowed_by`: all of them when asked for;
    /// with a scope, also that scope's copy of a name another scope won.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadowed: Vec<SkillSummary>,
    /// Skills kept out by a permission rule or `disabled` (only with the shadowed copies).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<Hidden>,
    /// Findings about the scan.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the workspace was trusted.
    pub trusted: bool,
    /// Roots skipped because the workspace is not trusted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted_roots: Vec<Root>,
}

/// What to list.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ListOptions {
    /// Also list the copies that lost a name collision, and the skills hidden by a permission
    /// rule or `disabled`.
    #[serde(default)]
    pub include_shadowed: bool,
    /// Only skills of this scope.
    #[serde(default)]
    pub scope: Option<SkillScope>,
}

/// Where one copy of a name stands, for `explain`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Standing {
    /// The copy the catalog holds.
    Winner,
    /// A copy that lost to the winner.
    Shadowed,
    /// The winner, kept out by a rule.
    Hidden,
}

/// One copy of a name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Candidate {
    /// Where it stands.
    pub standing: Standing,
    /// Its scope.
    pub scope: SkillScope,
    /// Its root.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub root: PathBuf,
    /// Its definition file.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub location: PathBuf,
    /// Why it stands there, in words.
    pub reason: String,
}

/// Every copy of a name and why the winner won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Explanation {
    /// The name asked about.
    pub name: String,
    /// Every copy, the winner first, then the losers in the order they lost.
    pub candidates: Vec<Candidate>,
    /// The rule that decided, in words.
    pub rule: String,
}

/// One skill's body, for an agent to read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillBody {
    /// The directory name.
    pub id: String,
    /// The skill's name.
    pub name: String,
    /// The base directory for the body's relative paths.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub dir: PathBuf,
    /// The definition file.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub location: PathBuf,
    /// From the sidecar: when to reach for the skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// From the sidecar: the inputs the skill takes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<crate::skill::SkillInput>,
    /// The body, verbatim.
    pub body: String,
    /// Whether this workspace copy shadows a user skill of the same name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shadows_user: bool,
    /// The skill's last audit verdict, as its listing shows it: none when it was never
    /// audited (not "clean").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<crate::audit::Mark>,
}
