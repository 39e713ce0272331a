//! Hook configurations published by Claude Code and Codex, loaded as they are written: they
//! read, match the calls they are meant for and not others, and the outputs their scripts
//! produce give the decisions their documentation describes.
//!
//! Claude Code's three come from its hooks guide, <https://code.claude.com/docs/en/hooks-guide>
//! ("Get started with Claude Code hooks": the bash command log, the TypeScript formatter,
//! the file protection hook), read 2026-12-06 as quoted whole in a public repository's
//! "Claude Code Official Examples" (the guide itself was reached through its official
//! translations, e.g. <https://docs.anthropic.com/zh-CN/docs/claude-code/hooks-guide>).

use paddock_hooks::{Decision, HookPoint, HooksConfig, Invocation, SessionSource, Subject};
use serde_json::json;

use crate::common::{exited, only, run_for};

/// "Log all bash commands": a PreToolUse hook on `Bash` appending each command to a file.
const BASH_LOG: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r '\"\\(.tool_input.command) - \\(.tool_input.description // \"No description\")\"' >> ~/.claude/bash-command-log.txt"
          }
        ]
      }
    ]
  }
}"#;

/// The TypeScript formatter: a PostToolUse hook on `Edit|MultiEdit|Write` running prettier.
const FORMATTER: &str = r#"{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|MultiEdit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r '.tool_input.file_path' | { read file_path; if echo \"$file_path\" | grep -q '\\.ts$'; then npx prettier --write \"$file_path\"; fi; }"
          }
        ]
      }
    ]
  }
}"#;

/// File protection: a PreToolUse hook that exits 2 for `.env`, `package-lock.json`, `.git/`.
const FILE_PROTECTION: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|MultiEdit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "python3 -c \"import json, sys; data=json.load(sys.stdin); path=data.get('tool_input',{}).get('file_path',''); sys.exit(2 if any(p in path for p in ['.env', 'package-lock.json', '.git/']) else 0)\""
          }
        ]
      }
    ]
  }
}"#;

/// Codex: a `hooks.json` with a SessionStart hook on `startup`, from a report on
/// github.com/openai/codex/issues/35863 (read 2026-12-06); the shape is Codex's `HooksFile`.
const CODEX_SESSION_START: &str = r#"{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "powershell.exe -NoExit -NoProfile -Command \"Write-Host 'Hello, World';\"",
            "statusMessage": "Opening PowerShell...",
            "timeout": 30
          }
        ]
      }
    ]
  }
}"#;

#[test]
fn the_bash_command_log_runs_before_every_bash_call_and_decides_nothing() {
    let config = HooksConfig::from_json_text(BASH_LOG).unwrap();
    let hook = only(&config);
    assert_eq!(hook.event(), HookPoint::PreToolUse);
    assert!(
        matches!(hook.invocation(), Invocation::Shell(c) if c.ends_with("bash-command-log.txt"))
    );
    assert_eq!(hook.timeout_secs(), 60);
    let ls = json!({"command": "ls", "description": "List files"});
    assert_eq!(
        run_for(&config, HookPoint::PreToolUse, "bash", &ls).len(),
        1
    );
    assert!(run_for(&config, HookPoint::PostToolUse, "bash", &ls).is_empty());
    let write = json!({"path": "a.txt", "content": "x"});
    assert!(run_for(&config, HookPoint::PreToolUse, "file_write", &write).is_empty());
    // It prints nothing and exits 0: the call goes on as the grants say.
    let outcome = hook.outcome(&exited(0, "", ""));
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(outcome.warning, None);
}

#[test]
fn the_formatter_runs_after_writes_and_edits_only() {
    let config = HooksConfig::from_json_text(FORMATTER).unwrap();
    let input = json!({"path": "src/app.ts", "content": "x"});
    for tool in ["file_write", "file_edit"] {
        assert_eq!(
            run_for(&config, HookPoint::PostToolUse, tool, &input).len(),
            1,
            "{tool}"
        );
    }
    for tool in ["file_read", "bash", "grep"] {
        assert!(
            run_for(&config, HookPoint::PostToolUse, tool, &input).is_empty(),
            "{tool}"
        );
    }
    // prettier names the file it wrote on stdout: not context for the model after a call.
    let outcome = only(&config).outcome(&exited(0, "src/app.ts 41ms\n", ""));
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(outcome.added_context, None);
}

#[test]
fn the_file_protection_hook_denies_with_exit_code_2() {
    let config = HooksConfig::from_json_text(FILE_PROTECTION).unwrap();
    let env = json!({"path": ".env", "content": "KEY=1"});
    assert_eq!(
        run_for(&config, HookPoint::PreToolUse, "file_write", &env).len(),
        1
    );
    assert!(
        run_for(
            &config,
            HookPoint::PreToolUse,
            "bash",
            &json!({"command": "cat .env"})
        )
        .is_empty()
    );
    let hook = only(&config);
    // `.env`: the script exits 2 without a word; the call is denied and the model told so.
    match hook.outcome(&exited(2, "", "")).decision {
        Decision::Deny { reason } => {
            assert!(
                reason.contains("exited with code 2 and gave no reason"),
                "{reason}"
            );
            assert!(
                reason.contains("pre_tool_use · Edit|MultiEdit|Write · python3"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Any other path: exit 0, the call goes on.
    assert_eq!(
        hook.outcome(&exited(0, "", "")).decision,
        Decision::Continue
    );
}

#[test]
fn codex_hooks_json_reads_the_same_way() {
    let config = HooksConfig::from_json_text(CODEX_SESSION_START).unwrap();
    let hook = only(&config);
    assert_eq!(hook.event(), HookPoint::SessionStart);
    assert_eq!(hook.status_message(), Some("Opening PowerShell..."));
    assert_eq!(hook.timeout_secs(), 30);
    let startup = Subject::Session(SessionSource::Startup);
    let resume = Subject::Session(SessionSource::Resume);
    assert_eq!(config.matching(HookPoint::SessionStart, &startup).len(), 1);
    assert!(config.matching(HookPoint::SessionStart, &resume).is_empty());
    // What it prints is context for the model at the session's start.
    let outcome = hook.outcome(&exited(0, "Hello, World\n", ""));
    assert_eq!(outcome.added_context.as_deref(), Some("Hello, World"));
}

#[test]
fn milliseconds_in_timeout_are_refused_not_taken_as_hours() {
    // Seen in published configurations: `"timeout": 5000` meant as milliseconds.
    let e = HooksConfig::from_json(&json!({"hooks": {"PreToolUse": [{"matcher": "Write|Edit",
        "hooks": [{"type": "command", "command": "./guard.py", "timeout": 5000}]}]}}))
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "hooks.PreToolUse[0].hooks[0].timeout: 5000 seconds is over the 600-second limit"
        ),
        "{e}"
    );
}

/// `retain` drops the hooks it is told to, and the groups and events they leave empty.
#[test]
fn retain_keeps_only_what_it_is_told() {
    let mut config = HooksConfig::from_json(&serde_json::json!({
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "/opt/corp/guard.sh"},
                {"type": "command", "command": "curl x | sh"}
            ]},
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "curl y | sh"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "curl z | sh"}]}]
    }))
    .unwrap();
    assert_eq!(config.len(), 4);
    let gone = config.retain(|h| h.command().starts_with("/opt/corp/"));
    assert_eq!(gone, 3);
    let left: Vec<&str> = config.hooks().map(|h| h.command()).collect();
    assert_eq!(left, ["/opt/corp/guard.sh"]);
    assert_eq!(
        config.to_json(),
        serde_json::json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/opt/corp/guard.sh"}
        ]}]})
    );
}
