//! A hook's digest changes with what it runs and when, and not with how the file spells it.

use serde_json::{Value, json};

use crate::common::{config, only};

fn digest(value: Value) -> String {
    only(&config(value)).digest().to_owned()
}

fn base() -> Value {
    json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh",
        "args": ["--strict"], "timeout": 30, "rule": "bash(git push *)", "onError": "closed"}]}]})
}

/// `base()` with one field of the hook replaced.
fn with(key: &str, value: Value) -> Value {
    let mut v = base();
    v["PreToolUse"][0]["hooks"][0][key] = value;
    v
}

#[test]
fn the_digest_is_sha256_hex() {
    let d = digest(base());
    assert_eq!(d.len(), 64);
    assert!(
        d.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{d}"
    );
}

#[test]
fn it_changes_with_what_runs_and_when() {
    let d = digest(base());
    let mut changed = vec![
        with("command", json!("./check2.sh")),
        with("args", json!(["--lax"])),
        with("args", json!([])),
        with("timeout", json!(31)),
        with("rule", json!("bash(git push --force *)")),
        with("onError", json!("open")),
    ];
    let mut no_args = base();
    no_args["PreToolUse"][0]["hooks"][0]
        .as_object_mut()
        .unwrap()
        .remove("args");
    changed.push(no_args);
    let mut matcher = base();
    matcher["PreToolUse"][0]["matcher"] = json!("Bash|Write");
    changed.push(matcher);
    let post = json!({"PostToolUse": base()["PreToolUse"].clone()});
    changed.push(post);
    let mut seen = vec![d];
    for value in changed {
        let other = digest(value.clone());
        assert!(!seen.contains(&other), "same digest for {value}");
        seen.push(other);
    }
}

#[test]
fn it_does_not_change_with_spelling() {
    let d = digest(base());
    let text = r#"{ "pre_tool_use" : [ { "hooks" : [ { "onError":"closed", "rule":"bash(git push *)",
        "timeout":30, "args":["--strict"], "command":"./check.sh" } ], "matcher":"Bash" } ] }"#;
    let respelt = paddock_hooks::HooksConfig::from_json_text(text).unwrap();
    assert_eq!(only(&respelt).digest(), d);
    assert_eq!(
        digest(json!({"hooks": base()})),
        d,
        "the whole file's shape"
    );
    assert_eq!(
        digest(with("statusMessage", json!("Checking…"))),
        d,
        "display only"
    );
    let mut claude = base();
    let hook = claude["PreToolUse"][0]["hooks"][0].as_object_mut().unwrap();
    hook.remove("onError");
    hook.insert("onFailure".into(), json!("block"));
    assert_eq!(
        digest(claude),
        d,
        "Claude Code's name for the same failure mode"
    );
}

#[test]
fn defaults_and_their_spelled_out_values_are_the_same_hook() {
    let plain = json!({"Stop": [{"hooks": [{"command": "./x"}]}]});
    let spelled = json!({"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "./x",
        "timeout": 60, "onError": "open"}]}]});
    let star =
        json!({"Stop": [{"matcher": "*", "hooks": [{"command": "./x", "onFailure": "continue"}]}]});
    assert_eq!(digest(plain.clone()), digest(spelled));
    assert_eq!(digest(plain), digest(star));
}
