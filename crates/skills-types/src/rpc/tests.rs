//! The decoder and the dispatcher against the JSON-RPC 2.0 rules.

use serde_json::{Value, json};

use super::*;

fn error_code(response: &Response) -> i64 {
    match &response.outcome {
        Err(error) => error.code,
        Ok(result) => panic!("expected an error, got {result}"),
    }
}

fn one(text: &str) -> Result<Request, Response> {
    match decode(text) {
        Incoming::One(message) => message,
        Incoming::Batch(_) => panic!("{text} decoded as a batch"),
    }
}

#[test]
fn requests_and_notifications_decode() {
    let request =
        one(r#"{"jsonrpc":"2.0","id":7,"method":"skills.list","params":{"scope":"user"}}"#)
            .unwrap();
    assert_eq!(request.id, Some(json!(7)));
    assert_eq!(request.method, "skills.list");
    assert_eq!(request.params, json!({"scope": "user"}));

    let notification = one(r#"{"jsonrpc":"2.0","method":"skills.list"}"#).unwrap();
    assert_eq!(notification.id, None);
    assert_eq!(
        notification.params,
        json!({}),
        "absent params are an empty object"
    );

    for id in [json!("a"), json!(null), json!(-1.5)] {
        let text = json!({"jsonrpc": "2.0", "id": id, "method": "m"}).to_string();
        assert_eq!(one(&text).unwrap().id, Some(id));
    }
}

#[test]
fn what_is_not_a_request_gets_the_right_error() {
    let cases: [(&str, i64, Value); 11] = [
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"m","params":5}"#,
            codes::INVALID_REQUEST,
            json!(3),
        ),
        ("{", codes::PARSE_ERROR, Value::Null),
        ("", codes::PARSE_ERROR, Value::Null),
        ("\u{feff}{}", codes::PARSE_ERROR, Value::Null),
        ("[]", codes::INVALID_REQUEST, Value::Null),
        ("42", codes::INVALID_REQUEST, Value::Null),
        (r#"{"id":1,"method":"m"}"#, codes::INVALID_REQUEST, json!(1)),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
            codes::INVALID_REQUEST,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":5}"#,
            codes::INVALID_REQUEST,
            json!(2),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#,
            codes::INVALID_REQUEST,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"m","extra":true}"#,
            codes::INVALID_REQUEST,
            json!(4),
        ),
    ];
    for (text, code, id) in cases {
        let response = one(text).expect_err(text);
        assert_eq!(error_code(&response), code, "{text}");
        assert_eq!(response.id, id, "{text}");
    }
}

#[test]
fn batches_decode_item_by_item_and_are_bounded() {
    let Incoming::Batch(items) = decode(r#"[{"jsonrpc":"2.0","id":1,"method":"a"}, 5]"#) else {
        panic!("not a batch");
    };
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok());
    assert_eq!(
        error_code(items[1].as_ref().unwrap_err()),
        codes::INVALID_REQUEST
    );

    let huge = format!("[{}]", vec!["1"; MAX_BATCH + 1].join(","));
    assert_eq!(error_code(&one(&huge).unwrap_err()), codes::INVALID_REQUEST);
}

/// Controllers for the dispatcher tests: `echo` returns its params, `fail` fails with a
/// subsystem error, `strict` wants `{n: u32}` and nothing else.
fn dispatcher() -> Dispatcher {
    fn controller(method: &str, aliases: &[&str], handler: Handler) -> RegisteredController {
        RegisteredController {
            schema: ControllerSchema {
                method: method.to_owned(),
                aliases: aliases.iter().map(|alias| (*alias).to_owned()).collect(),
                description: String::new(),
                params: json!({}),
                result: json!({}),
                example: json!({}),
            },
            handler,
            presenter: None,
        }
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        n: u32,
    }
    Dispatcher::new(vec![
        controller(
            "test.echo",
            &["test.old_echo"],
            Arc::new(|params| Box::pin(async move { Ok(params) })),
        ),
        controller(
            "test.fail",
            &[],
            Arc::new(|_| {
                Box::pin(async {
                    Err(RpcError::from(crate::Error::SkillNotFound {
                        name: "x".to_owned(),
                        suggestion: None,
                    }))
                })
            }),
        ),
        controller(
            "test.strict",
            &[],
            Arc::new(|value| {
                Box::pin(async move {
                    let strict: Strict = params(value)?;
                    Ok(json!(strict.n))
                })
            }),
        ),
    ])
}

fn block_on<F: Future>(future: F) -> F::Output {
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
}

fn reply(text: &str) -> Option<Value> {
    block_on(dispatcher().handle_text(text))
        .reply
        .map(|line| serde_json::from_str(&line).unwrap())
}

#[test]
fn methods_aliases_and_errors_are_answered() {
    assert_eq!(
        reply(r#"{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"a":1}}"#),
        Some(json!({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}))
    );
    assert_eq!(
        reply(r#"{"jsonrpc":"2.0","id":"x","method":"test.old_echo"}"#),
        Some(json!({"jsonrpc": "2.0", "id": "x", "result": {}}))
    );
    let unknown = reply(r#"{"jsonrpc":"2.0","id":2,"method":"nope"}"#).unwrap();
    assert_eq!(unknown["error"]["code"], codes::METHOD_NOT_FOUND);
    let failed = reply(r#"{"jsonrpc":"2.0","id":3,"method":"test.fail"}"#).unwrap();
    assert_eq!(failed["error"]["code"], codes::SUBSYSTEM_ERROR);
    assert_eq!(failed["error"]["data"]["kind"], "not_found");
    let strict =
        reply(r#"{"jsonrpc":"2.0","id":4,"method":"test.strict","params":{"n":1,"m":2}}"#).unwrap();
    assert_eq!(strict["error"]["code"], codes::INVALID_PARAMS);
    assert!(
        strict["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown field `m`")
    );
    let parse = reply("{oops").unwrap();
    assert_eq!(parse["error"]["code"], codes::PARSE_ERROR);
    assert_eq!(parse["id"], Value::Null);
}

#[test]
fn positional_params_are_refused_by_the_dispatcher() {
    let answer = reply(r#"{"jsonrpc":"2.0","id":3,"method":"test.echo","params":[1]}"#).unwrap();
    assert_eq!(answer["error"]["code"], codes::INVALID_PARAMS);
    assert_eq!(answer["id"], 3);
    assert_eq!(
        reply(r#"{"jsonrpc":"2.0","method":"test.echo","params":[1]}"#),
        None,
        "a notification with positional params still gets no answer"
    );
}

#[test]
fn notifications_get_no_answer_even_when_they_fail() {
    assert_eq!(reply(r#"{"jsonrpc":"2.0","method":"test.echo"}"#), None);
    assert_eq!(reply(r#"{"jsonrpc":"2.0","method":"nope"}"#), None);
    assert_eq!(
        reply(r#"[{"jsonrpc":"2.0","method":"test.echo"},{"jsonrpc":"2.0","method":"x"}]"#),
        None,
        "a batch of notifications is answered with nothing"
    );
}

#[test]
fn a_batch_is_answered_in_order_without_its_notifications() {
    let answer = reply(
        r#"[{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"n":1}},
            {"jsonrpc":"2.0","method":"test.echo"},
            {"jsonrpc":"2.0","id":2,"method":"nope"},
            17]"#,
    )
    .unwrap();
    let items = answer.as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["result"], json!({"n": 1}));
    assert_eq!(items[1]["error"]["code"], codes::METHOD_NOT_FOUND);
    assert_eq!(items[2]["error"]["code"], codes::INVALID_REQUEST);
}

#[test]
fn succeeded_methods_are_reported_by_canonical_name() {
    let handled = block_on(dispatcher().handle_text(
        r#"[{"jsonrpc":"2.0","id":1,"method":"test.old_echo"},{"jsonrpc":"2.0","id":2,"method":"test.fail"}]"#,
    ));
    assert_eq!(handled.succeeded, ["test.echo"]);
}

#[test]
fn results_present_as_tool_results() {
    let dispatcher = dispatcher();
    let echo = dispatcher.resolve("test.echo").unwrap();
    let tool = block_on(echo.call_as_tool(json!({"a": 1})));
    assert!(!tool.is_error);
    assert_eq!(
        tool.content,
        [crate::ToolContent::Json {
            data: json!({"a": 1})
        }]
    );
    assert!(tool.output_for_llm().contains("\"a\": 1"));

    let fail = dispatcher.resolve("test.fail").unwrap();
    let tool = block_on(fail.call_as_tool(json!({})));
    assert!(tool.is_error);
    assert!(
        tool.output_for_llm().contains("'x'"),
        "{}",
        tool.output_for_llm()
    );
}

/// Whether `text` holds a character the one sanitiser removes, but for the line feeds and tabs
/// a body keeps.
fn steers(text: &str) -> bool {
    text.chars().any(|character| {
        crate::sanitize::is_removed(character) && !matches!(character, '\n' | '\t')
    })
}

#[test]
fn answers_and_tool_results_leave_sanitised_with_the_id_as_it_came() {
    let hostile = json!({
        "name": "ev\u{202e}il\u{1b}[31m",
        "deep": [{ "description": "bell\u{7} \u{1b}]0;title\u{7}" }],
        "body": "# Title\n\n\u{1b}[2Jstep\u{200b}\n",
        "ke\u{7}y": 1,
    });
    let request =
        json!({ "jsonrpc": "2.0", "id": "a\u{7}", "method": "test.echo", "params": hostile });
    let line = block_on(dispatcher().handle_text(&request.to_string()))
        .reply
        .unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["id"], "a\u{7}", "the client's id, echoed exactly");
    assert_eq!(
        answer["result"],
        json!({
            "name": "evil",
            "deep": [{ "description": "bell " }],
            "body": "# Title\n\nstep\n",
            "ke\\u{7}y": 1,
        })
    );
    let batch = Value::Array(vec![request.clone(), request.clone()]).to_string();
    let line = block_on(dispatcher().handle_text(&batch)).reply.unwrap();
    let answers: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answers[1]["result"], answer["result"]);

    let dispatcher = dispatcher();
    let echo = dispatcher.resolve("test.echo").unwrap();
    let tool = block_on(echo.call_as_tool(hostile));
    let shown = serde_json::to_string(&tool).unwrap();
    let parsed: Value = serde_json::from_str(&shown).unwrap();
    let mut strings = vec![parsed];
    while let Some(value) = strings.pop() {
        match value {
            Value::String(text) => assert!(!steers(&text), "{text:?} in {shown}"),
            Value::Array(items) => strings.extend(items),
            Value::Object(members) => {
                for (name, member) in members {
                    assert!(!steers(&name), "{name:?} in {shown}");
                    strings.push(member);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn bad_input_from_the_caller_is_invalid_params() {
    let error = RpcError::from(crate::Error::InvalidInput("no".to_owned()));
    assert_eq!(error.code, codes::INVALID_PARAMS);
    assert_eq!(error.data, Some(json!({"kind": "invalid_input"})));
    assert_eq!(
        RpcError::from(crate::Error::Disabled).data,
        Some(json!({"kind": "disabled"}))
    );
}

#[test]
fn a_fault_no_input_explains_is_an_internal_error_and_a_refusal_is_the_subsystems() {
    let internal = RpcError::from(crate::Error::Internal {
        action: "encoding the record".to_owned(),
        reason: "a map key is not a string".to_owned(),
    });
    assert_eq!(internal.code, codes::INTERNAL_ERROR);
    assert_eq!(internal.data, Some(json!({"kind": "internal"})));
    for (error, kind) in [
        (
            crate::Error::Forbidden {
                reason: "inline code is refused".to_owned(),
            },
            "forbidden",
        ),
        (
            crate::Error::NotConfigured {
                what: "the registry catalog".to_owned(),
                how: "set [registry] url".to_owned(),
            },
            "not_configured",
        ),
    ] {
        let refused = RpcError::from(error);
        assert_eq!(refused.code, codes::SUBSYSTEM_ERROR);
        assert_eq!(refused.data, Some(json!({ "kind": kind })));
    }
}

#[test]
fn run_params_name_exactly_one_target() {
    use crate::run::{InlineLanguage, RunTarget};
    use methods::RunParams;

    let decode = |value: Value| serde_json::from_value::<RunParams>(value).unwrap();
    let entry = decode(json!({ "skill_id": "s", "args": ["a b"], "inputs": { "n": 1 } }))
        .to_request()
        .unwrap();
    assert_eq!(entry.target, RunTarget::Entry);
    assert_eq!(entry.args, ["a b"]);
    assert_eq!(entry.inputs["n"], json!(1));
    assert!(!entry.confirmed);
    let script =
        decode(json!({ "skill_id": "s", "script": "x.py", "confirmed": true, "timeout_secs": 5 }))
            .to_request()
            .unwrap();
    assert_eq!(
        script.target,
        RunTarget::Script {
            path: "x.py".into()
        }
    );
    assert!(script.confirmed);
    assert_eq!(script.timeout_secs, Some(5));
    let inline =
        decode(json!({ "skill_id": "s", "inline": { "language": "py", "code": "print(1)" } }))
            .to_request()
            .unwrap();
    assert_eq!(
        inline.target,
        RunTarget::Inline {
            language: InlineLanguage::Python,
            code: "print(1)".into()
        }
    );
    let both = decode(
        json!({ "skill_id": "s", "script": "x.py", "inline": { "language": "sh", "code": "true" } }),
    );
    assert!(both.to_request().unwrap_err().contains("not both"));
    assert!(!decode(json!({ "skill_id": "s" })).wait);
    let npm = decode(json!({ "skill_id": "s", "npm": ["run", "build"] }))
        .to_request()
        .unwrap();
    assert_eq!(
        npm.target,
        RunTarget::Npm {
            args: vec!["run".into(), "build".into()]
        }
    );
    let npm_and_script = decode(json!({ "skill_id": "s", "script": "x.py", "npm": ["ci"] }));
    assert!(
        npm_and_script
            .to_request()
            .unwrap_err()
            .contains("not several")
    );
    assert!(serde_json::from_value::<RunParams>(json!({ "skill_id": "s", "nmp": [] })).is_err());
}

#[test]
fn a_run_result_is_an_id_or_an_outcome() {
    use methods::{RunResult, RunStarted};

    let started = RunResult::Started(RunStarted { run_id: "r".into() });
    let text = serde_json::to_value(&started).unwrap();
    assert_eq!(text, json!({ "run_id": "r" }));
    assert_eq!(serde_json::from_value::<RunResult>(text).unwrap(), started);
}
