//! Ranked search over the catalog (08 §Relevance): what `skills search`, the `search_skills`
//! MCP tool and an embedding agent core get back.

use serde::{Deserialize, Serialize};

/// One skill that matched a query, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchHit {
    /// The skill's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The BM25 score over the weighted fields; comparable within one answer only.
    pub score: f32,
    /// The fields the query matched (`name`, `description`, `when_to_use`, `tags`,
    /// `headings`), best contribution first.
    pub matched: Vec<String>,
}

/// A search's answer: the query as asked and the hits, best first (`skills search --json`,
/// `skills.search`, the `search_skills` MCP tool).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchResults {
    /// The query.
    pub query: String,
    /// The hits, best first.
    pub results: Vec<SearchHit>,
}

/// The results when the caller names no limit.
pub const DEFAULT_LIMIT: usize = 10;

/// The most results one search returns, whatever the caller asks.
pub const MAX_LIMIT: usize = 50;
