use paddock_protocol::{Grant, ProjectSettings, ProviderKind, ToolPreset};

/// Per-run choices that override the project's settings (command-line flags).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOptions {
    pub provider: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub preset: Option<ToolPreset>,
    /// Tools to allow, ask for, or deny on top of the preset.
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
    pub max_turns: Option<u32>,
    pub max_token_budget: Option<u64>,
    /// Hosts bash may reach in this run, on top of the `network` setting's allow rules.
    pub allow_hosts: Vec<String>,
}

impl RunOptions {
    /// The settings with these overrides applied: flags override settings, settings
    /// override defaults. A tool named in several lists ends up denied (deny is last).
    pub fn apply(&self, settings: &ProjectSettings) -> ProjectSettings {
        let mut s = settings.clone();
        if self.provider.is_some() {
            s.provider = self.provider;
        }
        if let Some(m) = &self.model {
            s.model = Some(m.clone());
        }
        if let Some(u) = &self.base_url {
            s.base_url = Some(u.clone());
        }
        if self.preset.is_some() {
            s.preset = self.preset;
        }
        for (names, grant) in [
            (&self.allow, Grant::Allow),
            (&self.ask, Grant::Ask),
            (&self.deny, Grant::Deny),
        ] {
            for name in names {
                s.tools.insert(name.clone(), grant);
            }
        }
        if self.max_turns.is_some() {
            s.max_turns = self.max_turns;
        }
        if self.max_token_budget.is_some() {
            s.max_token_budget = self.max_token_budget;
        }
        s.network.allow.extend(self.allow_hosts.iter().cloned());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_settings() {
        let mut settings = ProjectSettings {
            model: Some("from-settings".into()),
            preset: Some(ToolPreset::Full),
            max_turns: Some(7),
            ..ProjectSettings::default()
        };
        settings.tools.insert("bash".into(), Grant::Allow);
        let opts = RunOptions {
            model: Some("from-flag".into()),
            preset: Some(ToolPreset::Readonly),
            ask: vec!["bash".into()],
            deny: vec!["grep".into()],
            ..RunOptions::default()
        };
        let s = opts.apply(&settings);
        assert_eq!(s.model.as_deref(), Some("from-flag"));
        assert_eq!(s.preset, Some(ToolPreset::Readonly));
        assert_eq!(s.tools["bash"], Grant::Ask);
        assert_eq!(s.tools["grep"], Grant::Deny);
        assert_eq!(s.max_turns, Some(7), "unset flags keep the settings");
    }
}
