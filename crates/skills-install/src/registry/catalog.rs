//! Reading a `catalog` registry (09 §Registries: the seed's Hermes `skills.json`) as a stream.
//!
//! The real catalog is about 26 MB for 50,000+ entries, so it is never held whole: the body
//! is downloaded into a file (`cache.rs`), and this reads that file through serde_json's
//! streaming `Deserializer` with a sequence visitor that sees one element at a time. Only
//! that element is ever a `Value`; it is checked, turned into a compact [`Entry`] (the fields
//! search, show and install need: `overview`, `envVars`, `commands`, `installCmd`, `image`
//! and the rest are dropped) and handed to a sink (the cache's data file) at once. What stays
//! in memory is the set of ids seen, for the duplicate check.
//!
//! Caps: more entries than the configured maximum refuses the whole catalog (a cut-off
//! catalog would silently hide entries); the byte cap is the download's. A malformed entry is
//! skipped with a warning, as one publisher's typo should not hide every other entry.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde_json::{Map, Value};
use skills_types::registry::{Coordinates, Entry};

/// Warnings kept about skipped entries; the rest are counted in one more line.
pub(crate) const MAX_WARNINGS: usize = 20;

/// Largest entry kept, counted over its kept fields: nothing a person reads in a listing is
/// this long, and it bounds what reading one record of the cache may need.
pub(crate) const MAX_ENTRY_BYTES: usize = 256 * 1024;

/// A catalog read: how many entries went to the sink, and the warnings about skipped ones.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) count: usize,
    pub(crate) skipped: Vec<String>,
}

/// Why a catalog was refused as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not JSON, or not an array.
    Invalid(String),
    /// More entries than `max_entries`.
    TooManyEntries(usize),
    /// The sink failed (the cache could not be written).
    Sink(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(reason) | Self::Sink(reason) => f.write_str(reason),
            Self::TooManyEntries(max) => write!(
                f,
                "the catalog has more than {max} entries (raise [registry] max_catalog_entries \
                 in the home skills.toml to accept it)"
            ),
        }
    }
}

/// The sink entries go to, in catalog order.
pub(crate) type Sink<'a> = dyn FnMut(Entry) -> Result<(), String> + 'a;

/// Reads a catalog from `reader`, one entry at a time, each kept entry to `sink`.
pub(crate) fn read(
    reader: impl Read,
    max_entries: usize,
    sink: &mut Sink<'_>,
) -> Result<Summary, Refusal> {
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let mut state = State::new(max_entries, sink);
    match (&mut state).deserialize(&mut deserializer) {
        Ok(()) => {}
        Err(_) if state.too_many => return Err(Refusal::TooManyEntries(max_entries)),
        Err(_) if state.failed.is_some() => {
            return Err(Refusal::Sink(state.failed.take().unwrap_or_default()));
        }
        Err(error) if state.not_array.is_some() => {
            drop(error);
            return Err(Refusal::Invalid(state.not_array.take().unwrap_or_default()));
        }
        Err(error) => {
            return Err(Refusal::Invalid(format!(
                "the catalog is not valid JSON: {error}"
            )));
        }
    }
    deserializer
        .end()
        .map_err(|error| Refusal::Invalid(format!("the catalog is not valid JSON: {error}")))?;
    Ok(state.finish())
}

/// Reads a whole catalog into memory, sorted by name (for small catalogs and tests).
pub(crate) fn read_all(
    reader: impl Read,
    max_entries: usize,
) -> Result<(Vec<Entry>, Vec<String>), Refusal> {
    let mut entries = Vec::new();
    let summary = read(reader, max_entries, &mut |entry| {
        entries.push(entry);
        Ok(())
    })?;
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, summary.skipped))
}

/// What the visitor has read so far.
struct State<'a, 'b> {
    max_entries: usize,
    sink: &'a mut Sink<'b>,
    count: usize,
    warnings: Vec<String>,
    skipped: usize,
    ids: HashMap<String, usize>,
    too_many: bool,
    not_array: Option<String>,
    failed: Option<String>,
}

impl<'a, 'b> State<'a, 'b> {
    fn new(max_entries: usize, sink: &'a mut Sink<'b>) -> Self {
        Self {
            max_entries,
            sink,
            count: 0,
            warnings: Vec::new(),
            skipped: 0,
            ids: HashMap::new(),
            too_many: false,
            not_array: None,
            failed: None,
        }
    }

    fn skip(&mut self, warning: String) {
        self.skipped += 1;
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(warning);
        }
    }

    fn take(&mut self, index: usize, value: Value) -> Result<(), String> {
        match entry_of(value) {
            Ok((entry, _)) if size_of(&entry) > MAX_ENTRY_BYTES => {
                let warning = format!(
                    "entry {index} ('{}') is skipped: it is larger than {MAX_ENTRY_BYTES} bytes",
                    entry.name.chars().take(80).collect::<String>()
                );
                self.skip(warning);
            }
            Ok((entry, coordinates)) => {
                let id = coordinates.canonical();
                match self.ids.get(&id) {
                    Some(first) => {
                        let warning = format!(
                            "entry {index} ('{}') is skipped: entry {first} has the same id",
                            entry.name
                        );
                        self.skip(warning);
                    }
                    None => {
                        self.ids.insert(id, index);
                        (self.sink)(entry)?;
                        self.count += 1;
                    }
                }
            }
            Err(reason) => self.skip(format!("entry {index} is skipped: {reason}")),
        }
        Ok(())
    }

    fn finish(mut self) -> Summary {
        if self.skipped > self.warnings.len() {
            let more = self.skipped - self.warnings.len();
            self.warnings
                .push(format!("... {more} more entries were skipped"));
        }
        Summary {
            count: self.count,
            skipped: self.warnings,
        }
    }
}

/// The bytes of an entry's kept fields.
fn size_of(entry: &Entry) -> usize {
    let optional = |field: &Option<String>| field.as_ref().map_or(0, String::len);
    [
        &entry.name,
        &entry.description,
        &entry.source,
        &entry.category,
        &entry.author,
        &entry.version,
        &entry.license,
    ]
    .iter()
    .map(|field| field.len())
    .chain(entry.tags.iter().chain(&entry.platforms).map(String::len))
    .sum::<usize>()
        + optional(&entry.docs_path)
        + optional(&entry.source_url)
        + optional(&entry.install_identifier)
}

impl<'de> DeserializeSeed<'de> for &mut State<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut State<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of catalog entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        while let Some(value) = seq.next_element::<Value>()? {
            if self.count + self.skipped >= self.max_entries {
                self.too_many = true;
                return Err(de::Error::custom("too many entries"));
            }
            if let Err(failure) = self.take(index, value) {
                self.failed = Some(failure);
                return Err(de::Error::custom("the sink failed"));
            }
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: de::MapAccess<'de>>(self, _map: A) -> Result<(), A::Error> {
        self.not_array("object")
    }

    fn visit_str<E: de::Error>(self, _text: &str) -> Result<(), E> {
        self.not_array("string")
    }

    fn visit_bool<E: de::Error>(self, _value: bool) -> Result<(), E> {
        self.not_array("boolean")
    }

    fn visit_i64<E: de::Error>(self, _value: i64) -> Result<(), E> {
        self.not_array("number")
    }

    fn visit_u64<E: de::Error>(self, _value: u64) -> Result<(), E> {
        self.not_array("number")
    }

    fn visit_f64<E: de::Error>(self, _value: f64) -> Result<(), E> {
        self.not_array("number")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.not_array("null")
    }
}

impl State<'_, '_> {
    fn not_array<E: de::Error>(&mut self, kind: &str) -> Result<(), E> {
        self.not_array = Some(format!(
            "the catalog is a JSON {kind}, not an array of entries"
        ));
        Err(E::custom("not an array"))
    }
}

/// One entry, its known fields type-checked (09 §Registries, catalog: the Hermes shape, in
/// which any optional field may be `null` or absent, and `version` may be a YAML number).
pub(crate) fn entry_of(value: Value) -> Result<(Entry, Coordinates), String> {
    let Value::Object(mut fields) = value else {
        return Err(format!("it is a JSON {}, not an object", json_kind(&value)));
    };
    let name = match fields.remove("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(Value::String(_)) | Some(Value::Null) | None => return Err("it has no name".into()),
        Some(other) => return Err(format!("its name is a {}", json_kind(&other))),
    };
    let mut entry = Entry::new(name);
    let coordinates = entry.coordinates().map_err(|error| error.to_string())?;
    let field = |fields: &mut Map<String, Value>, key: &str| -> Result<Option<String>, String> {
        match fields.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(format!(
                "'{}': '{key}' is a {}, not a string",
                coordinates,
                json_kind(&other)
            )),
        }
    };
    let list = |fields: &mut Map<String, Value>, key: &str| -> Result<Vec<String>, String> {
        let wrong = |what: &Value| {
            format!(
                "'{}': '{key}' holds a {}, not only strings",
                coordinates,
                json_kind(what)
            )
        };
        match fields.remove(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text),
                    other => Err(wrong(&other)),
                })
                .collect(),
            Some(other) => Err(wrong(&other)),
        }
    };
    entry.description = field(&mut fields, "description")?.unwrap_or_default();
    entry.source = field(&mut fields, "source")?.unwrap_or_default();
    entry.category = field(&mut fields, "category")?.unwrap_or_default();
    entry.author = field(&mut fields, "author")?.unwrap_or_default();
    // A SKILL.md's `version: 1.0` reaches the Hermes catalog as a JSON number.
    entry.version = match fields.remove("version") {
        Some(Value::Number(number)) => number.to_string(),
        Some(other) => {
            fields.insert("version".to_owned(), other);
            field(&mut fields, "version")?.unwrap_or_default()
        }
        None => String::new(),
    };
    entry.license = field(&mut fields, "license")?.unwrap_or_default();
    entry.tags = list(&mut fields, "tags")?;
    entry.platforms = list(&mut fields, "platforms")?;
    entry.docs_path = field(&mut fields, "docsPath")?;
    entry.source_url = field(&mut fields, "sourceUrl")?;
    entry.install_identifier = field(&mut fields, "installIdentifier")?;
    Ok((entry, coordinates))
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_entries_than_the_cap_refuse_the_catalog() {
        let text = format!("[{}]", ["{\"name\": \"a\"}"; 11].join(","));
        assert_eq!(
            read_all(text.as_bytes(), 10).unwrap_err(),
            Refusal::TooManyEntries(10)
        );
        // Skipped entries count too: a catalog of junk is no smaller for being junk.
        let junk = format!("[{}]", ["1"; 11].join(","));
        assert_eq!(
            read_all(junk.as_bytes(), 10).unwrap_err(),
            Refusal::TooManyEntries(10)
        );
        assert!(read_all(text.as_bytes(), 11).is_ok());
    }

    #[test]
    fn entries_stream_to_the_sink_in_catalog_order_and_huge_ones_are_skipped() {
        let huge = "x".repeat(MAX_ENTRY_BYTES + 1);
        let text = serde_json::json!([
            {"name": "b"},
            {"name": "huge", "description": huge},
            {"name": "a"}
        ]);
        let mut seen = Vec::new();
        let summary = read(text.to_string().as_bytes(), 10, &mut |entry| {
            seen.push(entry.name);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, ["b", "a"]);
        assert_eq!(summary.count, 2);
        assert!(
            summary.skipped[0].contains("larger than"),
            "{:?}",
            summary.skipped
        );
        // A sink that fails stops the read with its message.
        let failed = read(text.to_string().as_bytes(), 10, &mut |_| {
            Err("disk full".into())
        });
        assert_eq!(failed.unwrap_err(), Refusal::Sink("disk full".into()));
    }

    #[test]
    fn the_hermes_shape_reads_with_nulls_numbers_and_display_names() {
        let text = serde_json::json!([{
            "name": "PDF.Tools",
            "description": "Reads PDFs.",
            "overview": "",
            "category": "productivity",
            "categoryLabel": "Productivity",
            "source": "official",
            "tags": ["pdf"],
            "platforms": [],
            "author": "Nous",
            "version": 1.0,
            "license": "MIT",
            "envVars": [],
            "commands": [],
            "docsPath": "",
            "installIdentifier": "official/productivity/pdf-tools",
            "installCmd": "hermes skills install official/productivity/pdf-tools",
            "identifier": null,
            "sourceUrl": null,
            "featured": 2,
            "fixedCategory": false
        }]);
        let (entries, skipped) = read_all(text.to_string().as_bytes(), 10).unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        let entry = &entries[0];
        assert_eq!(entry.name, "PDF.Tools");
        assert_eq!(entry.coordinates().unwrap().slug, "pdf-tools");
        assert_eq!(entry.version, "1.0");
        assert_eq!(entry.docs_path, None);
        assert_eq!(
            entry.install_identifier.as_deref(),
            Some("official/productivity/pdf-tools")
        );
    }
}
