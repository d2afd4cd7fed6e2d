//! The inputs of a run (07 §Inputs): checked against what the skill declares, every problem
//! listed at once, then handed to the script as `SKILL_INPUT_<NAME>` and `SKILL_INPUTS`.
//!
//! Everything that could make the environment wrong is refused here, in [`check`], so that
//! [`CheckedInputs::env`] cannot fail: a value holding NUL (no environment variable can hold
//! one; passing it cut would hand the script a different value than was given), and two
//! inputs with values whose names map to one variable (`a-b` and `a_b` are both
//! `SKILL_INPUT_A_B`; whichever was set last would silently win). The second is refused only
//! when both have a value, since only then is the variable ambiguous; the message says to
//! rename one in `skill.toml`. `render_task` checks inputs with the same function, so a task
//! and a run accept exactly the same values.

use serde_json::{Map, Value};
use skills_types::Error;
use skills_types::run::{MAX_INPUT_BYTES, MAX_INPUTS_BYTES};
use skills_types::skill::SkillInput;

/// The variable that holds every input as one JSON object.
pub(crate) const ALL_INPUTS_VAR: &str = "SKILL_INPUTS";
/// The prefix of each input's own variable.
pub(crate) const INPUT_VAR_PREFIX: &str = "SKILL_INPUT_";

/// Input values that passed every check, in the order the skill declares them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CheckedInputs {
    values: Vec<(String, Value)>,
}

impl CheckedInputs {
    /// The declared names of the inputs given (what a log may record).
    pub(crate) fn names(&self) -> Vec<String> {
        self.values.iter().map(|(name, _)| name.clone()).collect()
    }

    /// The values, by declared name, in declaration order.
    pub(crate) fn values(&self) -> &[(String, Value)] {
        &self.values
    }

    /// The environment a script gets: one `SKILL_INPUT_<NAME>` per input (strings as they
    /// are, other values as compact JSON) and `SKILL_INPUTS`, every input in one JSON object.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = self
            .values
            .iter()
            .map(|(name, value)| (env_name(name), text_of(value)))
            .collect();
        let all: Map<String, Value> = self.values.iter().cloned().collect();
        env.push((ALL_INPUTS_VAR.to_owned(), Value::Object(all).to_string()));
        env
    }
}

/// `SKILL_INPUT_` and the name uppercased, `-` and every other character outside
/// `[A-Z0-9_]` turned into `_`.
pub(crate) fn env_name(name: &str) -> String {
    let mut variable = String::with_capacity(INPUT_VAR_PREFIX.len() + name.len());
    variable.push_str(INPUT_VAR_PREFIX);
    variable.extend(name.chars().map(|character| {
        let upper = character.to_ascii_uppercase();
        if upper.is_ascii_uppercase() || upper.is_ascii_digit() || upper == '_' {
            upper
        } else {
            '_'
        }
    }));
    variable
}

/// A value as a script sees it: a string as it is, anything else as compact JSON.
pub(crate) fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// What a value is, in words, for a message.
fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks `given` against `declared`: a missing (or `null`) required input, an unknown
/// input, a value of the wrong type or over the size bounds is an `invalid_input` error that
/// lists every problem. Defaults fill what is not given. Names are matched ignoring case and
/// the values are kept under the declared names.
pub(crate) fn check(
    declared: &[SkillInput],
    given: &Map<String, Value>,
) -> Result<CheckedInputs, Error> {
    let mut problems = Vec::new();
    // The value given for each declared input, by position in `declared`.
    let mut chosen: Vec<Option<&Value>> = vec![None; declared.len()];
    for (name, value) in given {
        let lowered = name.to_lowercase();
        let Some(index) = declared
            .iter()
            .position(|input| input.name.to_lowercase() == lowered)
        else {
            problems.push(unknown(name, declared));
            continue;
        };
        let Some(slot) = chosen.get_mut(index) else {
            continue;
        };
        if slot.is_some() {
            problems.push(format!(
                "the input '{}' is given more than once (names are compared ignoring case)",
                declared[index].name
            ));
            continue;
        }
        // `null` is no value: a required input given `null` is missing, an optional one
        // takes its default.
        if !value.is_null() {
            *slot = Some(value);
        }
    }

    let mut missing = Vec::new();
    let mut values = Vec::new();
    for (input, given) in declared.iter().zip(chosen) {
        let value = match (given, &input.default) {
            (Some(value), _) => value,
            (None, Some(default)) => default,
            (None, None) => {
                if input.required {
                    missing.push(format!("'{}'", input.name));
                }
                continue;
            }
        };
        if !input.kind.accepts(value) {
            problems.push(format!(
                "the input '{}' must be {} value, and {} was given",
                input.name,
                article(input.kind.as_str()),
                type_of(value)
            ));
            continue;
        }
        values.push((input.name.clone(), value.clone()));
    }
    match missing.as_slice() {
        [] => {}
        [one] => problems.insert(0, format!("the required input {one} is missing")),
        several => problems.insert(
            0,
            format!("the required inputs {} are missing", several.join(", ")),
        ),
    }

    for (name, value) in &values {
        let text = text_of(value);
        if text.len() > MAX_INPUT_BYTES {
            problems.push(format!(
                "the input '{name}' is {} bytes long; at most {MAX_INPUT_BYTES} are allowed",
                text.len()
            ));
        }
        if text.contains('\0') {
            problems.push(format!(
                "the input '{name}' holds a NUL character, which no environment variable can carry"
            ));
        }
    }
    // Measured as what the child gets: the JSON object of every value, escapes included (a
    // string of control characters grows sixfold), since that one variable must fit.
    let total = Value::Object(values.iter().cloned().collect())
        .to_string()
        .len();
    if total > MAX_INPUTS_BYTES {
        problems.push(format!(
            "the inputs are {total} bytes long together (as the JSON object in {ALL_INPUTS_VAR}); \
             at most {MAX_INPUTS_BYTES} are allowed, since Linux refuses an environment variable over 128 KiB"
        ));
    }
    for (index, (name, _)) in values.iter().enumerate() {
        let variable = env_name(name);
        if let Some((other, _)) = values[..index]
            .iter()
            .find(|(other, _)| env_name(other) == variable)
        {
            problems.push(format!(
                "the inputs '{other}' and '{name}' would both be passed as {variable}; rename one of them in skill.toml"
            ));
        }
    }

    if problems.is_empty() {
        Ok(CheckedInputs { values })
    } else {
        Err(Error::InvalidInput(format!(
            "the inputs are not valid: {}",
            problems.join("; ")
        )))
    }
}

fn unknown(name: &str, declared: &[SkillInput]) -> String {
    let known: Vec<&str> = declared.iter().map(|input| input.name.as_str()).collect();
    let declares = if known.is_empty() {
        "it declares no inputs".to_owned()
    } else {
        format!("it declares {}", known.join(", "))
    };
    format!(
        "'{}' is not an input of this skill ({declares})",
        name.escape_debug()
    )
}

fn article(kind: &str) -> String {
    match kind {
        "json" => "a JSON".to_owned(),
        other => format!("a {other}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use skills_types::run::InputType;

    use super::*;

    fn input(name: &str, kind: InputType, required: bool, default: Option<Value>) -> SkillInput {
        let mut input = SkillInput::new(name);
        input.kind = kind;
        input.required = required;
        input.default = default;
        input
    }

    fn given(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn message(result: Result<CheckedInputs, Error>) -> String {
        match result {
            Err(Error::InvalidInput(message)) => message,
            other => panic!("expected invalid_input, got {other:?}"),
        }
    }

    fn declared() -> Vec<SkillInput> {
        vec![
            input("version", InputType::String, true, None),
            input("count", InputType::Number, false, Some(json!(3))),
            input("dry-run", InputType::Boolean, false, None),
            input("options", InputType::Json, false, None),
            input("notes", InputType::String, true, None),
        ]
    }

    #[test]
    fn values_are_kept_under_declared_names_in_declared_order_with_defaults() {
        let checked = check(
            &declared(),
            &given(json!({"NOTES": "n", "Version": "1.2", "options": {"a": [1, null]}, "dry-run": null})),
        )
        .unwrap();
        assert_eq!(
            checked.values(),
            [
                ("version".to_owned(), json!("1.2")),
                ("count".to_owned(), json!(3)),
                ("options".to_owned(), json!({"a": [1, null]})),
                ("notes".to_owned(), json!("n")),
            ]
        );
        assert_eq!(checked.names(), ["version", "count", "options", "notes"]);
    }

    #[test]
    fn every_problem_is_listed_in_one_message() {
        let text = message(check(
            &declared(),
            &given(json!({"version": null, "count": "3", "dry-run": "yes", "colour": "red"})),
        ));
        assert!(text.starts_with("the inputs are not valid: "), "{text}");
        assert!(
            text.contains("the required inputs 'version', 'notes' are missing"),
            "{text}"
        );
        assert!(text.contains("'colour' is not an input of this skill (it declares version, count, dry-run, options, notes)"), "{text}");
        assert!(
            text.contains("the input 'count' must be a number value, and a string was given"),
            "{text}"
        );
        assert!(
            text.contains("the input 'dry-run' must be a boolean value, and a string was given"),
            "{text}"
        );
        assert_eq!(text.matches("; ").count(), 3, "{text}");
    }

    #[test]
    fn strings_must_be_json_strings_and_json_takes_anything_but_null() {
        let declared = [
            input("s", InputType::String, true, None),
            input("j", InputType::Json, true, None),
        ];
        let text = message(check(&declared, &given(json!({"s": 5, "j": null}))));
        assert!(text.contains("the input 's' must be a string value, and a number was given"));
        assert!(text.contains("the required input 'j' is missing"));
        for value in [json!(1), json!("x"), json!([]), json!({}), json!(false)] {
            assert!(check(&declared, &given(json!({"s": "t", "j": value}))).is_ok());
        }
    }

    #[test]
    fn a_name_given_twice_in_two_cases_is_refused() {
        let text = message(check(
            &declared(),
            &given(json!({"version": "1", "VERSION": "2", "notes": "n"})),
        ));
        assert!(text.contains("'version' is given more than once"), "{text}");
    }

    #[test]
    fn unknown_inputs_to_a_skill_without_inputs() {
        let text = message(check(&[], &given(json!({"x\n": 1}))));
        assert!(text.contains("'x\\n' is not an input of this skill (it declares no inputs)"));
        assert_eq!(check(&[], &Map::new()).unwrap(), CheckedInputs::default());
    }

    #[test]
    fn sizes_are_bounded_each_and_together() {
        let declared: Vec<SkillInput> = (0..5)
            .map(|index| input(&format!("v{index}"), InputType::String, false, None))
            .collect();
        let at_limit = "x".repeat(MAX_INPUT_BYTES);
        assert!(check(&declared[..1], &given(json!({"v0": at_limit}))).is_ok());
        let text = message(check(
            &declared[..1],
            &given(json!({"v0": format!("{at_limit}x")})),
        ));
        assert!(text.contains(&format!(
            "the input 'v0' is {} bytes long",
            MAX_INPUT_BYTES + 1
        )));
        // The total is the JSON object the child gets: exactly at the limit passes, one
        // byte more does not. `{"v0":"…","v1":"…"}` is 17 bytes of syntax around the values.
        let first = MAX_INPUT_BYTES;
        let second = MAX_INPUTS_BYTES - first - 17;
        let mut values = Map::new();
        values.insert("v0".to_owned(), json!("x".repeat(first)));
        values.insert("v1".to_owned(), json!("x".repeat(second)));
        assert_eq!(
            Value::Object(values.clone()).to_string().len(),
            MAX_INPUTS_BYTES
        );
        assert!(check(&declared, &values).is_ok());
        values.insert("v1".to_owned(), json!("x".repeat(second + 1)));
        let text = message(check(&declared, &values));
        assert!(
            text.contains(&format!("{} bytes long together", MAX_INPUTS_BYTES + 1)),
            "{text}"
        );
        // Escapes count: control characters grow sixfold in JSON.
        let mut escaped = Map::new();
        escaped.insert(
            "v0".to_owned(),
            json!("\u{1}".repeat(MAX_INPUTS_BYTES / 6 + 1)),
        );
        assert!(message(check(&declared[..1], &escaped)).contains("bytes long together"));
        // A JSON value counts as its compact text.
        let json_input = [input("j", InputType::Json, false, None)];
        let big = Value::Array(vec![json!(1); MAX_INPUT_BYTES / 2]);
        assert!(message(check(&json_input, &given(json!({"j": big})))).contains("bytes long"));
    }

    #[test]
    fn a_nul_is_refused_but_an_escaped_one_in_json_is_text() {
        let declared = [
            input("s", InputType::String, false, None),
            input("j", InputType::Json, false, None),
        ];
        let text = message(check(&declared, &given(json!({"s": "a\u{0}b"}))));
        assert!(
            text.contains("the input 's' holds a NUL character"),
            "{text}"
        );
        let checked = check(&declared, &given(json!({"j": ["a\u{0}b"]}))).unwrap();
        assert_eq!(
            checked.env()[0],
            ("SKILL_INPUT_J".to_owned(), r#"["a\u0000b"]"#.to_owned())
        );
    }

    #[test]
    fn environment_names_and_values() {
        assert_eq!(env_name("dry-run"), "SKILL_INPUT_DRY_RUN");
        assert_eq!(env_name("Out.File"), "SKILL_INPUT_OUT_FILE");
        assert_eq!(env_name("größe_2"), "SKILL_INPUT_GR__E_2");
        let checked = check(
            &declared(),
            &given(json!({"version": "1.2 $(x)", "notes": "two\nlines", "dry-run": true, "options": {"b": [1, "2"]}})),
        )
        .unwrap();
        assert_eq!(
            checked.env()[..5],
            [
                ("SKILL_INPUT_VERSION".to_owned(), "1.2 $(x)".to_owned()),
                ("SKILL_INPUT_COUNT".to_owned(), "3".to_owned()),
                ("SKILL_INPUT_DRY_RUN".to_owned(), "true".to_owned()),
                (
                    "SKILL_INPUT_OPTIONS".to_owned(),
                    r#"{"b":[1,"2"]}"#.to_owned()
                ),
                ("SKILL_INPUT_NOTES".to_owned(), "two\nlines".to_owned()),
            ]
        );
        let (name, all) = checked.env().pop().unwrap();
        assert_eq!(name, "SKILL_INPUTS");
        assert!(
            !all.contains(": ") && !all.contains('\n'),
            "not compact: {all}"
        );
        assert_eq!(
            serde_json::from_str::<Value>(&all).unwrap(),
            json!({"version": "1.2 $(x)", "count": 3, "dry-run": true, "options": {"b": [1, "2"]}, "notes": "two\nlines"})
        );
    }

    #[test]
    fn two_names_for_one_variable_are_refused_only_when_both_have_values() {
        let declared = [
            input("a-b", InputType::String, false, None),
            input("a_b", InputType::String, false, None),
        ];
        assert_eq!(
            check(&declared, &given(json!({"a_b": "x"}))).unwrap().env()[0],
            ("SKILL_INPUT_A_B".to_owned(), "x".to_owned())
        );
        let text = message(check(&declared, &given(json!({"a_b": "x", "a-b": "y"}))));
        assert!(
            text.contains("the inputs 'a-b' and 'a_b' would both be passed as SKILL_INPUT_A_B"),
            "{text}"
        );
    }
}
