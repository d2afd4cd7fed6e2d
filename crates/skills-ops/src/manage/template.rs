//! The scaffold of `skills new NAME --script LANG` (07 §Authoring): an entry script that
//! prints what the agent must see as one JSON object, a `skill.toml` naming it with one
//! input, and a self-test that runs it, so `skills test NAME` passes the moment the skill is
//! written. An author starts from something that works and changes it, instead of from a
//! blank file whose first run prints nothing an agent can use.
//!
//! Each script reads its input the way every run passes it (`SKILL_INPUT_<NAME>`), falls back
//! to the input's declared default, and writes nothing but its result to stdout; problems go
//! to stderr with a non-zero exit, which the runtime reports as a failed run.

use serde_json::{Map, Value, json};
use skills_types::run::{InlineLanguage, InputType, SelfTest};
use skills_types::skill::SkillInput;

/// The input a script skill is scaffolded with when the author names none.
const INPUT: &str = "name";
/// Its default: what the script greets when nothing is given.
const DEFAULT_VALUE: &str = "world";
/// The value the scaffolded self-test passes, and what it expects back.
const TEST_VALUE: &str = "skills test";

/// What a script skill adds to a new skill's folder and sidecar.
#[derive(Debug)]
pub(crate) struct Scaffold {
    /// The entry script, relative to the skill folder.
    pub(crate) entry: String,
    /// Its text.
    pub(crate) script: String,
    /// The inputs the sidecar declares.
    pub(crate) inputs: Vec<SkillInput>,
    /// The self-test the sidecar declares.
    pub(crate) test: SelfTest,
    /// The `## Instructions` section of the body.
    pub(crate) instructions: String,
}

/// The scaffold of a `language` script for skill `name`: the author's inputs when given (the
/// script reads the first), else one optional `name` input.
pub(crate) fn scaffold(name: &str, language: InlineLanguage, inputs: &[SkillInput]) -> Scaffold {
    let inputs = if inputs.is_empty() {
        let mut input = SkillInput::new(INPUT);
        input.description = "Who or what the result is for.".to_owned();
        input.default = Some(Value::String(DEFAULT_VALUE.to_owned()));
        vec![input]
    } else {
        inputs.to_vec()
    };
    let first = &inputs[0];
    let variable = format!(
        "SKILL_INPUT_{}",
        first.name.to_ascii_uppercase().replace('-', "_")
    );
    let fallback = first
        .default
        .as_ref()
        .map(|value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .unwrap_or_else(|| DEFAULT_VALUE.to_owned());
    let (file, script) = match language {
        InlineLanguage::Node => ("scripts/main.mjs", node(&variable, &fallback)),
        InlineLanguage::Python => ("scripts/main.py", python(&variable, &fallback)),
        InlineLanguage::Sh => ("scripts/main.sh", sh(&variable, &fallback)),
    };
    // The test gives the first input, and every other required one, a value of its type.
    let mut test_inputs = Map::new();
    for input in inputs
        .iter()
        .take(1)
        .chain(inputs.iter().skip(1).filter(|input| input.required))
    {
        test_inputs.insert(input.name.clone(), test_value(input.kind));
    }
    let expected = match &test_inputs[&first.name] {
        Value::String(text) => format!("Hello, {text}!"),
        Value::Number(number) => format!("Hello, {number}!"),
        Value::Bool(flag) => format!("Hello, {flag}!"),
        // A JSON value is printed inside a JSON string, quotes escaped: look for the key.
        _ => "\"greeting\"".to_owned(),
    };
    let mut test = SelfTest::named("prints-a-json-result");
    test.inputs = test_inputs;
    test.expect_stdout_contains = Some(expected);
    test.timeout_secs = Some(60);
    let instructions = format!(
        "## Instructions\n\n\
         1. Run the entry script with the value the task is about:\n   \
         `skills run {name} --input {input}=VALUE`.\n\
         2. It prints one JSON object: `ok` says whether it worked, `greeting` is the result.\n\
         3. (Replace the script with the real work; keep printing what the agent must see, and\n   \
         keep `skills test {name}` passing.)\n",
        input = first.name,
    );
    Scaffold {
        entry: file.to_owned(),
        script,
        inputs,
        test,
        instructions,
    }
}

/// A value of `kind` for the scaffolded self-test.
fn test_value(kind: InputType) -> Value {
    match kind {
        InputType::Number => json!(42),
        InputType::Boolean => json!(true),
        InputType::Json => json!({ "value": TEST_VALUE }),
        InputType::String => json!(TEST_VALUE),
    }
}

fn node(variable: &str, fallback: &str) -> String {
    format!(
        "// The skill's entry script: everything it prints to stdout is what the agent sees.\n\
         const value = process.env.{variable} ?? {fallback};\n\
         const result = {{ ok: true, greeting: `Hello, ${{value}}!` }};\n\
         process.stdout.write(JSON.stringify(result) + \"\\n\");\n",
        fallback = json!(fallback),
    )
}

fn python(variable: &str, fallback: &str) -> String {
    format!(
        "\"\"\"The skill's entry script: everything it prints to stdout is what the agent sees.\"\"\"\n\
         import json\n\
         import os\n\
         \n\
         value = os.environ.get({variable}, {fallback})\n\
         print(json.dumps({{\"ok\": True, \"greeting\": f\"Hello, {{value}}!\"}}))\n",
        variable = json!(variable),
        fallback = json!(fallback),
    )
}

fn sh(variable: &str, fallback: &str) -> String {
    // JSON-escape the value by hand: backslashes and quotes escaped, control characters
    // dropped, so any input still prints one valid JSON object.
    format!(
        "#!/bin/sh\n\
         # The skill's entry script: everything it prints to stdout is what the agent sees.\n\
         set -eu\n\
         value=\"${{{variable}:-{fallback}}}\"\n\
         escaped=$(printf '%s' \"$value\" | tr -d '\\000-\\037' | sed -e 's/\\\\/\\\\\\\\/g' -e 's/\"/\\\\\"/g')\n\
         printf '{{\"ok\": true, \"greeting\": \"Hello, %s!\"}}\\n' \"$escaped\"\n",
        fallback = fallback.replace(['\'', '"', '\\', '$', '`', '}'], ""),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_reads_the_first_input() {
        for language in [
            InlineLanguage::Node,
            InlineLanguage::Python,
            InlineLanguage::Sh,
        ] {
            let scaffold = scaffold("demo", language, &[]);
            assert!(scaffold.script.contains("SKILL_INPUT_NAME"), "{language:?}");
            assert_eq!(scaffold.inputs.len(), 1);
            assert_eq!(
                scaffold.test.expect_stdout_contains.as_deref(),
                Some("Hello, skills test!")
            );
            assert!(scaffold.instructions.contains("--input name=VALUE"));
        }
    }

    #[test]
    fn an_authors_inputs_are_kept_and_every_required_one_is_tested() {
        let mut first = SkillInput::new("file-path");
        first.required = true;
        let mut count = SkillInput::new("count");
        count.required = true;
        count.kind = InputType::Number;
        let optional = SkillInput::new("note");
        let given = [first, count, optional];
        let scaffold = scaffold("demo", InlineLanguage::Python, &given);
        assert_eq!(scaffold.inputs, given);
        assert!(scaffold.script.contains("SKILL_INPUT_FILE_PATH"));
        assert_eq!(scaffold.test.inputs["file-path"], json!("skills test"));
        assert_eq!(scaffold.test.inputs["count"], json!(42));
        assert!(!scaffold.test.inputs.contains_key("note"));
    }
}
