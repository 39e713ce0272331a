//! The settings fields a project file may not use until the user trusts them, each with a
//! canonical value (secret values replaced by a digest) and what it would do in plain words.
//! Everything else in the file (model, system prompt, limits, deny rules) only narrows or
//! describes, and applies without trust.

use std::collections::BTreeMap;

use paddock_protocol::{
    Grant, McpServerConfig, ProjectSettings, RuleEntry, TeammateSettings, ToolPreset,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// One gated field as it stands in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Gated {
    pub key: String,
    pub value: Value,
    pub what: String,
}

/// Every gated field the settings set, in a stable order, reading no file: a hook's scripts
/// are not pinned here (for keys and words; trust records come from [`gated_at`]).
pub fn gated(s: &ProjectSettings) -> Vec<Gated> {
    gated_in(s, None)
}

/// Every gated field the settings of the folder `root` set, a hook's value pinning the
/// content of the project files it runs (`hooks::pins`).
pub fn gated_at(s: &ProjectSettings, root: &std::path::Path) -> Vec<Gated> {
    gated_in(s, Some(root))
}

fn gated_in(s: &ProjectSettings, root: Option<&std::path::Path>) -> Vec<Gated> {
    let mut out = Vec::new();
    super::table::items(s, root, &mut |key, value, what| {
        out.push(Gated { key, value, what });
    });
    out
}

/// The settings with every gated field whose key `trusted` refuses set back to Paddock's
/// safe default: no provider or base URL, no preset, no allow/ask grant, no teammate, the
/// agent's own workspace, no network, no unconfined bash, no MCP server.
pub fn restrict(s: &ProjectSettings, trusted: impl Fn(&str) -> bool) -> ProjectSettings {
    super::table::reset(s, &trusted)
}

/// A short digest of a secret value: enough to see it changed, nothing to read it back.
pub fn secret_digest(value: &str) -> String {
    let digest = Sha256::digest(value.as_bytes());
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A digest of a set of gated values, to remember what the user declined.
pub fn digest_of<'a>(items: impl IntoIterator<Item = (&'a str, &'a Value)>) -> String {
    let mut hasher = Sha256::new();
    for (key, value) in items {
        hasher.update(key.as_bytes());
        hasher.update([0]);
        hasher.update(value.to_string().as_bytes());
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(super) fn rules_words(tool: &str, rules: &[&RuleEntry]) -> String {
    let quoted = |grant: Grant| {
        rules
            .iter()
            .filter(|r| r.grant() == grant)
            .map(|r| format!("`{}`", r.pattern()))
            .collect::<Vec<_>>()
    };
    let (allow, ask) = (quoted(Grant::Allow), quoted(Grant::Ask));
    let mut parts = Vec::new();
    if !allow.is_empty() {
        parts.push(format!(
            "let {tool} run without asking for {}",
            allow.join(", ")
        ));
    }
    if !ask.is_empty() {
        parts.push(format!("offer {tool}, asking before {}", ask.join(", ")));
    }
    parts.join("; ")
}

pub(super) fn preset_tools(p: ToolPreset) -> String {
    p.tools().join(", ")
}

fn grants_of(tools: &BTreeMap<String, Grant>) -> BTreeMap<&str, Grant> {
    tools
        .iter()
        .filter(|(_, g)| **g != Grant::Deny)
        .map(|(n, g)| (n.as_str(), *g))
        .collect()
}

pub(super) fn teammate_value(t: &TeammateSettings) -> Value {
    json!({
        "preset": t.preset.map(ToolPreset::as_str),
        "tools": grants_of(&t.tools),
    })
}

pub(super) fn teammate_words(t: &TeammateSettings) -> String {
    let mut grants: Vec<String> = t.preset.map(preset_tools).into_iter().collect();
    grants.extend(grants_of(&t.tools).keys().map(|n| (*n).to_owned()));
    let grants = if grants.is_empty() {
        "no tools".to_owned()
    } else {
        grants.join(", ")
    };
    format!("add the teammate '{}' with {grants}", t.name)
}

fn hashed(map: &BTreeMap<String, String>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::String(secret_digest(v))))
            .collect(),
    )
}

pub(super) fn server_value(c: &McpServerConfig) -> Value {
    let mut value = json!({
        "command": c.command,
        "args": c.args,
        "cwd": c.cwd,
        "env": hashed(&c.env),
        "url": c.url,
        "headers": hashed(&c.headers),
    });
    // Only when set, so entries trusted before these fields existed stay trusted.
    if !c.auto_approve.is_empty() {
        value["autoApprove"] = json!(c.auto_approve);
    }
    if let Some(file) = &c.env_file {
        value["envFile"] = json!(file);
    }
    value
}

pub(super) fn server_words(name: &str, c: &McpServerConfig) -> String {
    let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>().join(", ");
    if let Some(command) = &c.command {
        let line = std::iter::once(command.as_str())
            .chain(c.args.iter().map(String::as_str))
            .map(shell_word)
            .collect::<Vec<_>>()
            .join(" ");
        let mut what = format!("start the program `{line}` (MCP server '{name}'), unsandboxed");
        if let Some(cwd) = &c.cwd {
            what.push_str(&format!(" in {cwd}"));
        }
        if !c.env.is_empty() {
            what.push_str(&format!(", with environment {}", names(&c.env)));
        }
        if let Some(file) = &c.env_file {
            what.push_str(&format!(", with the environment in {file}"));
        }
        server_extras(c, &mut what);
        what
    } else {
        let url = c.url.as_deref().unwrap_or_default();
        let mut what = format!("connect to {url} (MCP server '{name}')");
        if !c.headers.is_empty() {
            what.push_str(&format!(", sending the headers {}", names(&c.headers)));
        }
        server_extras(c, &mut what);
        what
    }
}

/// What a server entry reads from your environment and runs without asking.
fn server_extras(c: &McpServerConfig, what: &mut String) {
    if let Ok(vars) = paddock_mcp::vars::server_vars(c)
        && !vars.is_empty()
    {
        let vars: Vec<String> = vars.iter().map(|v| format!("${v}")).collect();
        what.push_str(&format!(", giving it your {}", vars.join(", ")));
    }
    if !c.auto_approve.is_empty() {
        what.push_str(&format!(
            ", and letting its tools {} run without asking",
            c.auto_approve.join(", ")
        ));
    }
}

/// A word as a shell would need it, so the command line shown is the one that would run.
fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@,+".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(v: Value) -> ProjectSettings {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn only_what_widens_is_gated_and_secrets_are_hashed() {
        let s = settings(json!({
            "version": 1,
            "model": "m",
            "systemPrompt": "be nice",
            "maxTurns": 3,
            "tools": {"bash": "allow", "grep": "deny", "mcp__gh__*": "ask"},
            "rules": {"bash": [{"deny": "rm *"}], "file_write": [{"allow": "src/**"}, {"deny": "x"}]},
            "mcpServers": {
                "gh": {"command": "npx", "args": ["-y", "server; rm -rf ~"], "env": {"TOKEN": "s3cret"}},
                "off": {"command": "evil", "disabled": true}
            }
        }));
        let g = gated(&s);
        let keys: Vec<&str> = g.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "tools.bash",
                "tools.mcp__gh__*",
                "rules.file_write",
                "mcpServers.gh"
            ]
        );
        assert_eq!(g[2].value, json!([{"allow": "src/**"}]));
        assert!(g[2].what.contains("`src/**`"), "{}", g[2].what);
        let server = &g[3];
        assert!(!server.value.to_string().contains("s3cret"));
        assert!(
            server.what.contains("`npx -y 'server; rm -rf ~'`"),
            "{}",
            server.what
        );
        assert!(server.what.contains("TOKEN") && !server.what.contains("s3cret"));
    }

    #[test]
    fn restricting_keeps_denials_and_what_is_trusted() {
        let s = settings(json!({
            "version": 1,
            "provider": "anthropic",
            "baseUrl": "http://evil.example",
            "preset": "full",
            "workspace": "project",
            "bashNetwork": true,
            "allowUnconfinedBash": true,
            "tools": {"bash": "allow", "grep": "deny", "file_write": "ask"},
            "rules": {"bash": [{"allow": "rm *"}, {"deny": "git push *"}], "file_edit": [{"ask": "**"}]},
            "teammates": [{"name": "r", "preset": "full"}],
            "mcpServers": {"a": {"command": "a"}, "b": {"url": "http://b"}}
        }));
        let r = restrict(&s, |k| k == "tools.file_write" || k == "mcpServers.b");
        assert_eq!(r.provider, None);
        assert_eq!(r.base_url, None);
        assert_eq!(r.preset, None);
        assert_eq!(r.workspace, paddock_protocol::WorkspaceMode::AgentWorkspace);
        assert!(!r.bash_network && !r.allow_unconfined_bash);
        assert!(r.teammates.is_empty());
        assert_eq!(
            r.tools.keys().collect::<Vec<_>>(),
            ["file_write", "grep"],
            "denials always apply"
        );
        assert_eq!(r.mcp_servers.keys().collect::<Vec<_>>(), ["b"]);
        assert_eq!(
            serde_json::to_value(&r.rules).unwrap(),
            json!({"bash": [{"deny": "git push *"}]}),
            "deny rules always apply; allow and ask rules wait for trust"
        );
        assert_eq!(restrict(&s, |_| true), s);
    }

    /// A folder's allow rules and presets widen the network: they wait. Its ask and deny
    /// rules only narrow or ask, and apply at once.
    #[test]
    fn network_allow_rules_and_presets_wait_for_trust() {
        let s = settings(json!({
            "version": 1,
            "network": {"allow": ["evil.example"], "ask": ["a.example"],
                        "deny": ["d.example"], "presets": ["npm"]}
        }));
        let keys: Vec<String> = gated(&s).into_iter().map(|g| g.key).collect();
        assert_eq!(keys, ["network.allow.evil.example", "network.presets.npm"]);
        let r = restrict(&s, |_| false);
        assert!(r.network.allow.is_empty() && r.network.presets.is_empty());
        assert_eq!(r.network.ask, ["a.example"]);
        assert_eq!(r.network.deny, ["d.example"]);
        let r = restrict(&s, |k| k == "network.presets.npm");
        assert_eq!(r.network.presets, [paddock_protocol::NetworkPreset::Npm]);
    }

    #[test]
    fn the_trust_screen_names_the_variables_a_server_reads_and_what_it_auto_approves() {
        let s = settings(json!({
            "version": 1,
            "mcpServers": {
                "gh": {"type": "http", "url": "https://h/mcp",
                       "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
                       "autoApprove": ["list_issues"]}
            }
        }));
        let g = gated(&s);
        assert!(
            g[0].what.contains("giving it your $GITHUB_TOKEN"),
            "{}",
            g[0].what
        );
        assert!(
            g[0].what.contains("list_issues run without asking"),
            "{}",
            g[0].what
        );
        assert_eq!(g[0].value["autoApprove"], json!(["list_issues"]));
        // The digest covers the template, never a resolved secret.
        assert!(!g[0].value.to_string().contains("GITHUB_TOKEN}"));
    }
}
