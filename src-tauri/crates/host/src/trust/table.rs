//! Every settings field a folder's file may not use until the user trusts it, as one table:
//! each entry names its place in the file, the items it sets (each waits for trust on its own,
//! with its value and its words), how it is set back while untrusted, and the run option that
//! sets the same thing (which makes its wait moot). Gating, restriction and "waiting for
//! trust" are all read from here, so a gated field cannot be gated on one road and forgotten
//! on another; a test fails when a field of the settings schema is in neither this table
//! nor [`UNGATED`].

use std::path::Path;

use paddock_protocol::{Grant, ProjectSettings, RuleEntry, WorkspaceMode};
use serde_json::{Value, json};

use super::gated::{
    preset_tools, rules_words, server_value, server_words, teammate_value, teammate_words,
};
use crate::RunOptions;

/// Adds one item: its key (the field's place, or below it), canonical value and words.
pub type Add<'a> = &'a mut dyn FnMut(String, Value, String);
/// Whether the user trusts the item with this key.
pub type Trusted<'a> = &'a dyn Fn(&str) -> bool;

/// One gated field.
pub struct GatedField {
    /// Its place in the settings file, as the schema names it (`network.allow`); every key
    /// of its items is this or starts with it and a dot.
    pub field: &'static str,
    /// The items the settings set for it; `root` (the folder) lets a hook pin its scripts.
    items: fn(&ProjectSettings, Option<&Path>, Add<'_>),
    /// Sets back every item `trusted` refuses to Paddock's safe default.
    reset: fn(&mut ProjectSettings, Trusted<'_>),
    /// The run option that sets the field itself: a run with it never uses the file's.
    run_option: Option<fn(&RunOptions) -> bool>,
}

impl GatedField {
    /// Whether `key` is one of this field's items.
    pub fn owns(&self, key: &str) -> bool {
        key == self.field
            || key
                .strip_prefix(self.field)
                .is_some_and(|rest| rest.starts_with('.'))
    }

    /// Whether a run with `options` sets this field itself.
    pub fn set_by(&self, options: &RunOptions) -> bool {
        self.run_option.is_some_and(|f| f(options))
    }
}

/// The fields of the settings that can grant or run nothing, each with why: they describe,
/// narrow or only ask. A new settings field must go here or in [`GATED`].
pub const UNGATED: &[(&str, &str)] = &[
    ("$schema", "names the file's schema"),
    ("version", "the file's format"),
    ("model", "picks a model of the provider you use"),
    ("systemPrompt", "words the model reads; no tool or grant"),
    (
        "replaceSystemPrompt",
        "words the model reads; no tool or grant",
    ),
    ("contextWindow", "a limit"),
    ("compaction", "when the conversation is summarized"),
    ("maxOutputTokens", "a limit"),
    ("images", "whether images are sent to the model you use"),
    ("toolCalling", "how tools are described to the model"),
    ("network.ask", "asks you first for each connection"),
    ("network.deny", "narrows"),
    ("network.maxUploadBytes", "a limit"),
    ("network.maxDownloadBytes", "a limit"),
    (
        "worktree.baseRef",
        "which commit a new worktree starts from",
    ),
    ("hiddenPaths", "narrows"),
    ("autoRunFiles", "narrows: holds more files"),
    ("maxTurns", "a limit"),
    ("maxTokenBudget", "a limit"),
];

/// The gated fields, in the order their items are listed.
pub const GATED: &[GatedField] = &[
    GatedField {
        field: "provider",
        items: |s, _, add| {
            if let Some(p) = s.provider {
                let what = format!(
                    "talk to {} with your API key for it (provider \"{p}\")",
                    p.label()
                );
                add("provider".into(), json!(p.as_str()), what);
            }
        },
        reset: |s, trusted| {
            if !trusted("provider") {
                s.provider = None;
            }
        },
        run_option: Some(|o| o.provider.is_some()),
    },
    GatedField {
        field: "baseUrl",
        items: |s, _, add| {
            if let Some(url) = &s.base_url {
                let what = format!("send your API key and the conversation to {url}");
                add("baseUrl".into(), json!(url), what);
            }
        },
        reset: |s, trusted| {
            if !trusted("baseUrl") {
                s.base_url = None;
            }
        },
        run_option: Some(|o| o.base_url.is_some()),
    },
    GatedField {
        field: "preset",
        items: |s, _, add| {
            if let Some(p) = s.preset {
                let what = format!("grant the {} tools: {}", p.as_str(), preset_tools(p));
                add("preset".into(), json!(p.as_str()), what);
            }
        },
        reset: |s, trusted| {
            if !trusted("preset") {
                s.preset = None;
            }
        },
        run_option: Some(|o| o.preset.is_some()),
    },
    GatedField {
        field: "tools",
        items: |s, _, add| {
            for (name, grant) in &s.tools {
                let what = match grant {
                    Grant::Allow => format!("allow the tool {name} to run"),
                    Grant::Ask => format!("offer the tool {name}, asking before each run"),
                    Grant::Deny => continue,
                };
                add(format!("tools.{name}"), json!(grant), what);
            }
        },
        reset: |s, trusted| {
            s.tools
                .retain(|name, grant| *grant == Grant::Deny || trusted(&format!("tools.{name}")));
        },
        run_option: None,
    },
    GatedField {
        field: "rules",
        items: |s, _, add| {
            for (tool, list) in &s.rules {
                let widening: Vec<&RuleEntry> = list
                    .iter()
                    .filter(|r| !matches!(r, RuleEntry::Deny(_)))
                    .collect();
                if !widening.is_empty() {
                    let what = rules_words(tool, &widening);
                    add(format!("rules.{tool}"), json!(widening), what);
                }
            }
        },
        reset: |s, trusted| {
            for (tool, list) in &mut s.rules {
                if !trusted(&format!("rules.{tool}")) {
                    list.retain(|r| matches!(r, RuleEntry::Deny(_)));
                }
            }
            s.rules.retain(|_, list| !list.is_empty());
        },
        run_option: None,
    },
    GatedField {
        field: "teammates",
        items: |s, _, add| {
            for t in &s.teammates {
                add(
                    format!("teammates.{}", t.name),
                    teammate_value(t),
                    teammate_words(t),
                );
            }
        },
        reset: |s, trusted| {
            s.teammates
                .retain(|t| trusted(&format!("teammates.{}", t.name)));
        },
        run_option: None,
    },
    GatedField {
        field: "workspace",
        items: |s, _, add| {
            if s.workspace == WorkspaceMode::Project {
                let what =
                    "let the agent work in the whole project folder, not only .agent-workspace";
                add("workspace".into(), json!("project"), what.into());
            }
        },
        reset: |s, trusted| {
            if !trusted("workspace") {
                s.workspace = WorkspaceMode::AgentWorkspace;
            }
        },
        run_option: None,
    },
    GatedField {
        field: "bashNetwork",
        items: |s, _, add| {
            if s.bash_network {
                let what = "let bash reach the network";
                add("bashNetwork".into(), json!(true), what.into());
            }
        },
        reset: |s, trusted| {
            if !trusted("bashNetwork") {
                s.bash_network = false;
            }
        },
        run_option: None,
    },
    GatedField {
        field: "network.allow",
        items: |s, _, add| {
            for rule in &s.network.allow {
                let what = format!("let bash reach {rule} without asking");
                add(format!("network.allow.{rule}"), json!(rule), what);
            }
        },
        reset: |s, trusted| {
            s.network
                .allow
                .retain(|r| trusted(&format!("network.allow.{r}")));
        },
        run_option: None,
    },
    GatedField {
        field: "network.presets",
        items: |s, _, add| {
            for preset in &s.network.presets {
                let what = format!(
                    "let bash reach the {} hosts without asking: {}",
                    preset.as_str(),
                    preset.hosts().join(", ")
                );
                let key = format!("network.presets.{}", preset.as_str());
                add(key, json!(preset.as_str()), what);
            }
        },
        reset: |s, trusted| {
            s.network
                .presets
                .retain(|p| trusted(&format!("network.presets.{}", p.as_str())));
        },
        run_option: None,
    },
    GatedField {
        field: "worktree.setup",
        items: |s, _, add| {
            if let Some(setup) = &s.worktree.setup {
                let what =
                    format!("run `{setup}` in each new session's worktree (inside the wall)");
                add("worktree.setup".into(), json!(setup), what);
            }
        },
        reset: |s, trusted| {
            if !trusted("worktree.setup") {
                s.worktree.setup = None;
            }
        },
        run_option: None,
    },
    GatedField {
        field: "pricing",
        items: |s, _, add| {
            for (model, p) in &s.pricing {
                let what = format!(
                    "count {model}'s tokens at ${} in / ${} out per million instead of \
                     Paddock's price list",
                    p.input, p.output
                );
                add(format!("pricing.{model}"), json!(p), what);
            }
        },
        reset: |s, trusted| {
            s.pricing
                .retain(|model, _| trusted(&format!("pricing.{model}")));
        },
        run_option: None,
    },
    GatedField {
        field: "worktree.copy",
        items: |s, _, add| {
            for glob in &s.worktree.copy {
                let what = format!("copy the project's {glob} into each new session's worktree");
                add(format!("worktree.copy.{glob}"), json!(glob), what);
            }
        },
        reset: |s, trusted| {
            s.worktree
                .copy
                .retain(|g| trusted(&format!("worktree.copy.{g}")));
        },
        run_option: None,
    },
    GatedField {
        field: "readablePaths",
        items: |s, _, add| {
            for path in &s.readable_paths {
                let what = format!("let bash read {path} (read-only)");
                add(format!("readablePaths.{path}"), json!(path), what);
            }
        },
        reset: |s, trusted| {
            s.readable_paths
                .retain(|p| trusted(&format!("readablePaths.{p}")));
        },
        run_option: None,
    },
    GatedField {
        field: "allowUnconfinedBash",
        items: |s, _, add| {
            if s.allow_unconfined_bash {
                let what = "run bash without the OS sandbox where the sandbox is unavailable";
                add("allowUnconfinedBash".into(), json!(true), what.into());
            }
        },
        reset: |s, trusted| {
            if !trusted("allowUnconfinedBash") {
                s.allow_unconfined_bash = false;
            }
        },
        run_option: None,
    },
    GatedField {
        field: "hooks",
        // Each hook on its own, keyed by its digest (a changed hook is a new key) and valued
        // with the content of the project files it runs (a changed script is a new value).
        items: |s, root, add| {
            let Some(hooks) = s
                .hooks
                .as_ref()
                .and_then(|h| paddock_hooks::HooksConfig::from_json(h).ok())
            else {
                return;
            };
            let mut seen = std::collections::BTreeSet::new();
            for hook in hooks.hooks() {
                let key = crate::hooks::trust_key(hook);
                if seen.insert(key.clone()) {
                    let pins = root
                        .map(|r| crate::hooks::ScriptPins::scan(hook, r))
                        .unwrap_or_default();
                    let value = crate::hooks::trust_value(hook, &pins);
                    add(key, value, crate::hooks::trust_words(hook, &pins));
                }
            }
        },
        reset: |s, trusted| {
            s.hooks = s
                .hooks
                .as_ref()
                .and_then(|h| crate::hooks::keep_trusted(h, trusted));
        },
        run_option: None,
    },
    GatedField {
        field: "mcpServers",
        items: |s, _, add| {
            for (name, server) in s.mcp_servers.iter().filter(|(_, c)| !c.disabled) {
                add(
                    format!("mcpServers.{name}"),
                    server_value(server),
                    server_words(name, server),
                );
            }
        },
        reset: |s, trusted| {
            s.mcp_servers
                .retain(|name, c| c.disabled || trusted(&format!("mcpServers.{name}")));
        },
        run_option: None,
    },
];

/// Every item of every gated field the settings set, in the table's order.
pub(super) fn items(s: &ProjectSettings, root: Option<&Path>, add: Add<'_>) {
    for field in GATED {
        (field.items)(s, root, add);
    }
}

/// The settings with every item `trusted` refuses set back.
pub(super) fn reset(s: &ProjectSettings, trusted: Trusted<'_>) -> ProjectSettings {
    let mut out = s.clone();
    for field in GATED {
        (field.reset)(&mut out, trusted);
    }
    out
}

/// The field an item belongs to.
pub fn field_of(key: &str) -> Option<&'static GatedField> {
    GATED.iter().find(|f| f.owns(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every field of the settings schema, dotted below the sections that are objects of
    /// their own (`network.allow`); maps, lists and optional objects are fields whole.
    fn schema_fields() -> BTreeSet<String> {
        let schema = serde_json::to_value(schemars::schema_for!(ProjectSettings)).unwrap();
        let defs = schema["$defs"].clone();
        let resolve = |v: &Value| -> Value {
            match v.get("$ref").and_then(Value::as_str) {
                Some(r) => defs[r.trim_start_matches("#/$defs/")].clone(),
                None => v.clone(),
            }
        };
        let mut out = BTreeSet::new();
        let mut todo = vec![(String::new(), schema.clone())];
        while let Some((prefix, node)) = todo.pop() {
            let Some(props) = node.get("properties").and_then(Value::as_object) else {
                continue;
            };
            for (name, sub) in props {
                let path = format!("{prefix}{name}");
                let sub = resolve(sub);
                if sub.get("properties").is_some() {
                    todo.push((format!("{path}."), sub));
                } else {
                    out.insert(path);
                }
            }
        }
        out
    }

    /// A field can grant or run something unless it is listed as not: adding a settings
    /// field without saying which it is fails here, as does a stale entry.
    #[test]
    fn every_settings_field_is_gated_or_said_to_grant_nothing() {
        let fields = schema_fields();
        assert!(
            fields.contains("network.allow") && fields.contains("hooks"),
            "{fields:?}"
        );
        let gated: BTreeSet<String> = GATED.iter().map(|f| f.field.to_owned()).collect();
        let ungated: BTreeSet<String> = UNGATED.iter().map(|(f, _)| (*f).to_owned()).collect();
        assert!(
            gated.is_disjoint(&ungated),
            "{:?}",
            gated.intersection(&ungated)
        );
        let classified: BTreeSet<String> = gated.union(&ungated).cloned().collect();
        let missing: Vec<&String> = fields.difference(&classified).collect();
        assert!(
            missing.is_empty(),
            "settings fields in neither GATED nor UNGATED: {missing:?}"
        );
        let stale: Vec<&String> = classified.difference(&fields).collect();
        assert!(stale.is_empty(), "not settings fields: {stale:?}");
    }

    /// Settings that set every gated field (a deny beside each widening entry).
    fn everything() -> ProjectSettings {
        serde_json::from_value(json!({
            "version": 1,
            "provider": "anthropic",
            "baseUrl": "http://model.example",
            "preset": "full",
            "tools": {"bash": "allow", "grep": "deny", "file_write": "ask"},
            "rules": {"bash": [{"allow": "rm *"}, {"deny": "git push *"}]},
            "teammates": [{"name": "r", "preset": "readwrite"}],
            "workspace": "project",
            "bashNetwork": true,
            "network": {"allow": ["a.example"], "presets": ["npm"], "deny": ["d.example"]},
            "worktree": {"setup": "make", "copy": [".env"]},
            "pricing": {"m": {"input": 1.0, "output": 2.0}},
            "readablePaths": ["/opt/sdk"],
            "allowUnconfinedBash": true,
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]},
            "mcpServers": {"a": {"command": "a"}}
        }))
        .unwrap()
    }

    fn keys(s: &ProjectSettings) -> Vec<String> {
        let mut out = Vec::new();
        items(s, None, &mut |key, _, _| out.push(key));
        out
    }

    /// What a field gates is exactly what its reset takes back: each field's items are its
    /// own, refusing one field's items leaves every other item as it was and none of its
    /// own, and trusting all changes nothing.
    #[test]
    fn each_field_resets_exactly_the_items_it_gates() {
        let s = everything();
        let all = keys(&s);
        for field in GATED {
            let own: Vec<&String> = all.iter().filter(|k| field.owns(k)).collect();
            assert!(
                !own.is_empty(),
                "{}: the sample sets no item of it",
                field.field
            );
            let refused = reset(&s, &|k| !field.owns(k));
            let left = keys(&refused);
            let others: Vec<String> = all.iter().filter(|k| !field.owns(k)).cloned().collect();
            assert_eq!(left, others, "{}", field.field);
        }
        for key in &all {
            let owners = GATED.iter().filter(|f| f.owns(key)).count();
            assert_eq!(owners, 1, "{key}: owned by {owners} fields");
        }
        assert!(keys(&reset(&s, &|_| false)).is_empty());
        // Trusting all changes nothing (the hooks come back in their canonical spelling).
        let mut kept = reset(&s, &|_| true);
        assert_eq!(keys(&kept), all);
        kept.hooks.clone_from(&s.hooks);
        assert_eq!(kept, s);
        // Denials are never taken back.
        let none = reset(&s, &|_| false);
        assert_eq!(none.tools.get("grep"), Some(&Grant::Deny));
        assert_eq!(none.network.deny, ["d.example"]);
        assert_eq!(none.rules["bash"].len(), 1);
    }
}
