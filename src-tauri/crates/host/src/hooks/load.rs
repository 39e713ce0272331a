//! Where hooks come from: the user's own file in Paddock's config folder (`hooks.json`, no
//! trust needed: the user wrote it) and the project's settings (`hooks`, each hook a gated
//! field pinned to its digest: a cloned repository's hook waits for trust, and a changed hook
//! asks again).

use std::path::{Path, PathBuf};

use paddock_hooks::{Hook, HooksConfig};
use paddock_protocol::ProjectSettings;
use serde_json::{Map, Value, json};

use crate::HostError;
use crate::field_error::FieldError;
use crate::hooks::pins::ScriptPins;

/// The user's hooks file, in Paddock's config folder.
pub const USER_HOOKS_FILE: &str = "hooks.json";
/// Largest hooks file read.
const MAX_HOOKS_FILE_BYTES: u64 = 1024 * 1024;

/// Where a hook was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookSource {
    /// The user's own `hooks.json`.
    User,
    /// The project's settings (after trust).
    Project,
}

impl HookSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "yours",
            Self::Project => "project",
        }
    }
}

/// The user's hooks file, `<config>/hooks.json`.
pub fn user_hooks_path(config_dir: &Path) -> PathBuf {
    config_dir.join(USER_HOOKS_FILE)
}

/// The user's hooks (none when the file does not exist). A file that cannot be read or used
/// is an error naming it: a guard the user relies on never silently goes missing.
pub fn user_hooks(config_dir: &Path) -> Result<HooksConfig, HostError> {
    let path = user_hooks_path(config_dir);
    // Never blocks on a FIFO put there; the user's file may be a link.
    let text = match paddock_guard::read_regular_text(
        &path,
        MAX_HOOKS_FILE_BYTES,
        paddock_guard::Links::Follow,
    ) {
        Ok(text) => text,
        Err(e) if e.is_missing() => return Ok(HooksConfig::default()),
        Err(e) => return Err(broken(&path, e.to_string())),
    };
    HooksConfig::from_json_text(&text).map_err(|e| broken(&path, e.to_string()))
}

fn broken(path: &Path, why: String) -> HostError {
    HostError::UserFile {
        file: "hooks file",
        path: path.to_owned(),
        why,
    }
}

/// The project's hooks as `settings` give them (an unusable `hooks` was refused when the
/// settings were read).
pub fn project_hooks(settings: &ProjectSettings) -> Result<HooksConfig, HostError> {
    match &settings.hooks {
        None => Ok(HooksConfig::default()),
        Some(v) => HooksConfig::from_json(v)
            .map_err(|e| crate::field_error::FieldError::new("hooks", e.to_string()).into()),
    }
}

/// The hooks a run uses: the user's, then the project's (as trust left them), without
/// those the machine's managed policy does not allow.
pub fn sets_for(
    config_dir: &Path,
    project: &crate::Project,
) -> Result<Vec<(HookSource, HooksConfig)>, HostError> {
    let mut sets = vec![
        (HookSource::User, user_hooks(config_dir)?),
        (HookSource::Project, project_hooks(project.settings())?),
    ];
    let policy = project.policy();
    for (_, set) in &mut sets {
        let gone = set.retain(|hook| policy.hook_refusal(hook.command()).is_none());
        if gone > 0 {
            tracing::info!(gone, "hooks the managed policy does not allow are left out");
        }
    }
    Ok(sets)
}

/// The settings check: `hooks` must read.
pub fn validate(s: &ProjectSettings) -> Result<(), FieldError> {
    if let Some(v) = &s.hooks {
        HooksConfig::from_json(v).map_err(|e| FieldError::new("hooks", e.to_string()))?;
    }
    Ok(())
}

/// The trust key of a project hook: its event and digest (a changed hook is a new key).
pub fn trust_key(hook: &Hook) -> String {
    let digest = hook.digest();
    format!(
        "hooks.{}.{}",
        hook.event().name(),
        &digest[..digest.len().min(16)]
    )
}

/// The value trust records for a hook: everything that decides what runs and when, and the
/// content of the project files it runs (`pins`).
pub fn trust_value(hook: &Hook, pins: &ScriptPins) -> Value {
    let mut value = Map::new();
    value.insert("event".into(), json!(hook.event().name()));
    value.insert("matcher".into(), json!(hook.matcher()));
    value.insert("rule".into(), json!(hook.rule()));
    value.insert("command".into(), json!(hook.command()));
    value.insert("args".into(), json!(hook.args()));
    value.insert("timeout".into(), json!(hook.timeout_secs()));
    value.insert("onError".into(), json!(hook.on_error().as_str()));
    value.insert("digest".into(), json!(hook.digest()));
    pins.add_to(&mut value);
    Value::Object(value)
}

/// What a hook would do, in words for the trust prompt (with what trust pins of its
/// scripts, or why it cannot).
pub fn trust_words(hook: &Hook, pins: &ScriptPins) -> String {
    let when = match (hook.event().name(), hook.rule().or(hook.matcher())) {
        ("pre_tool_use", Some(m)) if !m.is_empty() => format!("before each {m} call"),
        ("pre_tool_use", _) => "before every tool call (it may deny or rewrite it)".into(),
        ("post_tool_use", Some(m)) if !m.is_empty() => format!("after each {m} call"),
        ("post_tool_use", _) => "after every tool call".into(),
        ("user_prompt_submit", _) => "on every prompt (it may add to it or block it)".into(),
        ("session_start", _) => "when a session starts".into(),
        ("stop", _) | ("subagent_stop", _) => {
            "when the agent would stop (it may send it on)".into()
        }
        ("pre_compact", _) => "before the conversation is compacted".into(),
        (other, _) => format!("on {other}"),
    };
    let mut command = hook.command().to_owned();
    for arg in hook.args().into_iter().flatten() {
        command.push(' ');
        command.push_str(arg);
    }
    let mut words = format!("run `{command}` {when}, inside the wall");
    if let Some(pinned) = pins.words() {
        words.push_str("; ");
        words.push_str(&pinned);
    }
    words
}

/// The project's hooks in Paddock's shape with only those `trusted` keeps (`None`: none left).
pub fn keep_trusted(hooks: &Value, trusted: impl Fn(&str) -> bool) -> Option<Value> {
    let config = HooksConfig::from_json(hooks).ok()?;
    let mut out: Map<String, Value> = Map::new();
    for hook in config.hooks().filter(|h| trusted(&trust_key(h))) {
        let mut group = Map::new();
        if let Some(m) = hook.matcher() {
            group.insert("matcher".into(), json!(m));
        }
        group.insert("hooks".into(), json!([hook_json(hook)]));
        let groups = out
            .entry(hook.event().name())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = groups {
            list.push(Value::Object(group));
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// One hook as the settings write it.
fn hook_json(hook: &Hook) -> Value {
    let mut h = Map::new();
    h.insert("type".into(), json!("command"));
    h.insert("command".into(), json!(hook.command()));
    if let Some(args) = hook.args() {
        h.insert("args".into(), json!(args));
    }
    h.insert("timeout".into(), json!(hook.timeout_secs()));
    if let Some(rule) = hook.rule() {
        h.insert("rule".into(), json!(rule));
    }
    h.insert("onError".into(), json!(hook.on_error().as_str()));
    Value::Object(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_trusted_hooks_are_kept_and_a_changed_one_is_a_new_key() {
        let hooks = json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./a.sh"}]},
            {"matcher": "Write", "hooks": [{"type": "command", "command": "./b.sh"}]},
        ]});
        let config = HooksConfig::from_json(&hooks).unwrap();
        let keys: Vec<String> = config.hooks().map(trust_key).collect();
        assert_eq!(keys.len(), 2);
        let first = keys[0].clone();
        let kept = keep_trusted(&hooks, |k| k == first).unwrap();
        let back = HooksConfig::from_json(&kept).unwrap();
        assert_eq!(back.len(), 1);
        let hook = back.hooks().next().unwrap();
        assert_eq!((hook.command(), hook.matcher()), ("./a.sh", Some("Bash")));
        assert_eq!(trust_key(hook), first, "the kept hook keeps its key");
        assert!(keep_trusted(&hooks, |_| false).is_none());

        let changed = json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./a.sh --quiet"}]},
        ]});
        let changed = HooksConfig::from_json(&changed).unwrap();
        assert_ne!(trust_key(changed.hooks().next().unwrap()), first);
    }

    #[test]
    fn a_broken_user_file_is_an_error_naming_it_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(user_hooks(dir.path()).unwrap().is_empty());
        std::fs::write(dir.path().join(USER_HOOKS_FILE), r#"{"Notification": []}"#).unwrap();
        let e = user_hooks(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("hooks.json") && e.contains("Notification"),
            "{e}"
        );
    }
}
