//! The agents Paddock knows how to run behind its wall: the entries the "Add agent" form
//! (and `paddock agents add --known`) start from. Each allows its vendor's API host for that
//! agent alone, gives it the key it reads, and puts its sessions in the mode that asks
//! before acting where it has one, so Paddock's approval cards decide.

use std::collections::BTreeMap;

use paddock_protocol::{AgentKey, ExternalAgentConfig, KnownAgent, ProviderKind};

fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// Every known agent, with whether its program is on PATH here.
pub fn known() -> Vec<KnownAgent> {
    let entries = [
        (
            "claude",
            "Claude Code (ACP adapter)",
            "npm install -g @agentclientprotocol/claude-agent-acp (needs Node.js 22 or newer)",
            ExternalAgentConfig {
                command: "claude-agent-acp".into(),
                env: vars(&[
                    // No telemetry, updates or error reports: hosts the wall would refuse.
                    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
                    ("CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION", "false"),
                    // It is in a sandbox; as root, Claude Code wants to be told.
                    ("IS_SANDBOX", "1"),
                ]),
                hosts: vec!["api.anthropic.com".into()],
                key: Some(AgentKey {
                    provider: Some(ProviderKind::Anthropic),
                    value: None,
                    env: "ANTHROPIC_API_KEY".into(),
                }),
                mode: Some("default".into()),
                ..ExternalAgentConfig::default()
            },
        ),
        (
            "gemini",
            "Gemini CLI",
            "npm install -g @google/gemini-cli",
            ExternalAgentConfig {
                command: "gemini".into(),
                args: vec!["--acp".into()],
                hosts: vec!["generativelanguage.googleapis.com".into()],
                key: Some(AgentKey {
                    provider: None,
                    value: Some("GEMINI_API_KEY".into()),
                    env: "GEMINI_API_KEY".into(),
                }),
                ..ExternalAgentConfig::default()
            },
        ),
        (
            "codex",
            "Codex (ACP adapter)",
            "npm install -g @agentclientprotocol/codex-acp",
            ExternalAgentConfig {
                command: "codex-acp".into(),
                hosts: vec!["api.openai.com".into()],
                key: Some(AgentKey {
                    provider: Some(ProviderKind::OpenAi),
                    value: None,
                    env: "OPENAI_API_KEY".into(),
                }),
                ..ExternalAgentConfig::default()
            },
        ),
    ];
    entries
        .into_iter()
        .map(|(id, title, install, config)| KnownAgent {
            id: id.into(),
            title: title.into(),
            install: install.into(),
            installed: on_path(&config.command),
            config,
        })
        .collect()
}

/// Whether `program` is found on PATH (or, given as a path, exists).
pub(crate) fn on_path(program: &str) -> bool {
    let path = std::path::Path::new(program);
    if path.components().count() > 1 {
        return path.is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_agent_is_a_usable_entry_with_its_vendors_host() {
        let all = known();
        assert_eq!(
            all.iter().map(|k| k.id.as_str()).collect::<Vec<_>>(),
            ["claude", "gemini", "codex"]
        );
        for k in &all {
            super::super::config::check(&k.id, &k.config)
                .unwrap_or_else(|e| panic!("{}: {e}", k.id));
            assert_eq!(k.config.hosts.len(), 1, "{}: its API host only", k.id);
            assert!(k.config.key.is_some(), "{}", k.id);
        }
        assert!(!on_path("surely-not-a-program-here"));
        assert!(on_path("sh"));
    }
}
