//! Every change a shell makes to a project's settings, and the one answer to "which settings
//! are in effect". A change is one transaction here: load the file (a broken one is never
//! overwritten), change it, validate, save atomically, trust what the user changed (their
//! own edit), and hand the project's live rule book the new rules. The app's commands and
//! the CLI call these and only adapt the errors.

use std::path::Path;

use paddock_protocol::{
    Grant, McpServerConfig, NetworkSettings, ProjectInfo, ProjectSettings, RuleEntry, ToolPreset,
};

use crate::settings::{self, FieldError};
use crate::trust::TrustStore;
use crate::{HostError, LiveProject, Resolved};

/// Most rules one tool may be given at once.
pub const MAX_TOOL_RULES: usize = 200;

/// The settings of `root` in effect, weighed against `trust`: what the app, the CLI's
/// `rules` and `doctor`, and a run's safe defaults all read ([`Resolved::load`]).
pub fn in_effect(trust: &TrustStore, root: &Path) -> Result<Resolved, HostError> {
    Resolved::load(trust, root)
}

/// What a project window shows about its project: the file as written (for the settings
/// screen), what waits for trust, and the workspace and sandbox as they apply. A broken file
/// is reported in `settings_error` and left alone; the rest uses defaults meanwhile.
pub fn info(trust: &TrustStore, root: &Path) -> ProjectInfo {
    let resolved = Resolved::load_lenient(trust, root, &crate::RunOptions::default());
    let project = resolved.project();
    ProjectInfo {
        path: root.to_string_lossy().into_owned(),
        name: root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        settings: resolved
            .settings_error()
            .is_none()
            .then(|| resolved.written().clone()),
        settings_error: resolved.settings_error().map(str::to_owned),
        workspace_root: project.workspace_root().to_string_lossy().into_owned(),
        sandbox: project.sandbox_status(),
        trust: resolved.trust().clone(),
        managed: resolved.policy().info(resolved.policy_error()),
    }
}

/// One project's settings file, changed by its user through a shell.
pub struct Edit<'a> {
    trust: &'a TrustStore,
    root: &'a Path,
    /// The project's live state where a shell keeps one (the app): its rule book takes the
    /// new rules, so runs going on meet them at their next call.
    live: Option<&'a LiveProject>,
}

impl<'a> Edit<'a> {
    pub fn new(trust: &'a TrustStore, root: &'a Path) -> Self {
        Self {
            trust,
            root,
            live: None,
        }
    }

    /// Keeps `live`'s rules in step with each change.
    pub fn live(mut self, live: &'a LiveProject) -> Self {
        self.live = Some(live);
        self
    }

    /// Replaces the settings with `settings` (the settings screen's save).
    pub fn save(&self, settings: ProjectSettings) -> Result<ProjectInfo, HostError> {
        self.change(|s| {
            *s = settings;
            Ok(())
        })?;
        tracing::info!(project = %self.root.display(), "settings saved");
        Ok(info(self.trust, self.root))
    }

    /// Sets (or with `None` removes) one tool's grant.
    pub fn set_grant(&self, tool: &str, grant: Option<Grant>) -> Result<Resolved, HostError> {
        let tool = named(tool)?;
        self.change(|s| {
            match grant {
                Some(g) => s.tools.insert(tool, g),
                None => s.tools.remove(&tool),
            };
            Ok(())
        })
    }

    pub fn set_preset(&self, preset: Option<ToolPreset>) -> Result<Resolved, HostError> {
        self.change(|s| {
            s.preset = preset;
            Ok(())
        })
    }

    /// Replaces one tool's argument rules, in order (`[]` removes them).
    pub fn set_rules(&self, tool: &str, rules: Vec<RuleEntry>) -> Result<Resolved, HostError> {
        let tool = named(tool)?;
        if rules.len() > MAX_TOOL_RULES {
            return Err(crate::field_error::FieldError::new(
                format!("rules.{tool}"),
                format!("at most {MAX_TOOL_RULES} rules per tool"),
            )
            .into());
        }
        self.change(|s| {
            if rules.is_empty() {
                s.rules.remove(&tool);
            } else {
                s.rules.insert(tool, rules);
            }
            crate::rules::compile(s).map(|_| ())
        })
    }

    /// "Always allow": adds allow rules for `tool` in the user's words (those not already
    /// there).
    pub fn allow(&self, tool: &str, patterns: &[String]) -> Result<Resolved, HostError> {
        let tool = named(tool)?;
        let changed = self.change(|s| crate::rules::add_allow_rules(s, &tool, patterns))?;
        tracing::info!(tool, rules = patterns.len(), "rule saved from an approval");
        Ok(changed)
    }

    /// Replaces the `network` setting (the grants screen's Network section); a bad rule is
    /// named by its list and place and nothing is saved.
    pub fn set_network(&self, network: NetworkSettings) -> Result<Resolved, HostError> {
        let network = NetworkSettings {
            allow: trimmed(network.allow),
            ask: trimmed(network.ask),
            deny: trimmed(network.deny),
            presets: network.presets,
            max_upload_bytes: network.max_upload_bytes,
            max_download_bytes: network.max_download_bytes,
        };
        self.change(|s| {
            s.network = network;
            crate::network::policy(&s.network).map(drop)
        })
    }

    /// "Always for this project" on a network card: adds `rule` to `network.allow` (unless
    /// it is there), as the user's own change, applied to the runs going on.
    pub fn allow_host(&self, rule: &str) -> Result<Resolved, HostError> {
        let rule = rule.trim().to_owned();
        crate::network::check_rule(&rule).map_err(|e| {
            crate::field_error::FieldError::new("network.allow", format!("{rule}: {e}"))
        })?;
        let changed = self.change(|s| {
            if !s.network.allow.contains(&rule) {
                s.network.allow.push(rule.clone());
            }
            Ok(())
        })?;
        tracing::info!(rule, "network rule saved from an approval");
        Ok(changed)
    }

    /// The model for the project's next prompts.
    pub fn choose_model(&self, model: &str) -> Result<ProjectInfo, HostError> {
        let model = model.trim();
        if model.is_empty() {
            return Err(crate::error::RequestError::NoModelGiven.into());
        }
        self.change(|s| {
            s.model = Some(model.to_owned());
            Ok(())
        })?;
        tracing::info!(project = %self.root.display(), model, "model chosen");
        Ok(info(self.trust, self.root))
    }

    /// Adds an MCP server the user described by hand (theirs, so trusted as typed).
    pub fn add_mcp_server(&self, name: &str, config: McpServerConfig) -> Result<(), HostError> {
        let name = name.trim().to_owned();
        self.change(|s| {
            if s.mcp_servers.contains_key(&name) {
                return Err(FieldError::new(
                    format!("mcpServers.{name}"),
                    "a server by this name is already set up",
                ));
            }
            s.mcp_servers.insert(name, config);
            Ok(())
        })
        .map(drop)
    }

    /// Adds the MCP servers in `text`, or in the project's own MCP file when `text` is
    /// `None`; returns the names added. Written elsewhere, so not trusted here: the trust
    /// screen lists what they would do.
    pub fn import_mcp_servers(&self, text: Option<String>) -> Result<Vec<String>, HostError> {
        use crate::mcp_import::{merge, parse, read_project_file};
        let text = match text {
            Some(t) => t,
            None => match read_project_file(self.root)? {
                Some((_, text)) => text,
                None => return Err(crate::error::RequestError::NoMcpFile.into()),
            },
        };
        let servers = parse(&text)?;
        let mut s = settings::load(self.root)?;
        let added = merge(&mut s.mcp_servers, servers)?;
        settings::save(self.root, &s)?;
        tracing::info!(project = %self.root.display(), servers = added.len(), "MCP servers imported");
        Ok(added)
    }

    /// Trusts what the folder's settings ask for (as the trust screen listed it); MCP servers
    /// that now apply start.
    pub fn trust_folder(&self) -> Result<ProjectInfo, HostError> {
        self.trust.trust(self.root, &settings::load(self.root)?)?;
        tracing::info!(project = %self.root.display(), "folder trusted");
        self.trust_changed()
    }

    /// Goes on without what waits for trust; not asked again until that changes.
    pub fn decline_trust(&self) -> Result<ProjectInfo, HostError> {
        self.trust.decline(self.root, &settings::load(self.root)?)?;
        Ok(info(self.trust, self.root))
    }

    /// Takes back the trust given to the folder's settings: what needed it stops applying
    /// (MCP servers it started stop) and the trust screen asks again.
    pub fn revoke_trust(&self) -> Result<ProjectInfo, HostError> {
        self.trust.revoke(self.root)?;
        tracing::info!(project = %self.root.display(), "folder trust revoked");
        self.trust_changed()
    }

    /// After the folder's trust changed: the live project's rules and MCP servers follow
    /// what now applies. Call within a Tokio runtime when there is a live project.
    fn trust_changed(&self) -> Result<ProjectInfo, HostError> {
        if let Some(live) = self.live {
            let now = in_effect(self.trust, self.root)?;
            live.reload_rules(&now)?;
            live.mcp(now.settings());
        }
        Ok(info(self.trust, self.root))
    }

    /// Loads, changes, validates and saves the settings, trusts what changed (the user's
    /// own edit), and refreshes the live rules. A refused change leaves the file as it was.
    fn change(
        &self,
        change: impl FnOnce(&mut ProjectSettings) -> Result<(), FieldError>,
    ) -> Result<Resolved, HostError> {
        let before = settings::load(self.root)?;
        let mut after = before.clone();
        change(&mut after)?;
        settings::validate(&after)?;
        crate::managed::ManagedPolicy::load()?.check_edit(&before, &after)?;
        settings::save(self.root, &after)?;
        self.trust.trust_changes(self.root, &before, &after)?;
        let now = in_effect(self.trust, self.root)?;
        if let Some(live) = self.live {
            live.reload_rules(&now)?;
        }
        Ok(now)
    }
}

/// Rules as typed: trimmed, blank lines dropped.
fn trimmed(rules: Vec<String>) -> Vec<String> {
    rules
        .into_iter()
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty())
        .collect()
}

/// A tool name as the user gave it, trimmed; refused when empty.
fn named(tool: &str) -> Result<String, HostError> {
    let tool = tool.trim();
    if tool.is_empty() {
        return Err(crate::error::RequestError::NoToolName.into());
    }
    Ok(tool.to_owned())
}
