//! The policy over a configuration: applied to what a run uses, and checked against an edit
//! or a run's flags so that those are refused with the file named rather than quietly undone.

use paddock_protocol::{Grant, ProjectSettings, ToolPreset};

use super::{ManagedPolicy, PolicyRefusal, extend_new, rank};
use crate::RunOptions;

impl ManagedPolicy {
    /// `s` as the policy lets it apply: the cap, the prohibitions and the fixed network
    /// lists enforced, the policy's hidden paths added. (Deny rules are compiled apart, so
    /// that they are never shown or edited as the project's own.)
    pub fn apply(&self, s: &mut ProjectSettings) {
        extend_new(&mut s.hidden_paths, self.hidden_paths.clone());
        if let Some(cap) = &self.max_preset {
            if s.preset.is_some_and(|p| rank(p) > rank(cap.value)) {
                s.preset = Some(cap.value);
            }
            for (tool, grant) in &mut s.tools {
                if *grant == Grant::Allow && past_cap(tool, cap.value) {
                    *grant = Grant::Ask;
                }
            }
        }
        if self.require_wall.is_some() {
            s.allow_unconfined_bash = false;
        }
        if self.forbid_bash_network.is_some() {
            s.bash_network = false;
        }
        if self.network_fixed.is_some() {
            s.network.allow = self.network_allow.clone();
            s.network.ask = self.network_ask.clone();
            s.network.presets = self.network_presets.clone();
        } else {
            extend_new(&mut s.network.allow, self.network_allow.clone());
            extend_new(&mut s.network.ask, self.network_ask.clone());
            for p in &self.network_presets {
                if !s.network.presets.contains(p) {
                    s.network.presets.push(*p);
                }
            }
        }
        extend_new(&mut s.network.deny, self.network_deny.clone());
        s.mcp_servers
            .retain(|name, config| self.mcp_refusal(name, config).is_none());
    }

    /// Refuses an edit that asks for what the policy forbids, judged on what it changes
    /// (a folder whose file already asks for more can still be edited elsewhere).
    pub fn check_edit(
        &self,
        before: &ProjectSettings,
        after: &ProjectSettings,
    ) -> Result<(), PolicyRefusal> {
        if let Some(cap) = &self.max_preset {
            if after.preset != before.preset
                && let Some(p) = after.preset.filter(|p| rank(*p) > rank(cap.value))
            {
                return Err(PolicyRefusal {
                    what: format!("the {} preset", p.as_str()),
                    why: format!("presets are capped at {}", cap.value.as_str()),
                    file: cap.file.clone(),
                });
            }
            let newly_allowed = after.tools.iter().find(|(tool, grant)| {
                **grant == Grant::Allow
                    && before.tools.get(*tool) != Some(&Grant::Allow)
                    && past_cap(tool, cap.value)
            });
            if let Some((tool, _)) = newly_allowed {
                return Err(PolicyRefusal {
                    what: format!("allowing {tool} without asking"),
                    why: format!(
                        "tools past the {} preset are asked for at most",
                        cap.value.as_str()
                    ),
                    file: cap.file.clone(),
                });
            }
        }
        if let Some(file) = &self.require_wall
            && after.allow_unconfined_bash
            && !before.allow_unconfined_bash
        {
            return Err(PolicyRefusal {
                what: "bash without the OS wall (allowUnconfinedBash)".into(),
                why: "bash runs only behind the wall".into(),
                file: file.clone(),
            });
        }
        if let Some(file) = &self.forbid_bash_network
            && after.bash_network
            && !before.bash_network
        {
            return Err(PolicyRefusal {
                what: "the whole network for bash (bashNetwork)".into(),
                why: "bash reaches only the hosts the network rules allow".into(),
                file: file.clone(),
            });
        }
        let added_server = after
            .mcp_servers
            .iter()
            .filter(|(name, config)| before.mcp_servers.get(*name) != Some(config))
            .find_map(|(name, config)| Some((name, self.mcp_refusal(name, config)?)));
        if let Some((name, file)) = added_server {
            return Err(PolicyRefusal {
                what: format!("the MCP server {name}"),
                why: "it is not on the allowed MCP servers".into(),
                file: file.to_path_buf(),
            });
        }
        if let Some(file) = &self.network_fixed {
            let added = |a: &[String], b: &[String]| a.iter().find(|h| !b.contains(h)).cloned();
            let host = added(&after.network.allow, &before.network.allow)
                .or_else(|| added(&after.network.ask, &before.network.ask));
            let preset = after
                .network
                .presets
                .iter()
                .find(|p| !before.network.presets.contains(p));
            if let Some(what) = host.or_else(|| preset.map(|p| format!("the {p:?} hosts"))) {
                return Err(PolicyRefusal {
                    what: format!("adding {what} to the network rules"),
                    why: "the network lists are fixed".into(),
                    file: file.clone(),
                });
            }
        }
        Ok(())
    }

    /// Refuses a run's flags that ask for what the policy forbids (`ask_allows`:
    /// `--ask-allows` was given).
    pub fn check_options(
        &self,
        options: &RunOptions,
        ask_allows: bool,
    ) -> Result<(), PolicyRefusal> {
        if let Some(file) = self.forbid_ask_allows.as_ref().filter(|_| ask_allows) {
            return Err(PolicyRefusal {
                what: "--ask-allows".into(),
                why: "what asks is never allowed unseen".into(),
                file: file.clone(),
            });
        }
        if let Some(cap) = &self.max_preset {
            if let Some(p) = options.preset.filter(|p| rank(*p) > rank(cap.value)) {
                return Err(PolicyRefusal {
                    what: format!("--preset {}", p.as_str()),
                    why: format!("presets are capped at {}", cap.value.as_str()),
                    file: cap.file.clone(),
                });
            }
            if let Some(tool) = options.allow.iter().find(|t| past_cap(t, cap.value)) {
                return Err(PolicyRefusal {
                    what: format!("--allow {tool}"),
                    why: format!(
                        "tools past the {} preset are asked for at most",
                        cap.value.as_str()
                    ),
                    file: cap.file.clone(),
                });
            }
        }
        if let (Some(file), Some(host)) = (&self.network_fixed, options.allow_hosts.first()) {
            return Err(PolicyRefusal {
                what: format!("--allow-host {host}"),
                why: "the network lists are fixed".into(),
                file: file.clone(),
            });
        }
        Ok(())
    }
}

/// A built-in tool the capped preset does not grant.
fn past_cap(tool: &str, cap: ToolPreset) -> bool {
    // Built-in tools only: MCP tools have their own grants.
    ToolPreset::Full.tools().contains(&tool) && !cap.tools().contains(&tool)
}
