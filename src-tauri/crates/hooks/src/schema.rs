//! The JSON schema of a hook configuration as the settings file holds it (the object under
//! `hooks`), for editors: events by either name, matcher groups, hooks and their fields.
//! Written by hand because the configuration is read by hand (`parse`): the shapes agree
//! (a test checks that a configuration that reads validates, and one with an unknown key
//! does not).

use crate::event::HookPointExt;
use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value, json};

use crate::config::HooksConfig;
use crate::config::parse::{MAX_ARG_BYTES, MAX_ARGS, MAX_COMMAND_BYTES, MAX_STATUS_MESSAGE_BYTES};
use crate::event::HookPoint;
use crate::hook::MAX_TIMEOUT_SECS;
use crate::matcher::MAX_MATCHER_BYTES;

impl JsonSchema for HooksConfig {
    fn schema_name() -> Cow<'static, str> {
        "HooksConfig".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let hook = json!({
            "type": "object",
            "description": "A command run when the group matches, inside the OS wall.",
            "additionalProperties": false,
            "required": ["command"],
            "properties": {
                "type": {"const": "command"},
                "command": {
                    "type": "string", "minLength": 1, "maxLength": MAX_COMMAND_BYTES,
                    "description": "A shell command line; with `args`, the program to run without a shell."
                },
                "args": {
                    "type": "array", "maxItems": MAX_ARGS,
                    "items": {"type": "string", "maxLength": MAX_ARG_BYTES},
                    "description": "Arguments of `command`, run as a program without a shell."
                },
                "timeout": {
                    "type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_SECS,
                    "description": "Time limit in seconds (default 60)."
                },
                "rule": {
                    "type": "string",
                    "description": "A rule in the grants' syntax the call must match, like `bash(git push *)` or `file_write(src/**)`."
                },
                "onError": {
                    "enum": ["open", "closed"],
                    "description": "`closed`: a failed or timed-out hook holds back what it guards (default `open`: a warning)."
                },
                "onFailure": {
                    "enum": ["continue", "block"],
                    "description": "Claude Code's name for `onError` (`block` = `closed`)."
                },
                "statusMessage": {"type": "string", "maxLength": MAX_STATUS_MESSAGE_BYTES},
                "async": {"const": false},
                "asyncRewake": {"const": false},
                "once": {"const": false}
            }
        });
        let group = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["hooks"],
            "properties": {
                "matcher": {
                    "type": "string", "maxLength": MAX_MATCHER_BYTES,
                    "description": "Tool names (`Bash`, `Edit|Write`, `file_write`) or a regular expression (`mcp__github__.*`); empty or `*`: all."
                },
                "hooks": {"type": "array", "items": hook}
            }
        });
        let groups = json!({"type": "array", "items": group});
        let mut events = Map::new();
        for event in HookPoint::ALL {
            events.insert(event.name().to_owned(), groups.clone());
            events.insert(event.claude_name().to_owned(), groups.clone());
        }
        let events = Value::Object(events);
        json_schema!({
            "type": "object",
            "description": "Hooks by event (Paddock's names or Claude Code's): commands run at moments of a run, each matching by tool name and optionally a Paddock rule.",
            "additionalProperties": false,
            "properties": events
        })
    }
}
