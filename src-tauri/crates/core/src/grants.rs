//! Default-deny tool grants: what the model is told, and what may run.
//!
//! Order for built-in tools: preset filter -> allow list -> deny list -> framework deny list.
//! With neither a preset nor an allow list, no built-in tool is granted. `extra` grants
//! single tools on top (the per-tool Allow / Ask of the settings and the UI). Runtime tools
//! (MCP) skip preset and allow list but obey both deny lists. The ask list turns a granted
//! tool's Allow into Ask; it never grants by itself.

use std::collections::BTreeMap;
use std::sync::Arc;

use paddock_protocol::{Grant, ToolGrantInfo, ToolPreset, ToolSpec};

use crate::rules::RuleBook;
use crate::tool::{Tool, ToolRegistry};

/// The user's (and the host's) grant settings for one agent. Names in the lists may end in
/// `__*` to cover every tool of an MCP server (`mcp__github__*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantPolicy {
    pub preset: Option<ToolPreset>,
    /// When non-empty, only these built-in tools are granted (narrows the preset).
    pub allow: Vec<String>,
    /// Tools granted one by one on top of the preset and allow list.
    pub extra: Vec<String>,
    /// Granted tools whose calls wait for the user's approval.
    pub ask: Vec<String>,
    pub deny: Vec<String>,
    /// Hard rules from the host that the user's lists cannot lift, with the reason shown.
    pub framework_deny: Vec<(String, String)>,
    /// The run's ceiling (a preset the user gave for this run): a tool that can change
    /// things and is not in it is denied, however the settings, a teammate or an MCP server
    /// grant it, unless `ceiling_exceptions` names it (the user's own flags).
    pub ceiling: Option<ToolPreset>,
    pub ceiling_exceptions: Vec<String>,
    /// What a runtime (MCP) tool nobody named gets: Ask where someone can answer, Deny in
    /// a headless run.
    pub runtime_default: Grant,
    /// The grants of the agent that started this one: a teammate gets no more (Ask stays Ask).
    pub limit: Option<Arc<BTreeMap<String, Grant>>>,
    /// Rules over a call's arguments, refining the per-tool grants call by call.
    pub rules: RuleBook,
}

impl Default for GrantPolicy {
    fn default() -> Self {
        Self {
            preset: None,
            allow: Vec::new(),
            extra: Vec::new(),
            ask: Vec::new(),
            deny: Vec::new(),
            framework_deny: Vec::new(),
            ceiling: None,
            ceiling_exceptions: Vec::new(),
            runtime_default: Grant::Ask,
            limit: None,
            rules: RuleBook::default(),
        }
    }
}

/// What one gate check says about a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Allow,
    Ask,
    /// Registered, but not granted to this agent.
    NotGranted,
    /// No tool by this name exists.
    Unknown,
}

/// The outcome of resolving a [`GrantPolicy`] against a registry: the granted tools
/// themselves, so nothing outside this set can run. Computed once per run.
#[derive(Clone, Default)]
pub struct ResolvedTools {
    specs: Vec<ToolSpec>,
    /// The tools the model is told about, with their own grant. Deny here means "only what
    /// a rule allows" (the tool is not granted, but rules name it).
    granted: BTreeMap<String, (Grant, Arc<dyn Tool>)>,
    info: Vec<ToolGrantInfo>,
    warnings: Vec<String>,
    rules: RuleBook,
    /// Grants of the caller (a teammate's calls allowed by rules still ask where it asks).
    limit: Option<Arc<BTreeMap<String, Grant>>>,
}

/// A call's gate, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub gate: Gate,
    /// What decided it: a rule, the tool's grant, or that no rule matched.
    pub why: String,
    /// Decided by an argument rule (a deny is then the rule's).
    pub by_rule: bool,
}

impl std::fmt::Debug for ResolvedTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedTools")
            .field("info", &self.info)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

impl ResolvedTools {
    /// The tools the model is told about.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// Every registered tool with its effective state and why.
    pub fn info(&self) -> &[ToolGrantInfo] {
        &self.info
    }

    /// Settings that probably do not do what the user meant.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The tools the model is told about (granted, or named by rules).
    pub fn granted_names(&self) -> impl Iterator<Item = &str> {
        self.granted.keys().map(String::as_str)
    }

    /// Each granted tool with Allow or Ask: the limit for a teammate this agent starts.
    pub fn grants(&self) -> BTreeMap<String, Grant> {
        self.granted
            .iter()
            .filter(|(_, (grant, _))| *grant != Grant::Deny)
            .map(|(name, (grant, _))| (name.clone(), *grant))
            .collect()
    }

    /// The tool-level gate, arguments aside.
    pub fn check(&self, name: &str) -> Gate {
        match self.granted.get(name) {
            Some((Grant::Allow, _)) => Gate::Allow,
            Some((Grant::Ask, _)) => Gate::Ask,
            Some((Grant::Deny, _)) => Gate::NotGranted,
            None if self.info.iter().any(|i| i.name == name) => Gate::NotGranted,
            None => Gate::Unknown,
        }
    }

    /// The execution gate for one call: the tool's grant refined by the argument rules.
    /// Checked before every call, whatever the model was told.
    pub fn check_call(&self, name: &str, input: &serde_json::Value) -> Decision {
        let base = self.check(name);
        let why_base = || {
            self.info
                .iter()
                .find(|i| i.name == name)
                .map_or_else(|| "no tool by this name".to_owned(), |i| i.reason.clone())
        };
        let rules = match (self.granted.get(name), self.rules.current()) {
            (Some(_), Some(rules)) => rules,
            _ => {
                return Decision {
                    gate: base,
                    why: why_base(),
                    by_rule: false,
                };
            }
        };
        let verdict = rules.decide(name, input);
        let limited_ask = matches!(
            self.limit.as_ref().map(|l| l.get(name)),
            Some(Some(Grant::Ask))
        );
        match verdict.action {
            Some(Grant::Deny) => Decision {
                gate: Gate::NotGranted,
                why: verdict.why,
                by_rule: true,
            },
            Some(Grant::Ask) => Decision {
                gate: Gate::Ask,
                why: verdict.why,
                by_rule: true,
            },
            Some(Grant::Allow) => Decision {
                gate: if limited_ask { Gate::Ask } else { Gate::Allow },
                why: verdict.why,
                by_rule: true,
            },
            None if verdict.why.is_empty() => Decision {
                gate: base,
                why: why_base(),
                by_rule: false,
            },
            None => Decision {
                gate: base,
                why: format!("{}; {}", verdict.why, why_base()),
                by_rule: false,
            },
        }
    }

    /// The narrowest rules that would allow this call, for the approval card.
    pub fn propose(&self, name: &str, input: &serde_json::Value) -> Option<Vec<String>> {
        self.rules.current()?.propose(name, input)
    }

    /// A tool the model was told about; whether a call may run is [`Self::check_call`]'s.
    pub fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.granted.get(name).map(|(_, tool)| tool)
    }
}

/// Whether `list` names `name`, exactly or through a server pattern (`mcp__srv__*`).
fn listed(list: &[String], name: &str) -> bool {
    list.iter().any(|n| {
        n == name
            || n.strip_suffix('*')
                .is_some_and(|prefix| prefix.ends_with("__") && name.starts_with(prefix))
    })
}

impl GrantPolicy {
    pub fn with_preset(preset: ToolPreset) -> Self {
        Self {
            preset: Some(preset),
            ..Self::default()
        }
    }

    /// The product's model (settings, CLI flags, the grants screen): a preset plus per-tool
    /// Allow / Ask / Deny that add to it or take from it.
    pub fn from_overrides<'a>(
        preset: Option<ToolPreset>,
        overrides: impl IntoIterator<Item = (&'a str, Grant)>,
    ) -> Self {
        let mut policy = Self {
            preset,
            ..Self::default()
        };
        for (name, grant) in overrides {
            match grant {
                Grant::Allow => policy.extra.push(name.to_owned()),
                Grant::Ask => {
                    policy.extra.push(name.to_owned());
                    policy.ask.push(name.to_owned());
                }
                Grant::Deny => policy.deny.push(name.to_owned()),
            }
        }
        policy
    }

    pub fn allowing<S: AsRef<str>>(names: &[S]) -> Self {
        Self {
            allow: names.iter().map(|n| n.as_ref().to_owned()).collect(),
            ..Self::default()
        }
    }

    /// Resolves this policy against `registry`.
    pub fn resolve(&self, registry: &ToolRegistry) -> ResolvedTools {
        let mut out = ResolvedTools {
            rules: self.rules.clone(),
            limit: self.limit.clone(),
            ..ResolvedTools::default()
        };
        self.collect_warnings(registry, &mut out.warnings);
        let rules = self.rules.current();
        for (name, tool) in registry.iter() {
            let runtime = registry.is_runtime(name);
            let decided = self.decide(name, runtime);
            // Rules may grant calls of a tool the user's lists leave out, never one the
            // framework forbids or a ceiling or a caller's limit keeps out.
            let user_denied =
                decided.0 == Grant::Deny && !self.framework_deny.iter().any(|(n, _)| n == name);
            let (mut grant, mut reason) = self.bounded(name, tool.mutates(), decided);
            let by_rules = user_denied
                && grant == Grant::Deny
                && rules.as_ref().is_some_and(|r| r.may_allow(name))
                && self
                    .bounded(name, tool.mutates(), (Grant::Ask, String::new()))
                    .0
                    != Grant::Deny;
            if by_rules {
                reason = format!("{reason}; argument rules allow some calls");
            }
            if grant != Grant::Deny || by_rules {
                out.specs.push(tool.spec().clone());
                out.granted.insert(name.to_owned(), (grant, tool.clone()));
            }
            if by_rules {
                grant = Grant::Deny;
            }
            out.info.push(ToolGrantInfo {
                name: name.to_owned(),
                grant,
                reason,
                runtime,
                mutates: tool.mutates(),
            });
        }
        out
    }

    fn decide(&self, name: &str, runtime: bool) -> (Grant, String) {
        if let Some((_, why)) = self.framework_deny.iter().find(|(n, _)| n == name) {
            return (Grant::Deny, format!("denied — {why} (Paddock rule)"));
        }
        if listed(&self.deny, name) {
            return (Grant::Deny, "denied — on the deny list".to_owned());
        }
        let source = if runtime {
            if !listed(&self.extra, name) {
                return match self.runtime_default {
                    Grant::Allow => (
                        Grant::Allow,
                        "allowed — runtime tools are allowed for this agent".to_owned(),
                    ),
                    Grant::Deny => (
                        Grant::Deny,
                        "denied — MCP tools run headless only when granted by name or for \
                         their server (mcp__<server>__*)"
                            .to_owned(),
                    ),
                    Grant::Ask => (
                        Grant::Ask,
                        "ask — MCP tools ask before each call until granted by name or for \
                         their server (mcp__<server>__*)"
                            .to_owned(),
                    ),
                };
            }
            "granted for this MCP tool or its server".to_owned()
        } else {
            match (self.filter(name), listed(&self.extra, name)) {
                (Ok(source), _) => source,
                (Err(_), true) => "granted individually".to_owned(),
                (Err(denied), false) => return (Grant::Deny, denied),
            }
        };
        if listed(&self.ask, name) {
            (Grant::Ask, format!("ask — {source}, on the ask list"))
        } else {
            (Grant::Allow, format!("allowed — {source}"))
        }
    }

    /// The run's ceiling and the caller's limit, over a decision.
    fn bounded(&self, name: &str, mutates: bool, decided: (Grant, String)) -> (Grant, String) {
        let (grant, reason) = decided;
        if grant == Grant::Deny {
            return (grant, reason);
        }
        if let Some(ceiling) = self.ceiling
            && mutates
            && !ceiling.tools().contains(&name)
            && !listed(&self.ceiling_exceptions, name)
        {
            return (
                Grant::Deny,
                format!(
                    "denied — it can change things, and this run is limited to the {} preset",
                    ceiling.as_str()
                ),
            );
        }
        match self.limit.as_ref().map(|l| l.get(name)) {
            Some(None) => (
                Grant::Deny,
                "denied — the agent that started this one may not use it".to_owned(),
            ),
            Some(Some(Grant::Ask)) if grant == Grant::Allow => (
                Grant::Ask,
                "ask — the agent that started this one must ask for it".to_owned(),
            ),
            _ => (grant, reason),
        }
    }

    /// Preset and allow list: the source of the grant, or why the tool is denied.
    fn filter(&self, name: &str) -> Result<String, String> {
        match (self.preset, self.allow.is_empty()) {
            (None, true) => {
                Err("denied — no preset or allow list grants built-in tools".to_owned())
            }
            (Some(p), _) if !p.tools().contains(&name) => {
                Err(format!("denied — not in preset {}", p.as_str()))
            }
            (_, false) if !listed(&self.allow, name) => {
                Err("denied — not on the allow list".to_owned())
            }
            (Some(p), true) => Ok(format!("preset {}", p.as_str())),
            (Some(p), false) => Ok(format!("preset {} and the allow list", p.as_str())),
            (None, false) => Ok("the allow list".to_owned()),
        }
    }

    fn collect_warnings(&self, registry: &ToolRegistry, warnings: &mut Vec<String>) {
        if let (Some(p), false) = (self.preset, self.allow.is_empty()) {
            warnings.push(format!(
                "preset {} and an allow list are both set: only tools in both are granted ({})",
                p.as_str(),
                self.allow
                    .iter()
                    .filter(|n| p.tools().contains(&n.as_str()))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        for (list, label) in [
            (&self.allow, "allow"),
            (&self.extra, "grant"),
            (&self.ask, "ask"),
            (&self.deny, "deny"),
        ] {
            for name in list
                .iter()
                .filter(|n| !n.ends_with('*') && !registry.contains(n))
            {
                let hint = closest(name, registry.names())
                    .map(|t| format!(" (did you mean '{t}'?)"))
                    .unwrap_or_default();
                warnings.push(format!(
                    "the {label} list names '{name}', which is not a known tool{hint}"
                ));
            }
        }
    }
}

/// The known name a typo most likely meant: at most two edits away, the nearest first.
fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .map(|k| (edits(name, k), k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance over chars (names are short).
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diag + usize::from(ca != *cb));
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}
