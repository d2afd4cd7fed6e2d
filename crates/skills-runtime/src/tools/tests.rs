//! Declared tools end to end inside the library: skills written into a temporary home, real
//! `python3` and `sh` children, and what the runs folder, the events and the results show.

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skills_types::config::{Permission, PermissionRule};
use skills_types::event::{DomainEvent, EventSink};
use skills_types::run::RunHooks;
use skills_types::tool::{ToolCall, ToolContent};

use crate::tests::{Fixture, fixture};

/// A tool that echoes what it got: stdin, `SKILL_TOOL_ARGS`, its name and the Markdown flag.
const ECHO: &str = r#"import json, os, sys
stdin = json.load(sys.stdin)
env = json.loads(os.environ["SKILL_TOOL_ARGS"])
print(json.dumps({
    "stdin": stdin,
    "env": env,
    "name": os.environ["SKILL_TOOL_NAME"],
    "markdown": os.environ.get("SKILL_PREFER_MARKDOWN"),
}))
"#;

const SIDECAR: &str = r#"
[[tools]]
name = "echo"
description = "Echoes its arguments."
script = "scripts/echo.py"
category = "testing"
supports_markdown = true
parameters = { type = "object", properties = { text = { type = "string" }, count = { type = "integer", minimum = 1 } }, required = ["text"], additionalProperties = false }

[[tools]]
name = "fail"
description = "Fails."
script = "scripts/fail.sh"

[[tools]]
name = "bad name"
script = "scripts/fail.sh"
"#;

impl Fixture {
    /// The skill `demo` with the tools of [`SIDECAR`].
    fn demo(&self) -> PathBuf {
        self.skill(
            "demo",
            &[
                ("skill.toml", SIDECAR),
                ("scripts/echo.py", ECHO),
                ("scripts/fail.sh", "echo partial\necho broken >&2\nexit 3\n"),
            ],
        )
    }

    fn call(
        &self,
        call: &ToolCall,
    ) -> Result<skills_types::tool::ToolExecution, skills_types::Error> {
        self.runtime
            .execute_tool(&self.config, call, &RunHooks::default())
    }
}

fn python_missing() -> bool {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
}

#[derive(Default)]
struct Recorder(Mutex<Vec<DomainEvent>>);

impl EventSink for Recorder {
    fn publish(&self, event: DomainEvent) {
        self.0.lock().unwrap().push(event);
    }
}

#[test]
fn every_valid_tool_is_listed_sorted_with_its_fields() {
    let mut fx = fixture();
    fx.demo();
    fx.skill(
        "alpha",
        &[(
            "skill.toml",
            "[[tools]]\nname = \"zed\"\nscript = \"z.sh\"\n",
        )],
    );
    fx.skill("plain", &[]);
    fx.config.permissions = vec![PermissionRule {
        pattern: "demo".into(),
        permission: Permission::Ask,
    }];
    let tools = fx.runtime.list_tools(&fx.config).unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    // `bad name` would be `demo__bad name`, which model APIs refuse: not offered.
    assert_eq!(names, ["alpha__zed", "demo__echo", "demo__fail"]);
    let echo = &tools[1];
    assert_eq!(echo.skill, "demo");
    assert_eq!(echo.tool, "echo");
    assert_eq!(echo.description, "Echoes its arguments.");
    assert_eq!(echo.category, "testing");
    assert_eq!(echo.permission_level, Permission::Ask);
    assert_eq!(echo.scope, skills_types::SkillScope::User);
    assert!(echo.supports_markdown);
    assert_eq!(echo.parameters["required"], json!(["text"]));
    let zed = &tools[0];
    assert_eq!(zed.category, "skill");
    assert!(!zed.supports_markdown);
    assert_eq!(zed.parameters, json!({"type": "object"}));
}

#[test]
fn denied_and_disabled_skills_offer_no_tools() {
    let mut fx = fixture();
    fx.demo();
    fx.config.disabled = vec!["demo".into()];
    assert!(fx.runtime.list_tools(&fx.config).unwrap().is_empty());
    let error = fx
        .call(&ToolCall::new("demo__echo", json!({"text": "x"})))
        .unwrap_err();
    assert_eq!(error.kind(), "skill_disabled", "{error}");
    fx.config.disabled.clear();
    fx.config.permissions = vec![PermissionRule {
        pattern: "de*".into(),
        permission: Permission::Deny,
    }];
    assert!(fx.runtime.list_tools(&fx.config).unwrap().is_empty());
    let error = fx
        .call(&ToolCall::new("demo__echo", json!({"text": "x"})))
        .unwrap_err();
    assert_eq!(error.kind(), "denied", "{error}");
    assert!(fx.run_files().is_empty());
}

#[test]
fn a_call_gets_its_arguments_on_stdin_and_in_the_environment() {
    if python_missing() {
        eprintln!("python3 is not installed; the tool call is checked by the sh test");
        return;
    }
    let fx = fixture();
    fx.demo();
    let recorder = Arc::new(Recorder::default());
    let hooks = RunHooks {
        notices: None,
        events: Some(recorder.clone()),
    };
    let mut call = ToolCall::new(
        "demo__echo",
        json!({"text": "héllo \"quoted\"", "count": 2}),
    );
    call.session_id = Some("session-7".into());
    let execution = fx.runtime.execute_tool(&fx.config, &call, &hooks).unwrap();
    assert_eq!(execution.tool_name, "demo__echo");
    let result = &execution.result;
    assert!(!result.is_error, "{result:?}");
    let expected = json!({
        "stdin": {"text": "héllo \"quoted\"", "count": 2},
        "env": {"text": "héllo \"quoted\"", "count": 2},
        "name": "demo__echo",
        "markdown": null,
    });
    assert_eq!(result.structured(), Some(&expected));
    let ToolContent::Text { text } = &result.content[0] else {
        panic!("the first part is the text: {result:?}");
    };
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), expected);
    assert_eq!(result.markdown_formatted, None);

    // The run is an ordinary run, logged under its id and named as the tool.
    assert_eq!(fx.run_files().len(), 1);
    let runs = fx.runtime.recent_runs(&fx.config, 5).unwrap();
    assert_eq!(runs[0].run_id, execution.run_id);
    assert_eq!(runs[0].target, "tool demo__echo: script scripts/echo.py");

    let events = recorder.0.lock().unwrap();
    let tool_events: Vec<&DomainEvent> = events
        .iter()
        .filter(|event| event.slug.starts_with("tool_"))
        .collect();
    let slugs: Vec<&str> = tool_events
        .iter()
        .map(|event| event.slug.as_str())
        .collect();
    assert_eq!(slugs, ["tool_started", "tool_finished"]);
    for event in &tool_events {
        assert_eq!(event.payload["session_id"], "session-7");
        assert_eq!(event.payload["tool_name"], "demo__echo");
        assert_eq!(event.payload["skill"], "demo");
        assert_eq!(event.payload["run_id"], execution.run_id.as_str());
    }
    assert_eq!(tool_events[1].payload["is_error"], false);
    assert_eq!(tool_events[1].payload["elapsed_ms"], execution.elapsed_ms);
    // The run's end is published before the tool's (its start is published by the run's
    // thread, so it may come on either side of `tool_started`).
    let all: Vec<&str> = events.iter().map(|event| event.slug.as_str()).collect();
    assert_eq!(all.len(), 4, "{all:?}");
    assert_eq!(&all[2..], ["run_finished", "tool_finished"]);
}

#[test]
fn markdown_is_asked_for_only_when_the_tool_supports_it() {
    let fx = fixture();
    fx.skill(
        "md",
        &[
            (
                "skill.toml",
                "[[tools]]\nname = \"rich\"\nscript = \"t.sh\"\nsupports_markdown = true\n\n\
                 [[tools]]\nname = \"plain\"\nscript = \"t.sh\"\n",
            ),
            (
                "t.sh",
                "if [ \"$SKILL_PREFER_MARKDOWN\" = 1 ]; then echo '# rich'; else echo plain; fi\n",
            ),
        ],
    );
    let mut call = ToolCall::new("md__rich", json!({}));
    call.prefer_markdown = true;
    let rich = fx.call(&call).unwrap().result;
    assert_eq!(rich.markdown_formatted.as_deref(), Some("# rich\n"));
    assert_eq!(rich.output_for_llm(), "# rich\n");
    // Not JSON: text only.
    assert_eq!(rich.structured(), None);
    assert_eq!(rich.content.len(), 1);

    call.tool_name = "md__plain".into();
    let plain = fx.call(&call).unwrap().result;
    assert_eq!(plain.markdown_formatted, None);
    assert_eq!(plain.output_for_llm(), "plain\n");
}

#[test]
fn a_failing_script_is_an_error_result_with_its_stderr_and_ending() {
    let fx = fixture();
    fx.demo();
    let execution = fx.call(&ToolCall::new("demo__fail", json!({}))).unwrap();
    let result = execution.result;
    assert!(result.is_error);
    assert_eq!(
        result.output_for_llm(),
        "partial\n[stderr]\nbroken\n[the script exited with status 3]"
    );
}

#[test]
fn arguments_that_break_the_schema_are_refused_before_anything_runs() {
    let fx = fixture();
    fx.demo();
    let error = fx
        .call(&ToolCall::new(
            "demo__echo",
            json!({"count": 0, "extra": true}),
        ))
        .unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    let message = error.to_string();
    assert!(message.contains("nothing was run"), "{message}");
    assert!(message.contains("3 problems"), "{message}");
    assert!(
        message.contains("\"text\""),
        "the missing property: {message}"
    );
    assert!(
        message.contains("/count:"),
        "where the bad value is: {message}"
    );
    assert!(
        message.contains("extra"),
        "the unexpected property: {message}"
    );
    let error = fx
        .call(&ToolCall::new("demo__echo", json!(["not", "an", "object"])))
        .unwrap_err();
    assert!(error.to_string().contains("the arguments:"), "{error}");
    assert!(fx.run_files().is_empty(), "nothing was logged");
}

#[test]
fn arguments_up_to_the_bound_run_and_over_it_are_refused() {
    let fx = fixture();
    fx.skill(
        "big",
        &[
            ("skill.toml", "[[tools]]\nname = \"t\"\nscript = \"t.sh\"\n"),
            // The length of the variable, then of stdin: both carry the whole arguments.
            (
                "t.sh",
                "printf '%s ' \"${#SKILL_TOOL_ARGS}\"; wc -c | tr -d ' '\n",
            ),
        ],
    );
    let bound = skills_types::tool::MAX_TOOL_ARGS_BYTES;
    // `{"text":"…"}` is 11 bytes around the text.
    let fits = json!({"text": "x".repeat(bound - 11)});
    assert_eq!(fits.to_string().len(), bound);
    let execution = fx.call(&ToolCall::new("big__t", fits)).unwrap();
    assert!(!execution.result.is_error, "{:?}", execution.result);
    assert_eq!(
        execution.result.output_for_llm(),
        format!("{bound} {}\n", bound + 1)
    );

    let over = json!({"text": "x".repeat(bound - 10)});
    let error = fx.call(&ToolCall::new("big__t", over)).unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    assert!(error.to_string().contains("127 KiB"), "{error}");
    assert_eq!(fx.run_files().len(), 1, "only the call that fits ran");
}

#[test]
fn many_violations_are_counted_and_each_message_is_short() {
    let fx = fixture();
    fx.skill(
        "many",
        &[
            (
                "skill.toml",
                "[[tools]]\nname = \"t\"\nscript = \"t.sh\"\nparameters = { type = \"array\", items = { type = \"integer\" } }\n",
            ),
            ("t.sh", "echo ran\n"),
        ],
    );
    let long = "y".repeat(1_000);
    let items: Vec<Value> = (0..80).map(|_| Value::String(long.clone())).collect();
    let error = fx
        .call(&ToolCall::new("many__t", Value::Array(items)))
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("80 problems"), "{message:.300}");
    assert!(
        message.ends_with("; and 30 more"),
        "{}",
        &message[message.len() - 100..]
    );
    assert!(message.len() < 50 * 260, "{} bytes", message.len());
}

#[test]
fn a_schema_that_cannot_be_compiled_is_a_clear_error() {
    let fx = fixture();
    fx.skill(
        "broken",
        &[
            (
                "skill.toml",
                "[[tools]]\nname = \"t\"\nscript = \"t.sh\"\nparameters = { type = 12 }\n",
            ),
            ("t.sh", "touch ran\n"),
        ],
    );
    let error = fx.call(&ToolCall::new("broken__t", json!({}))).unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    let message = error.to_string();
    assert!(message.contains("cannot be used"), "{message}");
    assert!(message.contains("skill.toml"), "{message}");
    assert!(fx.run_files().is_empty());
}

/// A `$ref` naming a URL must never be fetched: the listener the test opened sees no
/// connection, and the call is refused.
#[test]
fn a_remote_reference_is_refused_and_never_fetched() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let fx = fixture();
    let sidecar = format!(
        "[[tools]]\nname = \"t\"\nscript = \"t.sh\"\nparameters = {{ type = \"object\", properties = {{ x = {{ \"$ref\" = \"http://127.0.0.1:{port}/x\" }} }} }}\n\n\
         [[tools]]\nname = \"f\"\nscript = \"t.sh\"\nparameters = {{ \"$ref\" = \"file:///etc/passwd\" }}\n"
    );
    fx.skill(
        "remote",
        &[("skill.toml", &sidecar), ("t.sh", "touch ran\n")],
    );
    for name in ["remote__t", "remote__f"] {
        let error = fx.call(&ToolCall::new(name, json!({"x": 1}))).unwrap_err();
        assert_eq!(error.kind(), "invalid_input", "{error}");
        assert!(error.to_string().contains("cannot be used"), "{error}");
    }
    match listener.accept() {
        Err(error) if error.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the schema's $ref reached the listener: {other:?}"),
    }
    assert!(fx.run_files().is_empty());
}

#[test]
fn an_unknown_tool_is_not_found_with_the_nearest_name() {
    let fx = fixture();
    fx.demo();
    let error = fx
        .call(&ToolCall::new("demo__ecoh", json!({})))
        .unwrap_err();
    assert_eq!(error.kind(), "not_found");
    assert!(
        error.to_string().contains("did you mean 'demo__echo'"),
        "{error}"
    );
    let far = fx.call(&ToolCall::new("nothing", json!({}))).unwrap_err();
    assert_eq!(far.kind(), "not_found");
    assert!(far.to_string().contains("skills tools"), "{far}");
    // A name no model API accepts is never offered; it is refused without a search.
    let long = "a".repeat(10_000);
    let error = fx.call(&ToolCall::new(&long, json!({}))).unwrap_err();
    assert_eq!(error.kind(), "not_found");
    let error = fx
        .call(&ToolCall::new("demo__bad name", json!({})))
        .unwrap_err();
    assert_eq!(error.kind(), "not_found");
}

#[test]
fn a_call_gets_the_checks_of_a_run() {
    let mut fx = fixture();
    let dir = fx.demo();
    fx.config.permissions = vec![PermissionRule {
        pattern: "demo".into(),
        permission: Permission::Ask,
    }];
    let error = fx
        .call(&ToolCall::new("demo__fail", json!({})))
        .unwrap_err();
    assert_eq!(error.kind(), "needs_confirmation");
    let mut call = ToolCall::new("demo__fail", json!({}));
    call.confirmed = true;
    assert!(fx.call(&call).unwrap().result.is_error);
    fx.config.permissions.clear();

    // A script path that leaves the skill folder is refused like a run's.
    std::fs::write(
        dir.join("skill.toml"),
        "[[tools]]\nname = \"out\"\nscript = \"../other/x.sh\"\n",
    )
    .unwrap();
    let error = fx.call(&ToolCall::new("demo__out", json!({}))).unwrap_err();
    assert_eq!(error.kind(), "refused_path", "{error}");
    fx.config.read_only = true;
    let error = fx.call(&ToolCall::new("demo__out", json!({}))).unwrap_err();
    assert_eq!(error.kind(), "read_only", "{error}");
}

#[test]
fn two_declarations_under_one_name_are_neither_offered_nor_called() {
    let fx = fixture();
    // The skill `dup`'s tool `a__x` and the skill `dup__a`'s tool `x` are both `dup__a__x`.
    fx.skill(
        "dup",
        &[
            (
                "skill.toml",
                "[[tools]]\nname = \"a__x\"\nscript = \"t.sh\"\n",
            ),
            ("t.sh", "echo ran\n"),
        ],
    );
    fx.skill(
        "dup__a",
        &[
            ("skill.toml", "[[tools]]\nname = \"x\"\nscript = \"t.sh\"\n"),
            ("t.sh", "echo ran\n"),
        ],
    );
    let skills = skills_ops::discover::discover(&fx.config).unwrap();
    assert_eq!(skills.skills.len(), 2, "{:?}", skills.diagnostics);
    let names: Vec<String> = fx
        .runtime
        .list_tools(&fx.config)
        .unwrap()
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    assert!(names.is_empty(), "{names:?}");
    let error = fx.call(&ToolCall::new("dup__a__x", json!({}))).unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    assert!(error.to_string().contains("more than one"), "{error}");
    assert!(fx.run_files().is_empty());
}

#[test]
fn a_skill_with_a_required_input_still_serves_its_tools() {
    let fixture = fixture();
    fixture.skill(
        "needs",
        &[
            (
                "skill.toml",
                "[[inputs]]\nname = \"target\"\nrequired = true\n\n[[tools]]\nname = \"show\"\nscript = \"scripts/show.sh\"\n",
            ),
            (
                "scripts/show.sh",
                "printf '%s|%s' \"${SKILL_INPUT_TARGET:-unset}\" \"$SKILL_INPUTS\"\n",
            ),
        ],
    );
    let executed = fixture
        .call(&ToolCall::new("needs__show", json!({})))
        .unwrap();
    assert!(!executed.result.is_error, "{executed:?}");
    assert_eq!(
        executed.result.content[0],
        ToolContent::Text {
            text: "unset|{}".to_owned()
        }
    );
    // A run of the skill itself still needs the input.
    let run = skills_types::run::RunRequest::new(
        "needs",
        skills_types::run::RunTarget::Script {
            path: "scripts/show.sh".to_owned(),
        },
    );
    let refused = fixture
        .runtime
        .run(&fixture.config, &run, &RunHooks::default())
        .unwrap_err();
    assert_eq!(refused.kind(), "invalid_input");
}
