//! The shapes read into one model, written back in Paddock's, inside a settings struct, and
//! against the JSON schema editors get.

use paddock_hooks::{
    CompactTrigger, HookPoint, HooksConfig, Invocation, OnError, SessionSource, Subject,
};
use serde::Deserialize;
use serde_json::json;

use crate::common::{config, only};

#[test]
fn the_whole_file_and_the_settings_field_read_alike() {
    let inner = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./x"}]}]});
    let file = json!({"description": "team hooks", "hooks": inner.clone()});
    assert_eq!(config(inner), config(file));
}

#[test]
fn paddock_fields_are_read_and_written_back() {
    let c = config(
        json!({"pre_tool_use": [{"matcher": "Bash", "hooks": [{"command": "scripts/check",
        "args": ["--push", "$HOME"], "timeout": 20, "rule": "bash(git push *)", "onFailure": "block",
        "statusMessage": "Checking the push"}]}]}),
    );
    let hook = only(&c);
    assert_eq!(
        hook.invocation(),
        Invocation::Program {
            program: "scripts/check",
            args: &["--push".to_owned(), "$HOME".to_owned()]
        }
    );
    assert_eq!(
        (hook.timeout_secs(), hook.on_error()),
        (20, OnError::Closed)
    );
    assert_eq!(
        hook.title(),
        "pre_tool_use · bash(git push *) · scripts/check --push $HOME"
    );
    assert_eq!(hook.id().to_string(), hook.digest());
    let written = c.to_json();
    assert_eq!(
        written,
        json!({"pre_tool_use": [{"matcher": "Bash", "hooks": [{"type": "command",
        "command": "scripts/check", "args": ["--push", "$HOME"], "timeout": 20, "rule": "bash(git push *)",
        "onError": "closed", "statusMessage": "Checking the push"}]}]})
    );
    assert_eq!(config(written), c);
    assert_eq!(serde_json::to_value(&c).unwrap(), c.to_json());
}

#[test]
fn it_reads_as_a_settings_field_with_its_errors() {
    #[derive(Deserialize)]
    struct Settings {
        #[serde(default)]
        hooks: HooksConfig,
    }
    let s: Settings =
        serde_json::from_value(json!({"hooks": {"Stop": [{"hooks": [{"command": "./t"}]}]}}))
            .unwrap();
    assert_eq!(s.hooks.len(), 1);
    let s: Settings = serde_json::from_value(json!({})).unwrap();
    assert!(s.hooks.is_empty());
    let e = serde_json::from_value::<Settings>(json!({"hooks": {"Notification": []}}))
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("hook event `Notification` is not supported by Paddock"),
        "{e}"
    );
}

#[test]
fn session_and_compaction_hooks_match_their_subjects() {
    let c = config(json!({
        "SessionStart": [{"matcher": "resume", "hooks": [{"command": "./resumed"}]},
                         {"hooks": [{"command": "./always"}]}],
        "PreCompact": [{"matcher": "manual", "hooks": [{"command": "./save"}]}],
        "UserPromptSubmit": [{"hooks": [{"command": "./prompt"}]}]
    }));
    let names = |event, subject: Subject<'_>| -> Vec<String> {
        c.matching(event, &subject)
            .iter()
            .map(|h| h.command().to_owned())
            .collect()
    };
    assert_eq!(
        names(
            HookPoint::SessionStart,
            Subject::Session(SessionSource::Resume)
        ),
        ["./resumed", "./always"]
    );
    assert_eq!(
        names(
            HookPoint::SessionStart,
            Subject::Session(SessionSource::Startup)
        ),
        ["./always"]
    );
    assert_eq!(
        names(
            HookPoint::PreCompact,
            Subject::Compaction(CompactTrigger::Manual)
        ),
        ["./save"]
    );
    assert!(
        names(
            HookPoint::PreCompact,
            Subject::Compaction(CompactTrigger::Auto)
        )
        .is_empty()
    );
    assert_eq!(
        names(HookPoint::UserPromptSubmit, Subject::Nothing),
        ["./prompt"]
    );
    // A subject of another kind matches nothing.
    assert!(names(HookPoint::SessionStart, Subject::Nothing).is_empty());
    assert!(names(HookPoint::Stop, Subject::Nothing).is_empty());
}

#[test]
fn the_schema_accepts_what_reads_and_refuses_unknown_keys() {
    let schema = serde_json::to_value(schemars::schema_for!(HooksConfig)).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let good = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./x",
        "args": ["a"], "timeout": 10, "rule": "bash(ls)", "onError": "closed", "statusMessage": "s"}]}],
        "stop": [{"hooks": [{"command": "./y", "onFailure": "block"}]}]});
    assert!(HooksConfig::from_json(&good).is_ok());
    assert!(validator.is_valid(&good));
    for bad in [
        json!({"Notification": []}),
        json!({"Stop": [{"hooks": [{"command": "./y", "comand": 1}]}]}),
        json!({"Stop": [{"hooks": [{"command": "./y", "timeout": 601}]}]}),
        json!({"Stop": [{"hooks": [{"type": "prompt", "command": "./y"}]}]}),
    ] {
        assert!(HooksConfig::from_json(&bad).is_err(), "{bad}");
        assert!(!validator.is_valid(&bad), "{bad}");
    }
}
