//! "Always allow": the narrowest rules that would allow a call, for the approval card.

use std::path::Path;

use serde_json::Value;

use crate::compile::decide::path_of;
use crate::path::{Resolved, exact_pattern, resolve};
use crate::pattern::CommandPattern;
use crate::shell::{Role, parse_command};
use crate::{BASH_TOOL, FILE_TOOLS};

/// The narrowest patterns that, as allow rules under `tool`, would allow this call: for bash
/// one pattern per simple command that needs one (its words exactly, quoted where needed);
/// for the file tools the exact path; for other tools `*`. `None` when no rule can allow it:
/// a construct that always asks, a word only known when it runs, a path out of the
/// workspace, input that is not a call of the tool.
pub fn propose(tool: &str, input: &Value, workspace: &Path) -> Option<Vec<String>> {
    if tool == BASH_TOOL {
        let cmd = input.get("command")?.as_str()?;
        let parsed = parse_command(cmd).ok()?;
        if parsed.forced_ask() {
            return None;
        }
        let mut out: Vec<String> = Vec::new();
        for part in parsed.parts.iter().filter(|p| p.role == Role::Command) {
            let pattern = CommandPattern::exact(&part.literal_words()?);
            if !out.contains(&pattern) {
                out.push(pattern);
            }
        }
        return (!out.is_empty()).then_some(out);
    }
    if FILE_TOOLS.contains(&tool) {
        return match resolve(path_of(tool, input)?, workspace) {
            Resolved::Inside(path) => Some(vec![exact_pattern(&path)]),
            Resolved::Outside(_) => None,
        };
    }
    Some(vec!["*".to_owned()])
}
