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
