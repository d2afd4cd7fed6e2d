//! Ranked search (08 §Relevance): a BM25 index (tantivy, chosen by measuring: docs/search.md)
//! over each skill's name, description, `when_to_use`, tags, the headings of its body and the
//! body's prose (outside code, the first 8 KB).
//!
//! The index lives in `~/<app_dir>/cache/search-<roots digest>/`, beside the catalog cache,
//! with a stamp per skill (its listing fields and its definition file's size and modification
//! time). A search discovers the catalog, re-indexes only the skills whose stamp changed,
//! deletes the ones that are gone, and queries. A long-lived process (an agent core holding a
//! watching handle) keeps an [`OpenIndex`] instead: the same index, brought up to date the same
//! way, but only when the catalog it is handed is a new one, so a query on an unchanged catalog
//! reads nothing but the index's mapped files. An index that is missing, unreadable or from
//! another format is rebuilt; one that another process is updating (tantivy's writer lock) is
//! left to it, and this search answers from a fresh index in memory instead, so the answer is
//! never stale. Nothing leaves the machine.
//!
//! The query is never parsed as query syntax: a task phrasing ("what's the +best way to OCR
//! a PDF?") is cut into words by the index's own analyzer (lowercased, English stop words
//! dropped, stemmed), and any word may match any field, each field weighted; a word scores
//! in its best field only.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use skills_types::search::{MAX_LIMIT, SearchHit};
use skills_types::{Catalog, Error, Skill, SkillsConfig};
use tantivy::collector::TopDocs;
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, EnableScoring, Occur, Query, TermQuery,
};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{
    Index, IndexReader, IndexSettings, IndexWriter, ReloadPolicy, TantivyDocument, Term,
};

use crate::discover::{discover, roots_digest};
use crate::state::{
    self, CACHE_DIR, Folder, IndexFolder, SEARCH_DIR_PREFIX, SEARCH_STAMPS, SEARCH_STAMPS_FILE,
};

/// The index's layout; a different one on disk is rebuilt.
const FORMAT: u32 = 2;

/// The analyzer's name in the index.
const ANALYZER: &str = "skills_en";

/// The indexed fields and their weights: a word in the name says most about a skill.
///
/// The body's prose says what a skill does in the words of the task far more often than its
/// one-line description does ("rotate the pages", "fill in the form fields"): on real public
/// skills it is what lifts recall@1 (docs/search.md, "Search that reads the skill"). It is one
/// more field of the same best-field disjunction, so a word still counts once, where it says
/// most, and a long body cannot outweigh a name.
const FIELDS: [(&str, f32); 6] = [
    ("name", 3.0),
    ("description", 2.0),
    ("when_to_use", 1.5),
    ("tags", 2.0),
    ("headings", 1.0),
    ("body", 1.5),
];

/// The writer's memory budget (tantivy's minimum is 15 MB).
const WRITER_BYTES: usize = 20_000_000;

/// The most of a definition file read for its headings and prose.
const MAX_BODY_BYTES: u64 = 1024 * 1024;

/// The most prose indexed per skill: a skill says what it is for near its top, and past this
/// a body's words (reference tables, long examples) add noise and index size, not recall.
const MAX_PROSE_BYTES: usize = 8 * 1024;

/// The skills that best match `query`, at most `limit` (1 to [`MAX_LIMIT`]), best first. A
/// skill started by name only ([`Skill::offered_to_model`]) is never among them.
pub fn search(config: &SkillsConfig, query: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
    let catalog = discover(config)?;
    Searchable::open(config, &catalog)?.query(&catalog, query, limit)
}

/// An index kept open by a long-lived process (an agent core holding a watching handle),
/// brought up to date only when the catalog it is given is a new one. Clones share one index.
///
/// It is the index [`search`] keeps (the same folder, stamps and rebuild rules); what differs
/// is when it is looked at. [`search`] checks every skill's stamp on every call, which at
/// 10,000 skills costs more than the query; a process that is told when its catalog changes
/// (a watch) checks them once per change, and a query in between reads only the index's own
/// mapped files.
#[derive(Clone, Default)]
pub struct OpenIndex {
    current: Arc<Mutex<Option<Arc<Generation>>>>,
}

// An agent core shares its handle, and so this index, across threads.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<OpenIndex>();
};

/// The index as of one catalog.
struct Generation {
    number: u64,
    searchable: Searchable,
}

impl OpenIndex {
    /// The skills of `catalog` that best match `query`, at most `limit` (1 to
    /// [`MAX_LIMIT`]), best first.
    ///
    /// `generation` identifies the catalog: the caller gives a new number whenever its
    /// catalog may have changed, and the same number means the same catalog, so the index is
    /// not checked again (passing a different catalog under the same number answers from the
    /// index of the old one). A new number brings the index up to date with `catalog` before
    /// the query, as [`search`] does.
    pub fn search(
        &self,
        config: &SkillsConfig,
        catalog: &Catalog,
        generation: u64,
        query: &str,
        limit: usize,
    ) -> Result<Vec<SearchHit>, Error> {
        let current = {
            // A panic elsewhere leaves at worst an older generation here, which the next new
            // number replaces: nothing to recover.
            let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
            match current.as_ref() {
                Some(kept) if kept.number == generation => Arc::clone(kept),
                // Updated while the lock is held, so two callers with the same new catalog
                // update the index once.
                _ => {
                    let fresh = Arc::new(Generation {
                        number: generation,
                        searchable: Searchable::open(config, catalog)?,
                    });
                    *current = Some(Arc::clone(&fresh));
                    fresh
                }
            }
        };
        current.searchable.query(catalog, query, limit)
    }
}

impl std::fmt::Debug for OpenIndex {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        formatter
            .debug_struct("OpenIndex")
            .field("generation", &current.as_ref().map(|kept| kept.number))
            .finish_non_exhaustive()
    }
}

/// The name of the index's folder in `<app>/cache/`: one per set of roots.
fn index_name(catalog: &Catalog) -> String {
    let digest = roots_digest(&catalog.roots);
    format!("{SEARCH_DIR_PREFIX}{}", &digest[..16])
}

/// An index brought up to date with a catalog, and a reader over it.
struct Searchable {
    layout: Layout,
    reader: IndexReader,
}

/// Where each indexed field is, in an index with the analyzer registered.
struct Layout {
    key: Field,
    fields: Vec<(Field, f32, &'static str)>,
}

/// What the stamps file holds.
#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Stamps {
    format: u32,
    skills: BTreeMap<String, u64>,
}

impl Searchable {
    /// The kept index, updated, or a fresh one in memory when it cannot be kept: with the
    /// caches off (`cache = false`) nothing is kept between runs.
    fn open(config: &SkillsConfig, catalog: &Catalog) -> Result<Self, Error> {
        let kept = config
            .cache
            .then(|| Self::on_disk(&state::app_dir(config), &index_name(catalog), catalog))
            .flatten();
        match kept {
            Some(index) => Ok(index),
            None => Self::in_memory(catalog),
        }
    }

    /// The index in `<app>/cache/<name>`, updated; none when it cannot be used there (another
    /// process is writing it, or the cache folder cannot be written, or a folder on the way
    /// is a link, which is neither followed nor removed). Every file of it goes through
    /// [`state`]: a FIFO, a device, a link or an oversized file anywhere in the index makes it
    /// be rebuilt, never hangs the search or grows its memory.
    fn on_disk(app: &Path, name: &str, catalog: &Catalog) -> Option<Self> {
        let usable = |folder: Result<Folder, state::Refusal>, path: PathBuf| match folder {
            Ok(folder) => Some(folder),
            Err(refusal) => {
                state::warn(&SEARCH_STAMPS, &path, &refusal);
                None
            }
        };
        let cache = usable(Folder::create(app, &[CACHE_DIR]), app.join(CACHE_DIR))?;
        let mut folder = usable(cache.create_child(name), cache.join(name))?;
        let stamps = read_stamps(&folder);
        let opened = match &stamps {
            Some(_) => Index::open(IndexFolder::new(folder.clone())).ok(),
            None => None,
        };
        let (index, stamps) = match (opened, stamps) {
            (Some(index), Some(stamps)) if index.schema() == schema() => (index, stamps),
            // Missing, corrupt, foreign or holding a trap: start again in an empty folder.
            _ => {
                cache.remove_tree(name).ok()?;
                folder = usable(cache.create_child(name), cache.join(name))?;
                let index = Index::create(
                    IndexFolder::new(folder.clone()),
                    schema(),
                    IndexSettings::default(),
                )
                .ok()?;
                (index, Stamps::default())
            }
        };
        let layout = Layout::of(&index);
        let now = current_stamps(catalog);
        if now != stamps.skills {
            let mut writer: IndexWriter = index.writer(WRITER_BYTES).ok()?;
            layout
                .sync(&mut writer, catalog, &stamps.skills, &now)
                .ok()?;
            writer.commit().ok()?;
            // No merge may outlive the update: its files are mapped.
            writer.wait_merging_threads().ok()?;
            let written = Stamps {
                format: FORMAT,
                skills: now,
            };
            write_stamps(&folder, &written);
        }
        Self::ready(&index, layout).ok()
    }

    /// A fresh index of the whole catalog, in memory.
    fn in_memory(catalog: &Catalog) -> Result<Self, Error> {
        let index = Index::create_in_ram(schema());
        let layout = Layout::of(&index);
        let mut writer: IndexWriter = index
            .writer(WRITER_BYTES)
            .map_err(|error| index_error(&error))?;
        layout
            .sync(
                &mut writer,
                catalog,
                &BTreeMap::new(),
                &current_stamps(catalog),
            )
            .map_err(|error| index_error(&error))?;
        writer.commit().map_err(|error| index_error(&error))?;
        writer
            .wait_merging_threads()
            .map_err(|error| index_error(&error))?;
        Self::ready(&index, layout).map_err(|error| index_error(&error))
    }

    /// A reader over the index as committed: it watches nothing, since the index changes only
    /// through a new [`Searchable`].
    fn ready(index: &Index, layout: Layout) -> tantivy::Result<Self> {
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(Self { layout, reader })
    }

    fn query(&self, catalog: &Catalog, text: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        let limit = limit.clamp(1, MAX_LIMIT);
        let words = words(text);
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let fields = &self.layout.fields;
        let all = BooleanQuery::new(
            words
                .iter()
                .map(|word| (Occur::Should, word_query(fields, word)))
                .collect(),
        );
        // A skill started by name only is never in a result (results are what an agent is
        // offered to choose from): the index holds it, so as many more are asked for as the
        // catalog has, and it is passed over below.
        let manual = catalog
            .skills
            .iter()
            .filter(|skill| !skill.offered_to_model())
            .count();
        let top = searcher
            .search(
                &all,
                &TopDocs::with_limit(limit.saturating_add(manual)).order_by_score(),
            )
            .map_err(|error| index_error(&error))?;
        // Which fields matched: each word of each field explained on its own (a term's
        // explanation is exact and cheap; a whole field's Boolean one is not always sound).
        let scoring = EnableScoring::enabled_from_searcher(&searcher);
        let weights: Vec<_> = fields
            .iter()
            .flat_map(|(field, weight, name)| {
                words.iter().filter_map(move |word| {
                    let term = TermQuery::new(
                        Term::from_field_text(*field, word),
                        IndexRecordOption::WithFreqs,
                    );
                    BoostQuery::new(Box::new(term), *weight)
                        .weight(scoring)
                        .ok()
                        .map(|weight| (weight, *name))
                })
            })
            .collect();
        let mut hits = Vec::new();
        for (score, address) in top {
            let Ok(document) = searcher.doc::<TantivyDocument>(address) else {
                continue;
            };
            let Some(name) = document
                .get_first(self.layout.key)
                .and_then(|value| value.as_str())
            else {
                continue;
            };
            let Some(skill) = skill_named(catalog, name).filter(|skill| skill.offered_to_model())
            else {
                continue;
            };
            if hits.len() == limit {
                break;
            }
            let segment = searcher.segment_reader(address.segment_ord);
            let mut contributions: BTreeMap<&str, f32> = BTreeMap::new();
            for (weight, field) in &weights {
                if let Ok(explained) = weight.explain(segment, address.doc_id)
                    && explained.value() > 0.0
                {
                    *contributions.entry(field).or_default() += explained.value();
                }
            }
            let mut matched: Vec<(f32, &str)> = contributions
                .into_iter()
                .map(|(field, value)| (value, field))
                .collect();
            matched.sort_by(|a, b| b.0.total_cmp(&a.0));
            hits.push(SearchHit {
                name: skill.name.clone(),
                description: skill.description.to_string(),
                score,
                matched: matched
                    .into_iter()
                    .map(|(_, field)| field.to_owned())
                    .collect(),
            });
        }
        Ok(hits)
    }
}

impl Layout {
    fn of(index: &Index) -> Self {
        index.tokenizers().register(ANALYZER, analyzer());
        let schema = index.schema();
        let field = |name: &str| schema.get_field(name).unwrap_or(Field::from_field_id(0));
        let fields = FIELDS
            .iter()
            .map(|(name, weight)| (field(name), *weight, *name))
            .collect();
        Self {
            key: field("key"),
            fields,
        }
    }

    /// Deletes what changed or went, adds what changed or came.
    fn sync(
        &self,
        writer: &mut IndexWriter,
        catalog: &Catalog,
        before: &BTreeMap<String, u64>,
        now: &BTreeMap<String, u64>,
    ) -> tantivy::Result<()> {
        for (name, stamp) in before {
            if now.get(name) != Some(stamp) {
                writer.delete_term(Term::from_field_text(self.key, name));
            }
        }
        for skill in &catalog.skills {
            if before.get(&skill.name) == now.get(&skill.name) {
                continue;
            }
            writer.add_document(self.document(skill))?;
        }
        Ok(())
    }

    fn document(&self, skill: &Skill) -> TantivyDocument {
        let mut document = TantivyDocument::default();
        document.add_text(self.key, &skill.name);
        let Body { headings, prose } = body(&skill.location);
        let texts: [Vec<String>; 6] = [
            vec![skill.name.replace(['-', '_'], " ")],
            vec![skill.description.to_string()],
            skill.when_to_use.iter().cloned().collect(),
            skill.frontmatter.tags(),
            headings,
            vec![prose],
        ];
        for ((field, _, _), values) in self.fields.iter().zip(texts) {
            for value in values {
                document.add_text(*field, &value);
            }
        }
        document
    }
}

/// The catalog's skill called `name`: the catalog is sorted by name, so this is a binary
/// search (a map built per query would cost more than the query at 10,000 skills).
fn skill_named<'a>(catalog: &'a Catalog, name: &str) -> Option<&'a Skill> {
    match catalog
        .skills
        .binary_search_by(|skill| skill.name.as_str().cmp(name))
    {
        Ok(position) => catalog.skills.get(position),
        // A catalog built by hand need not be sorted.
        Err(_) => catalog.skills.iter().find(|skill| skill.name == name),
    }
}

/// One word's part of the query: its best field, weighted. A word counts once, where it
/// says most: summed over the fields instead, a skill's topic word (in its name, its tags,
/// its description and its headings) outweighed a task's other words, and on the labelled
/// sets recall@5 over the synthetic tree rose from 0.59 to 0.67 and recall@1 over the
/// example skills from 0.81 to 0.89 with the best field alone (docs/search.md).
fn word_query(fields: &[(Field, f32, &'static str)], word: &str) -> Box<dyn Query> {
    let per_field: Vec<Box<dyn Query>> = fields
        .iter()
        .map(|(field, weight, _)| {
            let term = TermQuery::new(
                Term::from_field_text(*field, word),
                IndexRecordOption::WithFreqs,
            );
            Box::new(BoostQuery::new(Box::new(term), *weight)) as Box<dyn Query>
        })
        .collect();
    Box::new(DisjunctionMaxQuery::new(per_field))
}

/// The words of a query as the index holds them.
fn words(text: &str) -> BTreeSet<String> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut words = BTreeSet::new();
    while stream.advance() {
        words.insert(stream.token().text.clone());
    }
    words
}

fn analyzer() -> TextAnalyzer {
    let builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser);
    match StopWordFilter::new(Language::English) {
        Some(stop_words) => builder
            .filter(stop_words)
            .filter(Stemmer::new(Language::English))
            .build(),
        None => builder.filter(Stemmer::new(Language::English)).build(),
    }
}

fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field("key", STRING | STORED);
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    for (name, _) in FIELDS {
        builder.add_text_field(name, text.clone());
    }
    builder.build()
}

/// Which version of each skill the index should hold: its indexed listing fields and its
/// definition file's size and modification time (the headings come from the file).
fn current_stamps(catalog: &Catalog) -> BTreeMap<String, u64> {
    catalog
        .skills
        .iter()
        .map(|skill| {
            let mut hasher = DefaultHasher::new();
            FORMAT.hash(&mut hasher);
            skill.description.hash(&mut hasher);
            skill.when_to_use.hash(&mut hasher);
            skill.frontmatter.tags().hash(&mut hasher);
            skill.location.hash(&mut hasher);
            if let Ok(metadata) = std::fs::metadata(&skill.location) {
                metadata.len().hash(&mut hasher);
                metadata.modified().ok().hash(&mut hasher);
            }
            (skill.name.clone(), hasher.finish())
        })
        .collect()
}

fn read_stamps(folder: &Folder) -> Option<Stamps> {
    let text = folder.read_or_miss(&SEARCH_STAMPS, SEARCH_STAMPS_FILE)?;
    let stamps: Stamps = serde_json::from_slice(&text).ok()?;
    (stamps.format == FORMAT).then_some(stamps)
}

/// Writes the stamps atomically; a failure only costs a re-index next time.
fn write_stamps(folder: &Folder, stamps: &Stamps) {
    let Ok(text) = serde_json::to_vec(stamps) else {
        return;
    };
    let _ = folder.replace(&SEARCH_STAMPS, SEARCH_STAMPS_FILE, &text);
}

/// What the index reads of a definition file's body.
#[derive(Debug, Default, PartialEq, Eq)]
struct Body {
    /// Its Markdown headings.
    headings: Vec<String>,
    /// Its other lines outside code fences and the frontmatter, at most [`MAX_PROSE_BYTES`].
    prose: String,
}

/// The headings and prose of a definition file's body: code fences and the frontmatter are
/// left out (code and YAML are not how a task is phrased).
fn body(location: &Path) -> Body {
    // As the loader reads it: a regular file, opened without blocking (a FIFO swapped in after
    // discovery must not hang a search), at most the definition file's limit.
    let Ok(bytes) = crate::load::read_definition(location, MAX_BODY_BYTES) else {
        return Body::default();
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Body::default();
    };
    body_of(&text)
}

fn body_of(text: &str) -> Body {
    let mut body = Body::default();
    let mut lines = text.lines().peekable();
    // The frontmatter, when the file opens with one.
    if lines.peek().is_some_and(|line| line.trim_end() == "---") {
        lines.next();
        for line in lines.by_ref() {
            if line.trim_end() == "---" {
                break;
            }
        }
    }
    let mut fenced = false;
    for line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some(heading) = trimmed.strip_prefix('#') {
            let heading = heading.trim_start_matches('#');
            if heading.starts_with(' ') {
                body.headings.push(heading.trim().to_owned());
                continue;
            }
        }
        let room = MAX_PROSE_BYTES.saturating_sub(body.prose.len());
        if room == 0 || trimmed.is_empty() {
            continue;
        }
        let mut end = trimmed.len().min(room);
        while !trimmed.is_char_boundary(end) {
            end -= 1;
        }
        body.prose.push_str(&trimmed[..end]);
        body.prose.push('\n');
    }
    body
}

fn index_error(error: &tantivy::TantivyError) -> Error {
    Error::Io {
        action: "use the search index",
        path: PathBuf::from(CACHE_DIR),
        source: std::io::Error::other(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index's folder for `catalog`.
    fn index_dir(config: &SkillsConfig, catalog: &Catalog) -> PathBuf {
        state::app_dir(config)
            .join(CACHE_DIR)
            .join(index_name(catalog))
    }

    const STAMPS: &str = SEARCH_STAMPS_FILE;
    use crate::testing::Tree;

    fn add(tree: &Tree, name: &str, description: &str, body: &str) {
        let dir = tree.home.join(".openhuman/skills").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n{body}"),
        )
        .unwrap();
    }

    fn names(hits: &[SearchHit]) -> Vec<&str> {
        hits.iter().map(|hit| hit.name.as_str()).collect()
    }

    #[test]
    fn the_index_ranks_follows_edits_and_rebuilds_when_broken() {
        let tree = Tree::new();
        add(
            &tree,
            "pdf-extract",
            "Pulls text and tables out of PDF files.",
            "# Scanned pages\n",
        );
        add(&tree, "weather", "Forecasts for any city.", "# Forecast\n");
        add(
            &tree,
            "csv-profile",
            "Profiles a CSV file before analysis.",
            "# Columns\n",
        );
        let mut config = tree.config();
        config.cache = true;

        let hits = search(&config, "get the tables from a scanned invoice", 5).unwrap();
        assert_eq!(names(&hits), ["pdf-extract"], "{hits:?}");
        assert_eq!(hits[0].matched, ["description", "headings"], "{hits:?}");
        let catalog = discover(&config).unwrap();
        let dir = index_dir(&config, &catalog);
        let stamps = std::fs::read(dir.join(STAMPS)).unwrap();

        // Nothing changed: the index is reused as it is.
        search(&config, "forecast", 5).unwrap();
        assert_eq!(std::fs::read(dir.join(STAMPS)).unwrap(), stamps);

        // An edit is re-indexed, a removal forgotten.
        add(&tree, "weather", "Tomorrow's rain and wind.", "# Rain\n");
        std::fs::remove_dir_all(tree.home.join(".openhuman/skills/csv-profile")).unwrap();
        assert_eq!(
            names(&search(&config, "will it rain", 5).unwrap()),
            ["weather"]
        );
        assert!(search(&config, "forecast city", 5).unwrap().is_empty());
        assert!(search(&config, "csv columns", 5).unwrap().is_empty());

        // A broken index is rebuilt, and answers the same.
        for entry in std::fs::read_dir(&dir).unwrap() {
            std::fs::write(entry.unwrap().path(), b"garbage").unwrap();
        }
        assert_eq!(
            names(&search(&config, "will it rain", 5).unwrap()),
            ["weather"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            names(&search(&config, "scanned tables", 5).unwrap()),
            ["pdf-extract"]
        );
    }

    #[test]
    fn an_open_index_follows_new_generations_only() {
        for cache in [true, false] {
            let tree = Tree::new();
            add(&tree, "weather", "Forecasts for any city.", "# Forecast\n");
            add(
                &tree,
                "csv-profile",
                "Profiles a CSV file before analysis.",
                "# Columns\n",
            );
            let mut config = tree.config();
            config.cache = cache;
            let open = OpenIndex::default();
            let first = discover(&config).unwrap();
            let found = |catalog: &Catalog, generation: u64, query: &str| {
                names(&open.search(&config, catalog, generation, query, 5).unwrap())
                    .iter()
                    .map(|name| (*name).to_owned())
                    .collect::<Vec<_>>()
            };
            assert_eq!(found(&first, 1, "forecast"), ["weather"], "cache {cache}");

            // The same generation is the same catalog: nothing is looked at again, not the
            // stamps (gone here) nor the skill files (edited here).
            let dir = index_dir(&config, &first);
            if cache {
                std::fs::remove_file(dir.join(STAMPS)).unwrap();
            }
            add(&tree, "weather", "Tomorrow's rain and wind.", "# Rain\n");
            std::fs::remove_dir_all(tree.home.join(".openhuman/skills/csv-profile")).unwrap();
            assert_eq!(found(&first, 1, "forecast city"), ["weather"]);
            assert!(found(&first, 1, "rain").is_empty());
            assert_eq!(found(&first, 1, "csv columns"), ["csv-profile"]);
            assert!(!dir.join(STAMPS).exists());

            // A new generation follows the edit and forgets the removed skill; a clone
            // shares what it found.
            let second = discover(&config).unwrap();
            let clone = open.clone();
            assert_eq!(
                names(
                    &clone
                        .search(&config, &second, 2, "will it rain", 5)
                        .unwrap()
                ),
                ["weather"]
            );
            assert!(found(&second, 2, "forecast city").is_empty());
            assert!(found(&second, 2, "csv columns").is_empty());
            assert!(format!("{open:?}").contains("Some(2)"), "{open:?}");
            assert_eq!(dir.join(STAMPS).exists(), cache);
        }
    }

    #[test]
    fn an_open_index_answers_like_a_one_off_search() {
        let tree = Tree::new();
        add(
            &tree,
            "pdf-extract",
            "Pulls text and tables out of PDF files.",
            "# Scanned pages\n",
        );
        add(&tree, "weather", "Forecasts for any city.", "# Forecast\n");
        let mut config = tree.config();
        config.cache = true;
        let catalog = discover(&config).unwrap();
        let open = OpenIndex::default();
        for query in [
            "get the tables from a scanned invoice",
            "forecast",
            "the and of",
        ] {
            assert_eq!(
                open.search(&config, &catalog, 7, query, 5).unwrap(),
                search(&config, query, 5).unwrap(),
                "{query}"
            );
        }
    }

    #[test]
    fn without_the_cache_nothing_is_kept_and_the_answer_is_the_same() {
        let tree = Tree::new();
        add(
            &tree,
            "pdf-extract",
            "Pulls text and tables out of PDF files.",
            "",
        );
        let config = tree.config();
        assert_eq!(
            names(&search(&config, "pdf tables", 3).unwrap()),
            ["pdf-extract"]
        );
        assert!(!tree.home.join(".openhuman").join(CACHE_DIR).exists());
        assert!(search(&config, "", 3).unwrap().is_empty());
    }

    #[test]
    fn a_skill_started_by_name_only_is_never_a_result() {
        let tree = Tree::new();
        for index in 0..4 {
            add(
                &tree,
                &format!("invoice-{index}"),
                "Reads invoices and their totals.",
                "# Invoices\n",
            );
        }
        let manual = tree.home.join(".openhuman/skills/invoice-0/SKILL.md");
        std::fs::write(
            &manual,
            "---\nname: invoice-0\ndescription: Reads invoices, invoices and invoice totals.\ndisable-model-invocation: true\n---\n# Invoices\n",
        )
        .unwrap();
        let mut config = tree.config();
        config.cache = true;
        // The manual skill matches best, and the limit is still filled with the others.
        let hits = search(&config, "invoice totals", 3).unwrap();
        assert_eq!(
            names(&hits),
            ["invoice-1", "invoice-2", "invoice-3"],
            "{hits:?}"
        );
        let catalog = discover(&config).unwrap();
        let open = OpenIndex::default();
        let hits = open
            .search(&config, &catalog, 1, "invoice totals", 10)
            .unwrap();
        assert!(!names(&hits).contains(&"invoice-0"), "{hits:?}");
        assert_eq!(hits.len(), 3);
    }

    #[test]
    fn query_words_are_stemmed_and_never_syntax() {
        let found = words("What's the +best way to OCR scanned tables? title:AND -x");
        assert!(
            found.contains("scan") && found.contains("tabl"),
            "{found:?}"
        );
        assert!(
            !found
                .iter()
                .any(|word| word.contains('+') || word.contains(':'))
        );
        assert!(
            words("the and of").is_empty(),
            "stop words alone find nothing"
        );
    }

    #[test]
    fn the_body_is_read_without_frontmatter_or_code_and_within_its_cap() {
        let text = "---\nname: x\ndescription: y\n# not a heading\n---\n# Title\nRotate the pages.\n```\n# not a heading\nrotate(code)\n```\n## Step two\n\nThen merge them.\n";
        let body = body_of(text);
        assert_eq!(body.headings, ["Title", "Step two"]);
        assert_eq!(body.prose, "Rotate the pages.\nThen merge them.\n");
        let long = format!("Intro \u{e9}.\n{}", "word ".repeat(4_000));
        let capped = body_of(&long);
        assert!(
            capped.prose.len() <= MAX_PROSE_BYTES + 1,
            "{}",
            capped.prose.len()
        );
        assert!(capped.prose.starts_with("Intro \u{e9}."));
    }

    #[test]
    fn headings_skip_code_fences() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("SKILL.md");
        std::fs::write(
            &file,
            "---\nname: x\n---\n# Title\ntext\n```sh\n# not a heading\n```\n## Step two\n#nospace\n",
        )
        .unwrap();
        assert_eq!(body(&file).headings, ["Title", "Step two"]);
    }
}
