//! What Paddock cannot honour is refused by name, with its place and the reason; never
//! skipped.

use paddock_hooks::{HookConfigError, HooksConfig, MAX_HOOKS};
use serde_json::json;

use crate::common::refusal;

fn hook(extra: serde_json::Value) -> serde_json::Value {
    let mut hook = json!({"type": "command", "command": "./check.sh"});
    hook.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]})
}

#[test]
fn events_paddock_does_not_have_are_named() {
    let e = refusal(
        json!({"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]}}),
    );
    assert!(
        e.starts_with("hook event `Notification` is not supported by Paddock: "),
        "{e}"
    );
    let e = refusal(json!({"SessionEnd": []}));
    assert!(
        e.starts_with("hook event `SessionEnd` is not supported by Paddock: "),
        "{e}"
    );
    let e = refusal(json!({"PreToolCall": []}));
    assert!(
        e.starts_with("unknown hook event `PreToolCall` (Paddock's events: session_start,"),
        "{e}"
    );
}

#[test]
fn unknown_keys_are_named_with_their_place() {
    let e = refusal(hook(json!({"comand": "x"})));
    assert_eq!(
        e,
        "hooks.PreToolUse[0].hooks[0]: unknown key `comand` (expected type, command, args, timeout, rule, onError, statusMessage)"
    );
    let e = refusal(json!({"Stop": [{"hooks": [], "description": "x"}]}));
    assert!(
        e.starts_with("hooks.Stop[0]: unknown key `description`"),
        "{e}"
    );
    let e = refusal(json!({"hooks": {}, "permissions": {}}));
    assert!(
        e.starts_with("the hooks file: unknown key `permissions`"),
        "{e}"
    );
    let e = refusal(hook(json!({"if": "Bash(git push *)"})));
    assert!(e.starts_with("hooks.PreToolUse[0].hooks[0]: `if` is not supported by Paddock: write the condition as Paddock's `rule`"), "{e}");
}

#[test]
fn hook_types_other_than_command_are_named() {
    let e = refusal(
        json!({"Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done? $ARGUMENTS"}]}]}),
    );
    assert!(
        e.starts_with("hooks.Stop[0].hooks[0]: hook type `prompt` is not supported by Paddock: "),
        "{e}"
    );
    let e = refusal(json!({"Stop": [{"hooks": [{"type": "http", "url": "https://example.com"}]}]}));
    assert!(e.contains("hook type `http` is not supported"), "{e}");
    let e = refusal(json!({"Stop": [{"hooks": [{"type": "shell", "command": "x"}]}]}));
    assert!(
        e.contains(
            "hook type `shell` is not supported by Paddock: Paddock runs `command` hooks only"
        ),
        "{e}"
    );
}

#[test]
fn bad_matchers_name_the_hook() {
    let e = refusal(
        json!({"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}),
    );
    assert!(e.starts_with("hooks.PreToolUse[0].matcher: matcher `Bash(` (of `./guard.sh`): not a regular expression Paddock can read"), "{e}");
    let e = refusal(
        json!({"PostToolUse": [{"matcher": "Edit|Wirte", "hooks": [{"type": "command", "command": "./fmt.sh"}]}]}),
    );
    assert!(e.contains("(of `./fmt.sh`): unknown tool `Wirte`"), "{e}");
    let e = refusal(
        json!({"Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./x"}]}]}),
    );
    assert!(e.contains("stop hooks take no matcher"), "{e}");
    let e = refusal(json!({"PreToolUse": [{"matcher": "mcp__memory", "hooks": []}]}));
    assert!(
        e.contains("(of an empty group)") && e.contains("mcp__<server>__.*"),
        "{e}"
    );
}

#[test]
fn bad_rules_name_the_hook() {
    let e = refusal(hook(json!({"rule": "bash(git push *"})));
    assert!(
        e.starts_with(
            "hooks.PreToolUse[0].hooks[0].rule: rule `bash(git push *` (of `./check.sh`): "
        ),
        "{e}"
    );
    let e = refusal(hook(json!({"rule": "bash(git 'push)"})));
    assert!(
        e.contains("rule `bash(git 'push)` (of `./check.sh`): "),
        "{e}"
    );
    let e = refusal(
        json!({"PreToolUse": [{"matcher": "Write", "hooks": [{"command": "./x", "rule": "Write(/etc/**)"}]}]}),
    );
    assert!(e.contains("relative to the workspace root"), "{e}");
    let e = refusal(hook(json!({"rule": "file_write(src/**)"})));
    assert!(
        e.contains("the group's matcher `Bash` never matches file_write"),
        "{e}"
    );
    let e = refusal(json!({"Stop": [{"hooks": [{"command": "./x", "rule": "bash(ls)"}]}]}));
    assert!(e.contains("stop hooks have none"), "{e}");
}

#[test]
fn options_paddock_does_not_honour_are_refused() {
    let e = refusal(hook(json!({"async": true})));
    assert!(
        e.contains("`async: true` is not supported by Paddock"),
        "{e}"
    );
    assert!(HooksConfig::from_json(&hook(json!({"async": false}))).is_ok());
    let e =
        refusal(json!({"SessionStart": [{"hooks": [{"command": "./x", "onError": "closed"}]}]}));
    assert!(
        e.contains(
            "`onError: closed` is not supported by Paddock: a session_start hook holds nothing back"
        ),
        "{e}"
    );
    let e = refusal(hook(json!({"onError": "closed", "onFailure": "block"})));
    assert!(e.contains("one of `onError` and `onFailure`"), "{e}");
    let e = refusal(hook(json!({"onError": "fail"})));
    assert!(e.contains("expected \"open\" or \"closed\""), "{e}");
}

#[test]
fn bad_values_are_refused() {
    let cases = [
        (
            hook(json!({"timeout": 0})),
            "timeout: must be at least 1 second",
        ),
        (
            hook(json!({"timeout": 1.5})),
            "timeout: expected a whole number of seconds",
        ),
        (hook(json!({"command": "  "})), "command: empty"),
        (hook(json!({"args": ["a", 1]})), "args[1]: expected text"),
        (
            hook(json!({"statusMessage": "x".repeat(300)})),
            "statusMessage: longer than",
        ),
        (
            json!({"PreToolUse": [{"hooks": [{"type": "command"}]}]}),
            "command: missing",
        ),
        (
            json!({"PreToolUse": {"hooks": []}}),
            "hooks.PreToolUse: expected a list of matcher groups",
        ),
        (
            json!({"PreToolUse": [{"matcher": "Bash"}]}),
            "hooks.PreToolUse[0]: a matcher group needs `hooks`",
        ),
        (
            json!(["PreToolUse"]),
            "hooks: expected an object of hook events",
        ),
    ];
    for (config, expected) in cases {
        let e = refusal(config);
        assert!(e.contains(expected), "{e}\nexpected: {expected}");
    }
    let e = HooksConfig::from_json_text("{\"Stop\": [").unwrap_err();
    assert!(matches!(e, HookConfigError::Syntax(_)), "{e}");
}

#[test]
fn too_many_hooks_are_refused() {
    let hooks: Vec<_> = (0..=MAX_HOOKS)
        .map(|i| json!({"command": format!("./h{i}")}))
        .collect();
    let e = refusal(json!({"Stop": [{"hooks": hooks}]}));
    assert_eq!(e, format!("hooks: more than {MAX_HOOKS} hooks"));
}
