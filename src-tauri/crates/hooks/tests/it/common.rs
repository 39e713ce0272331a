//! Helpers: configurations from JSON, calls, runs.

use std::path::Path;

use paddock_hooks::{CallInfo, Hook, HookEffect, HookPoint, HookProcess, HooksConfig, Subject};
use serde_json::Value;

pub const WORKSPACE: &str = "/work/project";

pub fn config(value: Value) -> HooksConfig {
    HooksConfig::from_json(&value).unwrap_or_else(|e| panic!("{e}"))
}

pub fn refusal(value: Value) -> String {
    match HooksConfig::from_json(&value) {
        Ok(c) => panic!("read, with {} hooks: {value}", c.len()),
        Err(e) => e.to_string(),
    }
}

/// The commands of the hooks of `event` that run for a call of `tool` with `input`.
pub fn run_for(config: &HooksConfig, event: HookPoint, tool: &str, input: &Value) -> Vec<String> {
    let call = CallInfo {
        tool,
        input,
        workspace: Path::new(WORKSPACE),
    };
    config
        .matching(event, &Subject::Call(call))
        .into_iter()
        .map(|h| h.command().to_owned())
        .collect()
}

/// The only hook of a one-hook configuration.
pub fn only(config: &HooksConfig) -> &Hook {
    let hooks: Vec<&Hook> = config.hooks().collect();
    assert_eq!(hooks.len(), 1, "{config:?}");
    hooks[0]
}

/// A one-hook configuration of `event` with the extra hook fields `extra`.
pub fn one(event: &str, extra: Value) -> HooksConfig {
    let mut hook = serde_json::json!({"type": "command", "command": "./hook.sh"});
    if let (Some(h), Some(e)) = (hook.as_object_mut(), extra.as_object()) {
        h.extend(e.clone());
    }
    config(serde_json::json!({event: [{"hooks": [hook]}]}))
}

pub fn exited(code: i32, stdout: &str, stderr: &str) -> HookProcess<'static> {
    HookProcess {
        exit_code: Some(code),
        stdout: leak(stdout),
        stderr: leak(stderr),
        ..HookProcess::default()
    }
}

pub fn outcome(config: &HooksConfig, run: &HookProcess<'_>) -> HookEffect {
    only(config).outcome(run)
}

fn leak(s: &str) -> &'static [u8] {
    Box::leak(s.as_bytes().to_vec().into_boxed_slice())
}
