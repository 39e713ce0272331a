//! A hook's `rule` is matched by paddock-rules, as the grants match: bash commands part by
//! part through the shell grammar, file-tool paths by glob in the workspace.

use paddock_hooks::HookPoint;
use serde_json::json;

use crate::common::{config, run_for};

#[test]
fn a_bash_rule_matches_the_command_wherever_it_runs() {
    let c = config(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./no-push.sh", "rule": "bash(git push *)"}]}]}));
    let runs = |cmd: &str| {
        !run_for(&c, HookPoint::PreToolUse, "bash", &json!({"command": cmd})).is_empty()
    };
    assert!(runs("git push origin main"));
    assert!(runs("cd x && git push"));
    assert!(runs("git status; git push --force"));
    assert!(runs("'git' push"), "quote removal, as the rules read it");
    assert!(
        runs("/usr/bin/git push"),
        "a standard bin folder's git is git"
    );
    assert!(runs("sh -c 'git push'"), "commands inside sh -c strings");
    assert!(!runs("git status"));
    assert!(!runs("git pushy"));
    assert!(!runs("echo git push"));
    assert!(!runs("./git push"), "another program named git is not git");
}

#[test]
fn a_file_rule_matches_paths_in_the_workspace() {
    let c = config(json!({"PostToolUse": [{"hooks": [
        {"type": "command", "command": "./fmt.sh", "rule": "file_write(src/**)"}]}]}));
    let runs = |tool: &str, path: &str| {
        !run_for(
            &c,
            HookPoint::PostToolUse,
            tool,
            &json!({"path": path, "content": "x"}),
        )
        .is_empty()
    };
    assert!(runs("file_write", "src/a.rs"));
    assert!(runs("file_write", "src/deep/b.rs"));
    assert!(runs("file_write", "./src/a.rs"));
    assert!(!runs("file_write", "docs/a.md"));
    assert!(!runs("file_write", "srcx/a.rs"));
    assert!(!runs("file_edit", "src/a.rs"), "the rule names file_write");
    assert!(!runs("bash", "src/a.rs"));
}

#[test]
fn rules_name_tools_as_matchers_do() {
    let c = config(json!({"PreToolUse": [{"matcher": "Edit|Write", "hooks": [
        {"command": "./guard.sh", "rule": "Write(.env)"}]}]}));
    let input = json!({"path": ".env", "content": "KEY=1"});
    assert_eq!(
        run_for(&c, HookPoint::PreToolUse, "file_write", &input),
        ["./guard.sh"]
    );
    assert!(run_for(&c, HookPoint::PreToolUse, "file_edit", &input).is_empty());
    let input = json!({"path": "a.txt", "content": "x"});
    assert!(run_for(&c, HookPoint::PreToolUse, "file_write", &input).is_empty());
}

#[test]
fn hooks_without_a_rule_run_for_every_matching_call_and_duplicates_once() {
    let hook = json!({"type": "command", "command": "./log.sh"});
    let c = config(json!({"PreToolUse": [
        {"matcher": "Bash", "hooks": [hook.clone(), {"command": "./other.sh"}]},
        {"matcher": "Bash", "hooks": [hook]}
    ]}));
    let ls = json!({"command": "ls"});
    assert_eq!(
        run_for(&c, HookPoint::PreToolUse, "bash", &ls),
        ["./log.sh", "./other.sh"]
    );
    assert!(
        run_for(
            &c,
            HookPoint::PreToolUse,
            "file_read",
            &json!({"path": "a"})
        )
        .is_empty()
    );
}

#[test]
fn mcp_tools_match_by_pattern() {
    let c = config(
        json!({"PreToolUse": [{"matcher": "mcp__github__.*", "hooks": [{"command": "./gh.sh"}]}]}),
    );
    let input = json!({});
    assert_eq!(
        run_for(
            &c,
            HookPoint::PreToolUse,
            "mcp__github__create_issue",
            &input
        )
        .len(),
        1
    );
    assert!(
        run_for(
            &c,
            HookPoint::PreToolUse,
            "mcp__gitlab__create_issue",
            &input
        )
        .is_empty()
    );
}

#[test]
fn a_rule_without_a_pattern_is_any_call_of_the_tool() {
    let c = config(json!({"PreToolUse": [{"hooks": [{"command": "./any-bash", "rule": "bash"}]}]}));
    let runs = |tool: &str, input: serde_json::Value| {
        !run_for(&c, HookPoint::PreToolUse, tool, &input).is_empty()
    };
    assert!(runs("bash", json!({"command": "ls -la"})));
    assert!(runs("bash", json!({"command": "git push && rm -rf x"})));
    assert!(!runs("file_read", json!({"path": "a"})));
}
