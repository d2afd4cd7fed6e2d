//! `search_skills`' limits and the schema of its answer; the ranking is the subsystem's
//! (`SkillsService::search`: BM25 over the weighted fields, the index in the cache folder).

use serde_json::{Value, json};

/// The most results one search returns, whatever `limit` asks.
pub(crate) const MAX_LIMIT: usize = 50;

/// The results when the caller names no limit.
pub(crate) const DEFAULT_LIMIT: usize = 10;

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
