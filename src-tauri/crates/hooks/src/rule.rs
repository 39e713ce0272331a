//! A hook's `rule`: Paddock's own narrowing, a rule in the grants' syntax that the call must
//! match for the hook to run: `bash(git push *)` (shell-aware command words), or
//! `file_write(src/**)` (a path glob in the workspace), or `mcp__github__*` (any call of
//! those tools). It is matched by `paddock-rules` itself, never by a second matcher: the
//! pattern is compiled as a one-rule [`Rules`] and the call is decided by it exactly as the
//! grants decide it.
//!
//! The settings give rules as `{"bash": [{"allow": "git push *"}]}`; a hook names one rule in
//! one string, `tool(pattern)`, the form Claude Code's permission rules use (`Bash(git push
//! *)`); the tool may be named the Claude Code way, as in matchers. A tool without a
//! pattern means any call of it.
//!
//! The rule is compiled as a deny rule so that `Rules::decide` reports whether *any* part of
//! a bash command matches (a deny rule catches `cd x && git push`; an allow rule would need
//! every part). A command the rules cannot read whole (a substitution, `eval`, a parse error)
//! comes back as an Ask, and counts as a match: a hook guarding `git push` then sees every
//! call that might run it, which errs on the side of running the hook.

use paddock_rules::{Action, MAX_PATTERN_BYTES, RuleSpec, Rules};

use crate::subject::CallInfo;
use crate::tools::{self, ToolName};

/// Longest rule, in bytes: a pattern and a tool name.
pub const MAX_RULE_BYTES: usize = MAX_PATTERN_BYTES + 256;

/// A compiled hook rule.
#[derive(Debug, Clone)]
pub(crate) struct HookRule {
    /// Paddock's name of the tool (or the `mcp__server__*` key) the rule names.
    pub(crate) tool: String,
    rules: Rules,
}

impl HookRule {
    /// Reads `tool(pattern)` or `tool`; the error says what is wrong, in the rules' words.
    pub(crate) fn parse(text: &str) -> Result<HookRule, String> {
        if text.len() > MAX_RULE_BYTES {
            return Err(format!("longer than {MAX_RULE_BYTES} bytes"));
        }
        let (name, pattern) = match text.split_once('(') {
            Some((name, rest)) => match rest.strip_suffix(')') {
                Some(pattern) => (name, pattern),
                None => {
                    return Err(
                        "expected `tool(pattern)`, like `bash(git push *)`: the `)` is missing"
                            .to_owned(),
                    );
                }
            },
            None => (text, "*"),
        };
        if name.is_empty() {
            return Err("expected `tool(pattern)`, like `bash(git push *)`".to_owned());
        }
        let tool = if name.starts_with("mcp__") {
            // An MCP key (`mcp__github__*` too) is checked by the rules themselves.
            name.to_owned()
        } else {
            match tools::read(name)? {
                ToolName::Paddock(tool) => tool,
                ToolName::Absent => return Err(format!("Paddock has no tool `{name}`")),
            }
        };
        let spec = RuleSpec {
            tool: tool.clone(),
            action: Action::Deny,
            pattern: pattern.to_owned(),
        };
        let rules = Rules::compile(&[spec]).map_err(|e| match e {
            paddock_rules::RuleError::Shape { reason }
            | paddock_rules::RuleError::Key { reason, .. }
            | paddock_rules::RuleError::Rule { reason, .. } => reason,
        })?;
        Ok(HookRule { tool, rules })
    }

    /// Whether the call matches (or, for a command the rules cannot read whole, may match).
    pub(crate) fn matches(&self, call: &CallInfo<'_>) -> bool {
        let verdict = self.rules.decide(call.tool, call.input, call.workspace);
        matches!(verdict.action, Some(Action::Deny | Action::Ask))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;

    fn call<'a>(tool: &'a str, input: &'a serde_json::Value) -> CallInfo<'a> {
        CallInfo {
            tool,
            input,
            workspace: Path::new("/w"),
        }
    }

    #[test]
    fn forms_are_read() {
        assert_eq!(HookRule::parse("bash(git push *)").unwrap().tool, "bash");
        assert_eq!(HookRule::parse("Bash(git push *)").unwrap().tool, "bash");
        assert_eq!(HookRule::parse("Write(src/**)").unwrap().tool, "file_write");
        assert_eq!(HookRule::parse("mcp__gh__*").unwrap().tool, "mcp__gh__*");
        assert_eq!(HookRule::parse("web_fetch").unwrap().tool, "web_fetch");
    }

    #[test]
    fn bad_rules_say_why() {
        assert!(
            HookRule::parse("bash(git push *")
                .unwrap_err()
                .contains("`)`")
        );
        assert!(HookRule::parse("(x)").is_err());
        assert!(
            HookRule::parse("bsh(x)")
                .unwrap_err()
                .contains("unknown tool")
        );
        assert!(HookRule::parse("bash()").unwrap_err().contains("empty"));
        assert!(HookRule::parse("web_fetch(example.com)").is_err());
        assert!(
            HookRule::parse("NotebookEdit(x)")
                .unwrap_err()
                .contains("no tool")
        );
    }

    #[test]
    fn a_command_that_hides_what_runs_counts_as_a_match() {
        let rule = HookRule::parse("bash(git push *)").unwrap();
        let input = json!({"command": "echo $(date)"});
        assert!(rule.matches(&call("bash", &input)));
        let input = json!({"command": "git status"});
        assert!(!rule.matches(&call("bash", &input)));
    }
}
