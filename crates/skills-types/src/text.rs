//! [`Text`]: a string held once and shared by every record that shows it.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An immutable string that clones by pointer: a skill's description is both the catalog
/// record's and its frontmatter's, and at 10,000 skills a second copy of each is megabytes
/// of a listing's peak (issue 32 item 8). It reads as a `str` (it dereferences to one),
/// compares with `str` and `String`, and serializes, deserializes and describes itself in a
/// JSON schema exactly as a `String` does.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<str>);

impl Text {
    /// The text as a string slice.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, formatter)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, formatter)
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Self(Arc::from(text))
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Self(Arc::from(text))
    }
}

impl From<&String> for Text {
    fn from(text: &String) -> Self {
        Self(Arc::from(text.as_str()))
    }
}

impl From<Text> for String {
    fn from(text: Text) -> Self {
        text.0.as_ref().to_owned()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

/// The schema of a `String`: a consumer sees no difference.
impl schemars::JsonSchema for Text {
    fn inline_schema() -> bool {
        String::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        String::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        String::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    #[test]
    fn it_reads_compares_and_serializes_as_a_string() {
        let text = Text::from("Reads PDFs.");
        let copy = text.clone();
        assert!(
            std::ptr::eq(text.as_str(), copy.as_str()),
            "a clone copied the bytes"
        );
        assert_eq!(text, "Reads PDFs.");
        assert_eq!(text, "Reads PDFs.".to_owned());
        assert_eq!("Reads PDFs.", text);
        assert_eq!(text.len(), 11);
        assert_eq!(format!("{text} {text:?}"), "Reads PDFs. \"Reads PDFs.\"");
        assert_eq!(
            serde_json::to_string(&text).unwrap(),
            serde_json::to_string("Reads PDFs.").unwrap()
        );
        let back: Text = serde_json::from_str("\"Reads \\u00e9.\"").unwrap();
        assert_eq!(back, "Reads é.");
        assert_eq!(
            serde_json::to_value(schemars::schema_for!(Text)).unwrap(),
            serde_json::to_value(schemars::schema_for!(String)).unwrap()
        );
    }
}
