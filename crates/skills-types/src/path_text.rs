//! Serde helpers that write paths as text.
//!
//! `PathBuf`'s own `Serialize` fails on a path that is not valid Unicode, which would turn one
//! odd file name into a broken JSON document for the whole listing. These helpers write such
//! paths lossily (U+FFFD for the undecodable bytes) instead, so machine output is always
//! complete. Use them with `#[serde(with = "skills_types::path_text")]`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serializer};

/// Writes a path as text, replacing undecodable bytes.
pub fn serialize<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// Reads a path from text.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
    String::deserialize(deserializer).map(PathBuf::from)
}

/// The same for `Option<PathBuf>`.
pub mod option {
    use super::*;

    /// Writes an optional path as text or `null`.
    pub fn serialize<S: Serializer>(
        path: &Option<PathBuf>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match path {
            Some(path) => super::serialize(path, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Reads an optional path.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<PathBuf>, D::Error> {
        Option::<String>::deserialize(deserializer).map(|text| text.map(PathBuf::from))
    }
}

/// The same for `Vec<PathBuf>`.
pub mod list {
    use super::*;
    use serde::ser::SerializeSeq as _;

    /// Writes paths as a list of texts.
    pub fn serialize<S: Serializer>(paths: &[PathBuf], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(paths.len()))?;
        for path in paths {
            seq.serialize_element(&path.to_string_lossy())?;
        }
        seq.end()
    }

    /// Reads a list of paths.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<PathBuf>, D::Error> {
        Vec::<String>::deserialize(deserializer)
            .map(|texts| texts.into_iter().map(PathBuf::from).collect())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;

    #[derive(serde::Serialize)]
    struct Holder {
        #[serde(with = "super")]
        path: PathBuf,
    }

    #[test]
    fn non_unicode_path_serializes_lossily() {
        let path = PathBuf::from(OsStr::from_bytes(b"/tmp/a\xffb"));
        let json = serde_json::to_string(&Holder { path }).unwrap();
        assert_eq!(json, "{\"path\":\"/tmp/a\u{fffd}b\"}");
    }
}
