//! Reading a hook configuration in any of the three shapes into one [`HooksConfig`].
//!
//! Claude Code's settings (read 2026-12-06, <https://docs.anthropic.com/de/docs/claude-code/hooks>):
//! `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
//! "…", "timeout": 60}]}]}}`, `timeout` in seconds. Codex's `hooks.json`
//! (<https://developers.openai.com/codex/hooks>; `HooksFile`/`MatcherGroup`/`HookHandlerConfig`
//! in `codex-rs/config/src/hook_config.rs` of github.com/openai/codex) is the same shape with
//! the same event names, plus `async` and `statusMessage` (Claude Code has them too) and
//! `visibilityHint`. Paddock's own is that shape (what goes under `hooks` in its settings,
//! event names in either spelling) plus three optional fields on a hook: `rule` (a rule in
//! the grants' syntax the call must match), `onError` (`open`, `closed`; Claude Code's
//! `onFailure: "continue" | "block"` is read as the same thing) and `args` (run `command` as
//! a program with these arguments and no shell).
//!
//! Both the whole file (`{"hooks": {…}}`, with Codex's `description` or a `$schema`) and the
//! object under `hooks` are read. Anything Paddock would not honour (an event, a key, a hook
//! type, `async: true`) is refused by name, never skipped.

use crate::event::HookPointExt;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::config::{EventHooks, HookGroup, HooksConfig};
use crate::error::HookConfigError;
use crate::event::HookPoint;
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError};
use crate::matcher::Matcher;
use crate::rule::HookRule;
use crate::text::snippet;

/// Most hooks in one configuration.
pub const MAX_HOOKS: usize = 256;
/// Longest `command`, in bytes.
pub const MAX_COMMAND_BYTES: usize = 16 * 1024;
/// Most `args`.
pub const MAX_ARGS: usize = 256;
/// Longest single argument, in bytes.
pub const MAX_ARG_BYTES: usize = 4 * 1024;
/// Longest `statusMessage`, in bytes.
pub const MAX_STATUS_MESSAGE_BYTES: usize = 256;

const ROOT_KEYS: [&str; 3] = ["hooks", "description", "$schema"];
const GROUP_KEYS: [&str; 2] = ["matcher", "hooks"];
const HOOK_KEYS: [&str; 11] = [
    "type",
    "command",
    "args",
    "timeout",
    "rule",
    "onError",
    "onFailure",
    "statusMessage",
    "async",
    "asyncRewake",
    "once",
];
/// Keys of Claude Code's or Codex's hooks that Paddock does not honour.
const UNSUPPORTED_KEYS: [(&str, &str); 5] = [
    (
        "if",
        "write the condition as Paddock's `rule`, like `bash(git push *)`; Claude Code's permission-rule paths are not read the way Paddock's workspace globs are",
    ),
    (
        "shell",
        "Paddock runs `command` with sh, or with `args` as a program without a shell",
    ),
    (
        "commandWindows",
        "Paddock runs the same `command` everywhere",
    ),
    (
        "command_windows",
        "Paddock runs the same `command` everywhere",
    ),
    ("visibilityHint", "Paddock shows every hook's run alike"),
];
/// Flags that must be false where given: what they ask for, Paddock does not do.
const FALSE_ONLY: [(&str, &str); 3] = [
    (
        "async",
        "Paddock waits for every hook, so that its answer can count",
    ),
    (
        "asyncRewake",
        "Paddock waits for every hook, so that its answer can count",
    ),
    ("once", "Paddock runs a hook every time it matches"),
];
/// Hook types other than `command`.
const UNSUPPORTED_TYPES: [(&str, &str); 4] = [
    (
        "prompt",
        "Paddock does not ask a model to judge a hook; write a command",
    ),
    (
        "agent",
        "Paddock does not start an agent to judge a hook; write a command",
    ),
    (
        "http",
        "Paddock runs hooks as commands inside the OS wall, not as web requests",
    ),
    (
        "mcp_tool",
        "Paddock runs hooks as commands inside the OS wall, not as MCP tool calls",
    ),
];

impl HooksConfig {
    /// Reads a configuration from JSON text (a `hooks.json`, or a settings file's `hooks`).
    pub fn from_json_text(text: &str) -> Result<HooksConfig, HookConfigError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| HookConfigError::Syntax(e.to_string()))?;
        Self::from_json(&value)
    }

    /// Reads `{"hooks": {…}}` (Claude Code's settings, Codex's `hooks.json`) or the object
    /// under `hooks` (Paddock's settings field). The first error is returned, naming its place.
    pub fn from_json(value: &Value) -> Result<HooksConfig, HookConfigError> {
        let root = object(value, "hooks", "an object of hook events")?;
        let events = if root.contains_key("hooks") {
            if let Some(key) = root.keys().find(|k| !ROOT_KEYS.contains(&k.as_str())) {
                return Err(HookConfigError::UnknownKey {
                    at: "the hooks file".to_owned(),
                    key: key.clone(),
                    expected: "hooks, description",
                });
            }
            if let Some(d) = root
                .get("description")
                .filter(|d| !d.is_string() && !d.is_null())
            {
                return Err(invalid("description", format!("expected text, not {d}")));
            }
            object(&root["hooks"], "hooks", "an object of hook events")?
        } else {
            root
        };
        let mut out = HooksConfig::default();
        let mut count = 0;
        for (key, groups) in events {
            let event = crate::event::parse_event(key)?;
            let at = format!("hooks.{key}");
            let Some(groups) = groups.as_array() else {
                return Err(invalid(&at, "expected a list of matcher groups".to_owned()));
            };
            let mut parsed = Vec::new();
            for (i, group) in groups.iter().enumerate() {
                let group = read_group(&format!("{at}[{i}]"), event, group)?;
                count += group.hooks.len();
                if count > MAX_HOOKS {
                    return Err(invalid("hooks", format!("more than {MAX_HOOKS} hooks")));
                }
                parsed.push(group);
            }
            out.events.push(EventHooks {
                key: key.clone(),
                event,
                groups: parsed,
            });
        }
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for HooksConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        HooksConfig::from_json(&value).map_err(serde::de::Error::custom)
    }
}

fn read_group(at: &str, event: HookPoint, value: &Value) -> Result<HookGroup, HookConfigError> {
    let group = object(
        value,
        at,
        "a matcher group like {\"matcher\": \"Bash\", \"hooks\": [...]}",
    )?;
    if let Some(key) = group.keys().find(|k| !GROUP_KEYS.contains(&k.as_str())) {
        return Err(HookConfigError::UnknownKey {
            at: at.to_owned(),
            key: key.clone(),
            expected: "matcher, hooks",
        });
    }
    let matcher_text = match group.get("matcher") {
        None | Some(Value::Null) => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(other) => {
            return Err(invalid(
                &format!("{at}.matcher"),
                format!("expected text, not {other}"),
            ));
        }
    };
    let Some(hooks) = group.get("hooks") else {
        return Err(invalid(
            at,
            "a matcher group needs `hooks`, a list of hooks".to_owned(),
        ));
    };
    let Some(hooks) = hooks.as_array() else {
        return Err(invalid(
            &format!("{at}.hooks"),
            "expected a list of hooks".to_owned(),
        ));
    };
    let matcher = Matcher::compile(event, matcher_text.as_deref()).map_err(|reason| {
        HookConfigError::BadMatcher {
            at: format!("{at}.matcher"),
            matcher: matcher_text.clone().unwrap_or_default(),
            hook: first_command(hooks),
            reason,
        }
    })?;
    let hooks = hooks
        .iter()
        .enumerate()
        .map(|(i, hook)| {
            read_hook(
                &format!("{at}.hooks[{i}]"),
                event,
                (&matcher_text, &matcher),
                hook,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HookGroup {
        matcher: matcher_text,
        hooks,
    })
}

fn read_hook(
    at: &str,
    event: HookPoint,
    (matcher_text, matcher): (&Option<String>, &Matcher),
    value: &Value,
) -> Result<Hook, HookConfigError> {
    let hook = object(
        value,
        at,
        "a hook like {\"type\": \"command\", \"command\": \"…\"}",
    )?;
    match hook.get("type") {
        None => {}
        Some(Value::String(kind)) if kind == "command" => {}
        Some(Value::String(kind)) => {
            let why = UNSUPPORTED_TYPES
                .iter()
                .find(|(t, _)| t == kind)
                .map_or("Paddock runs `command` hooks only", |(_, why)| why);
            return Err(HookConfigError::UnsupportedType {
                at: at.to_owned(),
                kind: kind.clone(),
                why,
            });
        }
        Some(other) => {
            return Err(invalid(
                &format!("{at}.type"),
                format!("expected \"command\", not {other}"),
            ));
        }
    }
    if let Some(key) = hook.keys().find(|k| !HOOK_KEYS.contains(&k.as_str())) {
        if let Some((_, why)) = UNSUPPORTED_KEYS.iter().find(|(k, _)| k == key) {
            return Err(unsupported(at, key, why));
        }
        return Err(HookConfigError::UnknownKey {
            at: at.to_owned(),
            key: key.clone(),
            expected: "type, command, args, timeout, rule, onError, statusMessage",
        });
    }
    for (flag, why) in FALSE_ONLY {
        match hook.get(flag) {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => return Err(unsupported(at, &format!("{flag}: true"), why)),
            Some(other) => {
                return Err(invalid(
                    &format!("{at}.{flag}"),
                    format!("expected true or false, not {other}"),
                ));
            }
        }
    }
    let command = read_command(at, hook)?;
    let on_error = read_on_error(at, event, hook)?;
    let rule_text = match hook.get("rule") {
        None => None,
        Some(Value::String(rule)) => Some(rule.clone()),
        Some(other) => {
            return Err(invalid(
                &format!("{at}.rule"),
                format!("expected text, not {other}"),
            ));
        }
    };
    let rule = match &rule_text {
        None => None,
        Some(text) => Some(read_rule(
            at,
            event,
            text,
            &command,
            (matcher_text, matcher),
        )?),
    };
    Ok(Hook {
        event,
        matcher_text: matcher_text.clone(),
        matcher: matcher.clone(),
        rule_text,
        rule,
        command,
        args: read_args(at, hook)?,
        timeout: read_timeout(at, hook)?,
        on_error,
        status_message: read_status(at, hook)?,
        digest: String::new(),
    }
    .pinned())
}

fn read_command(at: &str, hook: &Map<String, Value>) -> Result<String, HookConfigError> {
    let at = format!("{at}.command");
    match hook.get("command") {
        None => Err(invalid(&at, "missing: the command to run".to_owned())),
        Some(Value::String(c)) if c.trim().is_empty() => Err(invalid(&at, "empty".to_owned())),
        Some(Value::String(c)) if c.len() > MAX_COMMAND_BYTES => Err(invalid(
            &at,
            format!("longer than {MAX_COMMAND_BYTES} bytes"),
        )),
        Some(Value::String(c)) if c.contains('\0') => {
            Err(invalid(&at, "holds a NUL character".to_owned()))
        }
        Some(Value::String(c)) => Ok(c.clone()),
        Some(other) => Err(invalid(&at, format!("expected text, not {other}"))),
    }
}

fn read_args(at: &str, hook: &Map<String, Value>) -> Result<Option<Vec<String>>, HookConfigError> {
    let Some(args) = hook.get("args") else {
        return Ok(None);
    };
    let at = format!("{at}.args");
    let Some(args) = args.as_array() else {
        return Err(invalid(
            &at,
            "expected a list of arguments (text)".to_owned(),
        ));
    };
    if args.len() > MAX_ARGS {
        return Err(invalid(&at, format!("more than {MAX_ARGS} arguments")));
    }
    args.iter()
        .enumerate()
        .map(|(i, arg)| match arg {
            Value::String(a) if a.len() > MAX_ARG_BYTES => Err(invalid(
                &format!("{at}[{i}]"),
                format!("longer than {MAX_ARG_BYTES} bytes"),
            )),
            Value::String(a) if a.contains('\0') => Err(invalid(
                &format!("{at}[{i}]"),
                "holds a NUL character".to_owned(),
            )),
            Value::String(a) => Ok(a.clone()),
            other => Err(invalid(
                &format!("{at}[{i}]"),
                format!("expected text, not {other}"),
            )),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn read_timeout(at: &str, hook: &Map<String, Value>) -> Result<Option<u32>, HookConfigError> {
    let Some(value) = hook.get("timeout") else {
        return Ok(None);
    };
    let at = format!("{at}.timeout");
    match value.as_u64() {
        Some(0) => Err(invalid(&at, "must be at least 1 second".to_owned())),
        Some(secs) if secs <= u64::from(MAX_TIMEOUT_SECS) => Ok(u32::try_from(secs).ok()),
        Some(secs) => Err(invalid(
            &at,
            format!(
                "{secs} seconds is over the {MAX_TIMEOUT_SECS}-second limit (`timeout` is in seconds, in Claude Code and Codex too)"
            ),
        )),
        None => Err(invalid(
            &at,
            format!("expected a whole number of seconds, not {value}"),
        )),
    }
}

fn read_on_error(
    at: &str,
    event: HookPoint,
    hook: &Map<String, Value>,
) -> Result<Option<OnError>, HookConfigError> {
    let on_error = match hook.get("onError") {
        None => None,
        Some(Value::String(s)) if s == "open" => Some(OnError::Open),
        Some(Value::String(s)) if s == "closed" => Some(OnError::Closed),
        Some(other) => {
            return Err(invalid(
                &format!("{at}.onError"),
                format!("expected \"open\" or \"closed\", not {other}"),
            ));
        }
    };
    let on_failure = match hook.get("onFailure") {
        None => None,
        Some(Value::String(s)) if s == "continue" => Some(OnError::Open),
        Some(Value::String(s)) if s == "block" => Some(OnError::Closed),
        Some(other) => {
            return Err(invalid(
                &format!("{at}.onFailure"),
                format!("expected \"continue\" or \"block\", not {other}"),
            ));
        }
    };
    if on_error.is_some() && on_failure.is_some() {
        return Err(invalid(
            at,
            "give one of `onError` and `onFailure` (they mean the same)".to_owned(),
        ));
    }
    let on_error = on_error.or(on_failure);
    if on_error == Some(OnError::Closed) && !event.can_block() {
        return Err(unsupported(
            at,
            "onError: closed",
            &format!("a {event} hook holds nothing back, so its failure cannot either"),
        ));
    }
    Ok(on_error)
}

fn read_rule(
    at: &str,
    event: HookPoint,
    text: &str,
    command: &str,
    (matcher_text, matcher): (&Option<String>, &Matcher),
) -> Result<HookRule, HookConfigError> {
    let error = |reason: String| HookConfigError::BadRule {
        at: format!("{at}.rule"),
        rule: text.to_owned(),
        hook: format!("`{}`", snippet(command)),
        reason,
    };
    if !event.is_tool_event() {
        return Err(error(format!(
            "a rule narrows tool calls, and {event} hooks have none"
        )));
    }
    let rule = HookRule::parse(text).map_err(error)?;
    if !rule.tool.ends_with('*') && !matcher.matches_tool(&rule.tool) {
        return Err(error(format!(
            "the group's matcher `{}` never matches {}, so this hook would never run",
            matcher_text.as_deref().unwrap_or_default(),
            rule.tool
        )));
    }
    Ok(rule)
}

fn read_status(at: &str, hook: &Map<String, Value>) -> Result<Option<String>, HookConfigError> {
    match hook.get("statusMessage") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.len() > MAX_STATUS_MESSAGE_BYTES => Err(invalid(
            &format!("{at}.statusMessage"),
            format!("longer than {MAX_STATUS_MESSAGE_BYTES} bytes"),
        )),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(
            &format!("{at}.statusMessage"),
            format!("expected text, not {other}"),
        )),
    }
}

/// The first hook's command, quoted, to name a group in an error.
fn first_command(hooks: &[Value]) -> String {
    hooks
        .first()
        .and_then(|h| h.get("command"))
        .and_then(Value::as_str)
        .map_or_else(
            || "an empty group".to_owned(),
            |c| format!("`{}`", snippet(c)),
        )
}

fn object<'a>(
    value: &'a Value,
    at: &str,
    what: &str,
) -> Result<&'a Map<String, Value>, HookConfigError> {
    value
        .as_object()
        .ok_or_else(|| invalid(at, format!("expected {what}")))
}

fn invalid(at: &str, reason: String) -> HookConfigError {
    HookConfigError::Invalid {
        at: at.to_owned(),
        reason,
    }
}

fn unsupported(at: &str, key: &str, why: &str) -> HookConfigError {
    HookConfigError::UnsupportedKey {
        at: at.to_owned(),
        key: key.to_owned(),
        why: why.to_owned(),
    }
}
