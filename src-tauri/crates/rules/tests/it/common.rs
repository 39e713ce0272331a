//! Helpers shared by the test modules.

use std::path::Path;

use paddock_rules::{Action, RuleSpec, Rules, Verdict};
use serde_json::json;

pub const WORKSPACE: &str = "/ws/project";

pub fn spec(tool: &str, action: Action, pattern: &str) -> RuleSpec {
    RuleSpec {
        tool: tool.to_owned(),
        action,
        pattern: pattern.to_owned(),
    }
}

/// Bash rules from `(action, pattern)` pairs.
pub fn bash_rules(rules: &[(Action, &str)]) -> Rules {
    let specs: Vec<RuleSpec> = rules.iter().map(|(a, p)| spec("bash", *a, p)).collect();
    Rules::compile(&specs).expect("rules compile")
}

pub fn bash(rules: &Rules, cmd: &str) -> Verdict {
    rules.decide("bash", &json!({ "command": cmd }), Path::new(WORKSPACE))
}
