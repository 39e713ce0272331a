//! The project's argument rules (`rules` in the settings) as the core sees them: compiled by
//! `paddock-rules`, behind the core's [`CallRules`]. Also what both shells do with them:
//! explain a call without running it, and save the rules "Always allow" proposes.

use std::path::PathBuf;
use std::sync::Arc;

use paddock_core::{CallRules, RuleBook, RuleVerdict};
use paddock_protocol::{Grant, ProjectSettings, RuleEntry};
use paddock_rules::{Action, RuleError, RuleSpec, Rules};
use serde_json::Value;

use crate::field_error::FieldError;
use crate::{HostError, Project};

/// Most rules "Always allow" saves at once (one per simple command of a call).
const MAX_PROPOSED: usize = 16;

/// Compiled rules over one workspace (file-tool paths are relative to it).
pub struct ProjectRules {
    rules: Rules,
    /// The managed policy's deny rules, apart from the project's: never shown or edited
    /// as the project's own, and named as the policy's in every `why`.
    managed: Option<ManagedRules>,
    workspace: PathBuf,
}

struct ManagedRules {
    rules: Rules,
    /// Per compiled rule: its pattern and the policy file it came from.
    origins: Vec<(String, PathBuf)>,
}

impl ManagedRules {
    fn of(policy: &crate::managed::ManagedPolicy) -> Result<Option<Self>, HostError> {
        if policy.deny_rules.is_empty() {
            return Ok(None);
        }
        let specs: Vec<RuleSpec> = policy
            .deny_rules
            .iter()
            .map(|(tool, pattern, _)| RuleSpec {
                tool: tool.clone(),
                action: Action::Deny,
                pattern: pattern.clone(),
            })
            .collect();
        let rules = Rules::compile(&specs).map_err(|e| crate::managed::PolicyFileError {
            path: policy.files.first().cloned().unwrap_or_default(),
            why: e.to_string(),
        })?;
        let origins = policy
            .deny_rules
            .iter()
            .map(|(_, pattern, file)| (pattern.clone(), file.clone()))
            .collect();
        Ok(Some(Self { rules, origins }))
    }

    /// The policy's verdict, its `why` naming the policy file.
    fn decide(&self, verdict: paddock_rules::Verdict) -> Option<RuleVerdict> {
        let action = verdict.action?;
        let named = verdict
            .matched
            .first()
            .and_then(|&i| self.origins.get(i))
            .map(|(pattern, file)| format!(" (\"{pattern}\" in {})", file.display()))
            .unwrap_or_default();
        Some(RuleVerdict {
            action: Some(grant_of(action)),
            why: format!("the managed policy: {}{named}", verdict.why),
        })
    }
}

impl ProjectRules {
    /// The project's verdict under the policy's: its deny wins over all, its ask over
    /// the project's allow.
    fn under_policy(
        &self,
        project: RuleVerdict,
        managed: impl FnOnce(&ManagedRules) -> paddock_rules::Verdict,
    ) -> RuleVerdict {
        let Some(m) = self.managed.as_ref() else {
            return project;
        };
        match m.decide(managed(m)) {
            Some(v) if v.action == Some(Grant::Deny) => v,
            Some(v) if project.action != Some(Grant::Deny) => v,
            _ => project,
        }
    }
}

impl CallRules for ProjectRules {
    fn decide(&self, tool: &str, input: &Value) -> RuleVerdict {
        let project = if self.rules.is_empty() {
            RuleVerdict {
                action: None,
                why: String::new(),
            }
        } else {
            // File tools: judged where the path leads through links as well as where it
            // says.
            let verdict = crate::rule_paths::decide(&self.rules, tool, input, &self.workspace);
            RuleVerdict {
                action: verdict.action.map(grant_of),
                why: verdict.why,
            }
        };
        self.under_policy(project, |m| {
            crate::rule_paths::decide(&m.rules, tool, input, &self.workspace)
        })
    }

    fn may_allow(&self, tool: &str) -> bool {
        self.rules.may_allow(tool)
    }

    // A found path is real (the walker follows no link): judged as named, without resolving.
    fn decide_found(&self, tool: &str, rel: &str) -> RuleVerdict {
        let input = serde_json::json!({ "path": rel });
        let project = if self.rules.is_empty() {
            RuleVerdict {
                action: None,
                why: String::new(),
            }
        } else {
            let verdict = self.rules.decide(tool, &input, &self.workspace);
            RuleVerdict {
                action: verdict.action.map(grant_of),
                why: verdict.why,
            }
        };
        self.under_policy(project, |m| m.rules.decide(tool, &input, &self.workspace))
    }

    fn propose(&self, tool: &str, input: &Value) -> Option<Vec<String>> {
        crate::rule_paths::propose(tool, input, &self.workspace)
    }
}

fn grant_of(action: Action) -> Grant {
    match action {
        Action::Allow => Grant::Allow,
        Action::Ask => Grant::Ask,
        Action::Deny => Grant::Deny,
    }
}

/// The settings' rules in file order (per tool, in list order).
pub fn specs(s: &ProjectSettings) -> Vec<RuleSpec> {
    s.rules
        .iter()
        .flat_map(|(tool, list)| {
            list.iter().map(move |entry| RuleSpec {
                tool: tool.clone(),
                action: match entry {
                    RuleEntry::Allow(_) => Action::Allow,
                    RuleEntry::Ask(_) => Action::Ask,
                    RuleEntry::Deny(_) => Action::Deny,
                },
                pattern: entry.pattern().to_owned(),
            })
        })
        .collect()
}

/// Compiles the settings' rules; the error names the rule as the file does (`rules.bash[3]`).
pub fn compile(s: &ProjectSettings) -> Result<Rules, FieldError> {
    Rules::compile(&specs(s)).map_err(|e| match e {
        RuleError::Shape { reason } => FieldError::new("rules", reason),
        RuleError::Key { tool, reason } => FieldError::new(format!("rules.{tool}"), reason),
        RuleError::Rule {
            tool,
            index,
            reason,
        } => FieldError::new(format!("rules.{tool}[{index}]"), reason),
    })
}

/// The project's rules for the core; there even when empty, so that "Always allow" can
/// propose the first rule.
pub fn for_project(project: &Project) -> Result<Option<Arc<dyn CallRules>>, HostError> {
    // Which engine walls bash does not depend on the network rules.
    let fronted = paddock_wall::front_covers_git_paths(&project.sandbox_config(None));
    let rules = compile(project.settings())?.with_git_paths_unfronted(!fronted);
    Ok(Some(Arc::new(ProjectRules {
        rules,
        managed: ManagedRules::of(project.policy())?,
        workspace: project.workspace_root(),
    })))
}

/// Puts the project's rules in `book` (every run sharing it sees them at its next call).
pub fn load_into(book: &RuleBook, project: &Project) -> Result<(), HostError> {
    book.replace(for_project(project)?);
    Ok(())
}

/// Adds allow rules for `tool` (those not already there), in the user's words: the change
/// "Always allow" saves. Checked as the settings file would be.
pub fn add_allow_rules(
    s: &mut ProjectSettings,
    tool: &str,
    patterns: &[String],
) -> Result<(), FieldError> {
    if patterns.is_empty() {
        return Err(FieldError::new(
            format!("rules.{tool}"),
            "no pattern to save",
        ));
    }
    if patterns.len() > MAX_PROPOSED {
        return Err(FieldError::new(
            format!("rules.{tool}"),
            format!("at most {MAX_PROPOSED} rules at once"),
        ));
    }
    let list = s.rules.entry(tool.to_owned()).or_default();
    for pattern in patterns {
        let pattern = pattern.trim();
        let entry = RuleEntry::Allow(pattern.to_owned());
        if !list.contains(&entry) {
            list.push(entry);
        }
    }
    compile(s).map(|_| ())
}
