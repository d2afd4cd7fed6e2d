//! `search_skills` until the full-text index of step 6 replaces it: a plain ranked match of
//! the query's words against each skill's name and description, name hits first. The tool's
//! contract (query, limit, ranked names with scores) is the one the index will keep.

use serde_json::{Value, json};
use skills_types::SkillSummary;

/// The most results one search returns, whatever `limit` asks.
pub(crate) const MAX_LIMIT: usize = 50;

/// The results when the caller names no limit.
pub(crate) const DEFAULT_LIMIT: usize = 10;

/// What a hit in a field is worth: a name hit outranks any number of description hits
/// short of that many words.
const NAME_WEIGHT: u32 = 10;
const DESCRIPTION_WEIGHT: u32 = 1;

/// The skills matching `query`, best first (ties by name), at most `limit`.
pub(crate) fn rank(skills: &[SkillSummary], query: &str, limit: usize) -> Vec<Value> {
    let wanted: Vec<String> = words(query).collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut hits: Vec<(u32, &SkillSummary, Vec<&'static str>)> = skills
        .iter()
        .filter_map(|skill| {
            let name: Vec<String> = words_of_name(&skill.name).collect();
            let description: Vec<String> = words(&skill.description).collect();
            let mut score = 0;
            let mut fields = Vec::new();
            for word in &wanted {
                if name.iter().any(|part| part.starts_with(word.as_str())) {
                    score += NAME_WEIGHT;
                    push_once(&mut fields, "name");
                }
                if description
                    .iter()
                    .any(|part| part.starts_with(word.as_str()))
                {
                    score += DESCRIPTION_WEIGHT;
                    push_once(&mut fields, "description");
                }
            }
            (score > 0).then_some((score, skill, fields))
        })
        .collect();
    hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    hits.into_iter()
        .take(limit.clamp(1, MAX_LIMIT))
        .map(|(score, skill, fields)| {
            json!({
                "name": skill.name,
                "description": skill.description,
                "score": score,
                "matched": fields,
            })
        })
        .collect()
}

/// The schema of `search_skills`' structured content: `{ "results": [hit, ...] }`.
pub(crate) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": { "type": "string" },
                        "description": { "type": "string" },
                        "score": { "type": "number" },
                        "matched": { "type": "array", "items": { "type": "string" } },
                    },
                    "required": ["name", "description", "score", "matched"],
                },
            },
        },
        "required": ["results"],
    })
}

fn push_once(fields: &mut Vec<&'static str>, field: &'static str) {
    if !fields.contains(&field) {
        fields.push(field);
    }
}

/// Lowercased alphanumeric words.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// A name's words (`pdf-tools` is `pdf`, `tools`) and the whole name.
fn words_of_name(name: &str) -> impl Iterator<Item = String> + '_ {
    words(name).chain(std::iter::once(name.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use skills_types::SkillScope;

    fn skill(name: &str, description: &str) -> SkillSummary {
        let value = json!({
            "id": name, "name": name, "description": description, "scope": "user",
            "location": format!("/s/{name}/SKILL.md"), "permission": "allow",
        });
        let mut summary: SkillSummary = serde_json::from_value(value).unwrap_or_else(|error| {
            panic!("the fixture summary should deserialize: {error}");
        });
        summary.scope = SkillScope::User;
        summary
    }

    #[test]
    fn name_hits_rank_before_description_hits() {
        let skills = [
            skill("notes", "turn a pdf into notes"),
            skill("pdf-tools", "split and merge documents"),
            skill("weather", "forecasts"),
        ];
        let ranked = rank(&skills, "PDF", 10);
        let names: Vec<&str> = ranked
            .iter()
            .filter_map(|hit| hit["name"].as_str())
            .collect();
        assert_eq!(names, ["pdf-tools", "notes"]);
        assert_eq!(ranked[0]["matched"], json!(["name"]));
    }

    #[test]
    fn an_empty_query_finds_nothing_and_the_limit_holds() {
        let skills: Vec<SkillSummary> = (0..100)
            .map(|i| skill(&format!("s{i}"), "shared words"))
            .collect();
        assert!(rank(&skills, "  --  ", 10).is_empty());
        assert_eq!(rank(&skills, "shared", 1000).len(), MAX_LIMIT);
        assert_eq!(rank(&skills, "shared", 0).len(), 1);
    }
}
