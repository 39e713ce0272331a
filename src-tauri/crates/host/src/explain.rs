//! "Test a call" and `paddock rules explain`: which grant or rule would decide a call, and
//! the rules "Always allow" would propose, without running anything.

use paddock_core::Gate;
use paddock_protocol::{CallExplanation, Grant};
use serde_json::Value;

use crate::tools::{ProjectTools, RunLimits};
use crate::{HostError, Project};

/// What the grants and rules would do with one call of `tool` with `input`, without running
/// it. The input is the tool's JSON input as a model would send it.
/// `config_dir` holds the user's own hooks (`hooks.json`); the project's are in its settings.
pub fn explain(
    project: &Project,
    limits: &RunLimits,
    tool: &str,
    input: &Value,
    config_dir: &std::path::Path,
) -> Result<CallExplanation, HostError> {
    let tools = ProjectTools::new(project, Vec::new(), None, Vec::new(), limits)?;
    let resolved = tools.resolved();
    let decision = resolved.check_call(tool, input);
    let verdict = match decision.gate {
        Gate::Allow => Grant::Allow,
        Gate::Ask => Grant::Ask,
        Gate::NotGranted | Gate::Unknown => Grant::Deny,
    };
    let proposed_rules = match verdict {
        Grant::Ask => resolved.propose(tool, input).unwrap_or_default(),
        _ => Vec::new(),
    };
    Ok(CallExplanation {
        tool: tool.to_owned(),
        decision: verdict,
        why: decision.why,
        by_rule: decision.by_rule,
        proposed_rules,
        hooks: crate::hooks::before_call(config_dir, project, tool, input)?,
    })
}

/// A tool's input from what a person types: the command for bash, the path for the file
/// tools, else the text as JSON (`{}` when empty).
pub fn input_for(tool: &str, text: &str) -> Result<Value, HostError> {
    if tool == paddock_rules::BASH_TOOL {
        return Ok(serde_json::json!({ "command": text }));
    }
    if paddock_rules::FILE_TOOLS.contains(&tool) {
        let mut input = serde_json::json!({ "path": text });
        if matches!(tool, "grep" | "glob") {
            input["pattern"] = Value::String("*".to_owned());
        }
        return Ok(input);
    }
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(text).map_err(|e| {
        HostError::from(crate::error::RequestError::InputNotJson {
            tool: tool.to_owned(),
            why: e.to_string(),
        })
    })
}
