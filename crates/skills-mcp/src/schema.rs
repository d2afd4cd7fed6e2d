//! Tool schemas in words every client knows: a `format` that JSON Schema itself does not
//! define is dropped from every tool's input and output schema before `tools/list` answers.
//!
//! Why: `schemars` names the width of a Rust number (`uint64`, `int32`, `double`, `uint`), and
//! a skill's `[[tools]]` may name any format it likes. Such a format is only an annotation, so
//! no validator checks it, yet clients that compile the output schemas warn about each one
//! they do not know on every `tools/list` (the TypeScript SDK's Ajv: "unknown format "uint64"
//! ignored"), and stricter hosts refuse the tool outright. Dropping it changes no
//! validation: a number keeps its `minimum`, a declared tool is still checked against the
//! schema its skill wrote. One pass over every tool at the one place tools are listed, so a
//! type or a declared tool added later is covered without anyone remembering it.

use serde_json::{Map, Value};

/// The formats JSON Schema defines (draft 2020-12, Validation §7.3, which holds every format
/// of draft-07 too). Anything else is not a format a client can be expected to know.
pub(crate) const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one schema (`items` may also be an array of them, as in draft-07).
const ONE_SUBSCHEMA: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "contains",
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "propertyNames",
    "contentSchema",
];

/// Keywords whose value is an array of schemas.
const SUBSCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to schemas (draft-07's `dependencies` may map a name to an
/// array of property names instead, which is not a schema and is left alone).
const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Drops every `format` of `schema` and its subschemas that is not in [`STANDARD_FORMATS`].
/// Only keyword positions are walked: a property named `format`, or a `default`, `const`,
/// `enum` or `examples` value holding one, is data and stays as it is.
pub(crate) fn keep_standard_formats(schema: &mut Map<String, Value>) {
    if schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| !STANDARD_FORMATS.contains(&format))
    {
        schema.remove("format");
    }
    for (keyword, value) in schema.iter_mut() {
        let keyword = keyword.as_str();
        if ONE_SUBSCHEMA.contains(&keyword)
            && let Value::Object(subschema) = value
        {
            keep_standard_formats(subschema);
        }
        if SUBSCHEMA_ARRAYS.contains(&keyword)
            && let Value::Array(subschemas) = value
        {
            for subschema in subschemas.iter_mut().filter_map(Value::as_object_mut) {
                keep_standard_formats(subschema);
            }
        }
        if SUBSCHEMA_MAPS.contains(&keyword)
            && let Value::Object(named) = value
        {
            for subschema in named.values_mut().filter_map(Value::as_object_mut) {
                keep_standard_formats(subschema);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn kept(schema: Value) -> Value {
        let Value::Object(mut schema) = schema else {
            panic!("a schema object")
        };
        keep_standard_formats(&mut schema);
        Value::Object(schema)
    }

    #[test]
    fn a_format_json_schema_does_not_define_is_dropped_wherever_a_schema_may_stand() {
        let wide = json!({ "type": "integer", "format": "uint64", "minimum": 0 });
        let narrowed = json!({ "type": "integer", "minimum": 0 });
        let schema = json!({
            "type": "object",
            "format": "int32",
            "properties": { "size": wide, "when": { "type": "string", "format": "date-time" } },
            "patternProperties": { "^x-": wide },
            "additionalProperties": wide,
            "items": [wide, { "type": "string", "format": "uuid" }],
            "prefixItems": [wide],
            "allOf": [wide], "anyOf": [wide], "oneOf": [wide],
            "not": wide, "if": wide, "then": wide, "else": wide, "contains": wide,
            "propertyNames": { "type": "string", "format": "slug" },
            "unevaluatedProperties": wide,
            "dependentSchemas": { "size": wide },
            "dependencies": { "size": ["when"], "other": wide },
            "$defs": { "Size": { "anyOf": [{ "$ref": "#/$defs/Wide" }, wide] }, "Wide": wide },
            "definitions": { "Score": { "type": "number", "format": "double" } },
        });
        let expected = json!({
            "type": "object",
            "properties": { "size": narrowed, "when": { "type": "string", "format": "date-time" } },
            "patternProperties": { "^x-": narrowed },
            "additionalProperties": narrowed,
            "items": [narrowed, { "type": "string", "format": "uuid" }],
            "prefixItems": [narrowed],
            "allOf": [narrowed], "anyOf": [narrowed], "oneOf": [narrowed],
            "not": narrowed, "if": narrowed, "then": narrowed, "else": narrowed, "contains": narrowed,
            "propertyNames": { "type": "string" },
            "unevaluatedProperties": narrowed,
            "dependentSchemas": { "size": narrowed },
            "dependencies": { "size": ["when"], "other": narrowed },
            "$defs": { "Size": { "anyOf": [{ "$ref": "#/$defs/Wide" }, narrowed] }, "Wide": narrowed },
            "definitions": { "Score": { "type": "number" } },
        });
        assert_eq!(kept(schema), expected);
    }

    #[test]
    fn data_named_format_is_left_alone() {
        let schema = json!({
            "type": "object",
            "properties": {
                "format": { "type": "string", "enum": ["uint64", "pdf"] },
                "options": {
                    "type": "object",
                    "default": { "format": "uint64" },
                    "const": { "format": "uint64" },
                    "examples": [{ "format": "uint64" }],
                },
            },
        });
        assert_eq!(kept(schema.clone()), schema);
    }

    #[test]
    fn every_standard_format_is_kept() {
        for format in STANDARD_FORMATS {
            let schema = json!({ "type": "string", "format": format });
            assert_eq!(kept(schema.clone()), schema, "{format}");
        }
    }
}
