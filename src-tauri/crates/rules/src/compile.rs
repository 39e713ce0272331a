//! Compiling the rule list: each spec's tool key and pattern checked and turned into a
//! matcher (command pattern, path glob, or any call), command rules indexed by name.

pub(crate) mod decide;

use std::collections::HashMap;

use crate::error::RuleError;
use crate::path::PathPattern;
use crate::pattern::CommandPattern;
use crate::{Action, BASH_TOOL, FILE_TOOLS, RuleSpec};

/// Most rules compiled; a settings file with more is refused.
pub const MAX_RULES: usize = 10_000;
/// Longest tool key.
pub const MAX_KEY_BYTES: usize = 256;

/// Which tools a rule's key names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolKey {
    Exact(String),
    /// `mcp__github__*`: every tool whose name starts with this.
    Prefix(String),
}

impl ToolKey {
    fn parse(key: &str) -> Result<Self, String> {
        if key.is_empty() {
            return Err("the tool name is empty".to_owned());
        }
        if key.len() > MAX_KEY_BYTES {
            return Err(format!("the tool name is over {MAX_KEY_BYTES} bytes"));
        }
        if key.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err("the tool name has spaces or control characters".to_owned());
        }
        match key.strip_suffix('*') {
            Some(prefix) if prefix.contains('*') => {
                Err("`*` is only allowed at the end of a tool name".to_owned())
            }
            Some(prefix) => Ok(Self::Prefix(prefix.to_owned())),
            None if key.contains('*') => {
                Err("`*` is only allowed at the end of a tool name".to_owned())
            }
            None => Ok(Self::Exact(key.to_owned())),
        }
    }

    pub(crate) fn covers(&self, tool: &str) -> bool {
        match self {
            Self::Exact(name) => name == tool,
            Self::Prefix(prefix) => tool.starts_with(prefix.as_str()),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Matcher {
    Command(CommandPattern),
    Path(PathPattern),
    /// `*`: any call of the tool.
    Any,
}

#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub key: ToolKey,
    /// The key as written, and the rule's index in that key's list (`rules.bash[3]`).
    pub key_text: String,
    pub key_index: usize,
    pub action: Action,
    pub pattern: String,
    pub matcher: Matcher,
}

impl Rule {
    /// `rules.bash[1] "git diff *"`.
    pub(crate) fn label(&self) -> String {
        format!(
            "rules.{}[{}] \"{}\"",
            self.key_text,
            self.key_index,
            crate::snippet(&self.pattern)
        )
    }
}

/// Compiled rules, ready to decide calls. Cheap to share (`Arc`) and safe across threads.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    pub(crate) rules: Vec<Rule>,
    /// Bash rules whose pattern names a command plainly, by that name.
    pub(crate) by_name: HashMap<String, Vec<usize>>,
    /// Bash rules whose name is a glob or a path starting with plain characters, by that
    /// start (`lint*` by `lint`).
    pub(crate) by_prefix: HashMap<String, Vec<usize>>,
    /// The lengths of those starts, in bytes, each once: the slices of a name to look up.
    pub(crate) prefix_lens: Vec<usize>,
    /// Every other rule that can apply to bash (`*`, `?x`, prefix keys): checked always.
    pub(crate) bash_generic: Vec<usize>,
    /// git named by its path runs past Paddock's git front on this machine's wall.
    pub(crate) git_paths_unfronted: bool,
}

impl Rules {
    /// Compiles rules in settings order (the order the app shows; precedence is by action).
    /// The error names the first bad rule as the settings file does: `rules.bash[3]: …`.
    pub fn compile(specs: &[RuleSpec]) -> Result<Rules, RuleError> {
        if specs.len() > MAX_RULES {
            return Err(RuleError::Shape {
                reason: format!("{} rules, more than the {MAX_RULES} allowed", specs.len()),
            });
        }
        let mut out = Rules::default();
        let mut per_key: HashMap<&str, usize> = HashMap::new();
        for (i, spec) in specs.iter().enumerate() {
            let key_index = {
                let n = per_key.entry(spec.tool.as_str()).or_insert(0);
                *n += 1;
                *n - 1
            };
            let rule_error = |reason: String| RuleError::Rule {
                tool: spec.tool.clone(),
                index: key_index,
                reason,
            };
            let key = ToolKey::parse(&spec.tool).map_err(|reason| RuleError::Key {
                tool: spec.tool.clone(),
                reason,
            })?;
            let matcher = compile_pattern(&key, &spec.pattern).map_err(rule_error)?;
            match &matcher {
                Matcher::Command(p) => match (p.name_key(), p.name_prefix()) {
                    (Some(name), _) => out.by_name.entry(name).or_default().push(i),
                    (None, Some(start)) => {
                        if !out.prefix_lens.contains(&start.len()) {
                            out.prefix_lens.push(start.len());
                        }
                        out.by_prefix.entry(start).or_default().push(i);
                    }
                    (None, None) => out.bash_generic.push(i),
                },
                _ if key.covers(BASH_TOOL) => out.bash_generic.push(i),
                _ => {}
            }
            out.rules.push(Rule {
                key,
                key_text: spec.tool.clone(),
                key_index,
                action: spec.action,
                pattern: spec.pattern.clone(),
                matcher,
            });
        }
        Ok(out)
    }

    /// Behind a wall that cannot show Paddock's git front over git's own files (Landlock
    /// alone mounts nothing), git named by its path (`/usr/bin/git status`) would run past
    /// the front: with `unfronted`, such a call asks whatever rule allows it.
    #[must_use]
    pub fn with_git_paths_unfronted(mut self, unfronted: bool) -> Self {
        self.git_paths_unfronted = unfronted;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether some rule could allow or ask for a call of `tool` (the tool is then offered
    /// to the model even where its own grant leaves it out).
    pub fn may_allow(&self, tool: &str) -> bool {
        self.rules
            .iter()
            .any(|r| r.action != Action::Deny && r.key.covers(tool))
    }

    /// Indices of the rules whose key covers this tool.
    pub(crate) fn for_tool(&self, tool: &str) -> Vec<usize> {
        (0..self.rules.len())
            .filter(|&i| self.rules[i].key.covers(tool))
            .collect()
    }
}

fn compile_pattern(key: &ToolKey, pattern: &str) -> Result<Matcher, String> {
    if pattern.trim().is_empty() {
        return Err("the pattern is empty".to_owned());
    }
    match key {
        ToolKey::Exact(tool) if tool == BASH_TOOL => {
            CommandPattern::parse(pattern).map(Matcher::Command)
        }
        ToolKey::Exact(tool) if FILE_TOOLS.contains(&tool.as_str()) => {
            PathPattern::parse(pattern).map(Matcher::Path)
        }
        _ if pattern == "*" => Ok(Matcher::Any),
        ToolKey::Prefix(_) => Err(format!(
            "a tool-name pattern takes only \"*\" (any call), not \"{}\": argument rules are only for bash and the file tools",
            crate::snippet(pattern)
        )),
        ToolKey::Exact(_) => Err(format!(
            "argument rules are only for bash and the file tools; use \"*\" (any call), not \"{}\"",
            crate::snippet(pattern)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_keys() {
        assert_eq!(ToolKey::parse("bash"), Ok(ToolKey::Exact("bash".into())));
        assert_eq!(
            ToolKey::parse("mcp__gh__*"),
            Ok(ToolKey::Prefix("mcp__gh__".into()))
        );
        assert_eq!(ToolKey::parse("*"), Ok(ToolKey::Prefix(String::new())));
        assert!(ToolKey::parse("mcp__*__x").is_err());
        assert!(ToolKey::parse("a**").is_err());
        assert!(ToolKey::parse("").is_err());
        assert!(ToolKey::parse("a b").is_err());
        assert!(ToolKey::Prefix("mcp__gh__".into()).covers("mcp__gh__issues"));
        assert!(!ToolKey::Prefix("mcp__gh__".into()).covers("mcp__ghx"));
    }
}
