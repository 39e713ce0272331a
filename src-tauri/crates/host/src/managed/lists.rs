//! The policy's allow-lists: MCP servers, hook commands, providers and model addresses.
//! Something is allowed only when every list given (by any file) allows it.

use std::path::Path;

use paddock_protocol::{ExternalAgentConfig, McpServerConfig, ProviderKind};

use super::{AgentAllow, ManagedPolicy, McpAllow, PolicyRefusal};

impl ManagedPolicy {
    /// The file of a list that does not allow the MCP server `name` (`None`: allowed).
    pub fn mcp_refusal(&self, name: &str, config: &McpServerConfig) -> Option<&Path> {
        self.mcp_servers
            .iter()
            .find(|list| !list.value.iter().any(|a| mcp_matches(a, name, config)))
            .map(|list| list.file.as_path())
    }

    /// The file of a list that does not allow a hook running `command` (`None`: allowed).
    pub fn hook_refusal(&self, command: &str) -> Option<&Path> {
        self.hook_commands
            .iter()
            .find(|list| !list.value.iter().any(|p| glob(p, command)))
            .map(|list| list.file.as_path())
    }

    /// Refuses starting the external agent `name` when a list does not allow it.
    pub fn check_agent(
        &self,
        name: &str,
        agent: &ExternalAgentConfig,
    ) -> Result<(), PolicyRefusal> {
        let allowed = |a: &AgentAllow| {
            (a.name.is_some() || a.command.is_some())
                && a.name.as_deref().is_none_or(|n| n == name)
                && a.command.as_deref().is_none_or(|c| c == agent.command)
        };
        match self
            .agents
            .iter()
            .find(|list| !list.value.iter().any(allowed))
        {
            Some(list) => Err(PolicyRefusal {
                what: format!("the external agent {name}"),
                why: "it is not on the allowed external agents".into(),
                file: list.file.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Refuses a run whose provider or model address (as requests would go, after every
    /// default) is not on the lists.
    pub fn check_model(&self, provider: ProviderKind, base_url: &str) -> Result<(), PolicyRefusal> {
        if let Some(list) = self
            .providers
            .iter()
            .find(|list| !list.value.contains(&provider))
        {
            return Err(PolicyRefusal {
                what: format!("the {} provider", provider.as_str()),
                why: "it is not on the allowed providers".into(),
                file: list.file.clone(),
            });
        }
        if let Some(list) = self
            .base_urls
            .iter()
            .find(|list| !list.value.iter().any(|p| url_under(p, base_url)))
        {
            return Err(PolicyRefusal {
                what: format!("the model address {base_url}"),
                why: "it is not on the allowed model addresses".into(),
                file: list.file.clone(),
            });
        }
        Ok(())
    }
}

fn mcp_matches(allow: &McpAllow, name: &str, config: &McpServerConfig) -> bool {
    let said = allow.name.is_some() || allow.command.is_some() || allow.url.is_some();
    said && allow.name.as_deref().is_none_or(|n| n == name)
        && allow
            .command
            .as_deref()
            .is_none_or(|c| config.command.as_deref() == Some(c))
        && allow
            .url
            .as_deref()
            .is_none_or(|u| config.url.as_deref().is_some_and(|url| url_under(u, url)))
}

/// `url` is `prefix` or lies under it (the next character a `/`, `?` or `#`).
fn url_under(prefix: &str, url: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    let url_trimmed = url.trim_end_matches('/');
    url_trimmed == prefix
        || url
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(['/', '?', '#']))
}

/// `*` matches any text (a `/` too); everything else itself.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_addresses() {
        assert!(glob("/opt/corp/guard.sh *", "/opt/corp/guard.sh --strict"));
        assert!(!glob("/opt/corp/guard.sh *", "/opt/corp/guard.shx"));
        assert!(glob("*", "anything"));
        assert!(glob("a*b*c", "a-b-b-c"));
        assert!(!glob("a*b*c", "a-c"));
        assert!(url_under(
            "http://127.0.0.1:11434",
            "http://127.0.0.1:11434/v1"
        ));
        assert!(url_under(
            "https://api.openai.com/v1/",
            "https://api.openai.com/v1"
        ));
        assert!(!url_under(
            "http://127.0.0.1:1143",
            "http://127.0.0.1:11434/v1"
        ));
        assert!(!url_under(
            "https://api.openai.com",
            "https://api.openai.com.evil.example/v1"
        ));
    }
}
