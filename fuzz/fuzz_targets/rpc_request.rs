//! Fuzz target `rpc_request`: arbitrary bytes through the JSON-RPC decoder and the dispatcher
//! `skills serve` uses (`skills_types::rpc`, 04 §RPC).
//!
//! Whatever arrives, the server must answer with well-formed JSON-RPC or stay silent, never
//! panic. The target asserts that every reply parses, carries `"jsonrpc": "2.0"` and either a
//! result or an error with one of the protocol's codes; that a single request with an id is
//! answered with that id; that a batch gets at most one response per message; and that a
//! decoded request survives being encoded and decoded again.

#![no_main]

use std::future::Future;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use skills_types::rpc::{
    ControllerSchema, Dispatcher, Incoming, RegisteredController, RpcError, codes, decode, params,
};

/// `fuzz.echo` returns its params; `fuzz.strict` wants `{n: u8}` and nothing else.
fn dispatcher() -> Dispatcher {
    fn controller(method: &str, handler: skills_types::rpc::Handler) -> RegisteredController {
        RegisteredController {
            schema: ControllerSchema {
                method: method.to_owned(),
                aliases: vec![format!("{method}_alias")],
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
        #[allow(dead_code, reason = "decoded to prove the params fit")]
        n: u8,
    }
    Dispatcher::new(vec![
        controller("fuzz.echo", Arc::new(|value| Box::pin(async move { Ok(value) }))),
        controller(
            "fuzz.strict",
            Arc::new(|value| {
                Box::pin(async move {
                    let _: Strict = params(value)?;
                    Err::<Value, _>(RpcError::from(skills_types::Error::Disabled))
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

const CODES: [i64; 6] = [
    codes::PARSE_ERROR,
    codes::INVALID_REQUEST,
    codes::METHOD_NOT_FOUND,
    codes::INVALID_PARAMS,
    codes::INTERNAL_ERROR,
    codes::SUBSYSTEM_ERROR,
];

fn check_response(response: &Value) {
    assert_eq!(response["jsonrpc"], "2.0", "{response}");
    let has_result = response.get("result").is_some();
    let error = response.get("error");
    assert!(has_result != error.is_some(), "result xor error: {response}");
    if let Some(error) = error {
        let code = error["code"].as_i64().expect("an integer code");
        assert!(CODES.contains(&code), "unexpected code {code}: {response}");
        assert!(error["message"].is_string(), "{response}");
    }
    assert!(
        matches!(response["id"], Value::String(_) | Value::Number(_) | Value::Null),
        "{response}"
    );
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let incoming = decode(text);
    let messages = match &incoming {
        Incoming::One(message) => std::slice::from_ref(message),
        Incoming::Batch(messages) => messages.as_slice(),
    };
    for message in messages {
        match message {
            Ok(request) => {
                let mut encoded = json!({
                    "jsonrpc": "2.0",
                    "method": request.method,
                    "params": request.params,
                });
                if let Some(id) = &request.id {
                    encoded["id"] = id.clone();
                }
                match decode(&encoded.to_string()) {
                    Incoming::One(Ok(again)) => assert_eq!(&again, request),
                    other => panic!("a decoded request did not decode again: {other:?}"),
                }
            }
            Err(response) => check_response(&response.to_json()),
        }
    }

    let handled = block_on(dispatcher().handle_text(text));
    let Some(reply) = handled.reply else {
        return;
    };
    let reply: Value = serde_json::from_str(&reply).expect("the reply is JSON");
    match (&incoming, &reply) {
        (Incoming::Batch(messages), Value::Array(responses)) => {
            assert!(!responses.is_empty() && responses.len() <= messages.len());
            responses.iter().for_each(check_response);
        }
        (Incoming::One(message), Value::Object(_)) => {
            check_response(&reply);
            if let Ok(request) = message
                && let Some(id) = &request.id
            {
                assert_eq!(&reply["id"], id, "answered with another id");
            }
        }
        (incoming, reply) => panic!("reply shape {reply} does not fit {incoming:?}"),
    }
});
