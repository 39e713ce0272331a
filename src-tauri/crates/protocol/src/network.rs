//! bash's network as an allow-list (the `network` setting): host rules and the ecosystem
//! presets that expand to the hosts a package tool needs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Hosts bash may reach through Paddock's proxy. A rule is a host (`example.com`), a
/// wildcard for its subdomains (`*.example.com`, which does not match `example.com`), an
/// address, each with an optional port (`example.com:443`). Deny beats ask beats allow; a
/// host no rule names is asked about (refused where nobody can answer). Names that resolve
/// to loopback, private, link-local or metadata addresses, or to this machine's own (an IPv6
/// form carrying an IPv4 address is judged by that address), are refused unless an allow
/// rule names that address. `bashNetwork: true` gives all of the network instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(default, rename_all = "camelCase")]
pub struct NetworkSettings {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ask: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    /// Package ecosystems whose hosts are allowed (npm, crates, pypi, go, github, rubygems).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<NetworkPreset>,
    /// Bytes one tool call may send through the proxy, over all its connections; past it
    /// the connection ends and the call's new ones are refused. Unset: no cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_upload_bytes: Option<u64>,
    /// Bytes one tool call may receive through the proxy, the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_download_bytes: Option<u64>,
}

impl NetworkSettings {
    /// No rule and no preset: bash has no network (unless `bashNetwork`).
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty()
            && self.ask.is_empty()
            && self.deny.is_empty()
            && self.presets.is_empty()
    }

    /// The allow rules with the presets' hosts after them.
    pub fn allowed(&self) -> Vec<String> {
        let mut out = self.allow.clone();
        for preset in &self.presets {
            out.extend(preset.hosts().iter().map(|h| (*h).to_owned()));
        }
        out
    }
}

/// A package ecosystem's hosts, ticked as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum NetworkPreset {
    /// npm and yarn registries.
    Npm,
    /// crates.io and its index and downloads.
    Crates,
    /// PyPI and its file host.
    Pypi,
    /// The Go module proxy and checksum database.
    Go,
    /// GitHub: clones, the API, release and raw downloads.
    Github,
    /// RubyGems.
    Rubygems,
}

impl NetworkPreset {
    pub const ALL: [NetworkPreset; 6] = [
        Self::Npm,
        Self::Crates,
        Self::Pypi,
        Self::Go,
        Self::Github,
        Self::Rubygems,
    ];

    /// What the preset is for, in a few words (the grants screen's label).
    pub fn description(self) -> &'static str {
        match self {
            Self::Npm => "npm and yarn registries",
            Self::Crates => "crates.io, its index and downloads; rustup",
            Self::Pypi => "PyPI and its file host",
            Self::Go => "the Go module proxy and checksum database",
            Self::Github => "GitHub: clones, the API, release and raw downloads",
            Self::Rubygems => "RubyGems",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Npm => "npm",
            Self::Crates => "crates",
            Self::Pypi => "pypi",
            Self::Go => "go",
            Self::Github => "github",
            Self::Rubygems => "rubygems",
        }
    }

    /// The host rules the preset adds to `allow` (HTTPS only).
    pub fn hosts(self) -> &'static [&'static str] {
        match self {
            Self::Npm => &[
                "registry.npmjs.org:443",
                "registry.yarnpkg.com:443",
                "repo.yarnpkg.com:443",
            ],
            Self::Crates => &[
                "crates.io:443",
                "index.crates.io:443",
                "static.crates.io:443",
                "static.rust-lang.org:443",
            ],
            Self::Pypi => &["pypi.org:443", "files.pythonhosted.org:443"],
            Self::Go => &[
                "proxy.golang.org:443",
                "sum.golang.org:443",
                "index.golang.org:443",
            ],
            Self::Github => &[
                "github.com:443",
                "api.github.com:443",
                "codeload.github.com:443",
                "objects.githubusercontent.com:443",
                "raw.githubusercontent.com:443",
                "release-assets.githubusercontent.com:443",
            ],
            Self::Rubygems => &["rubygems.org:443", "index.rubygems.org:443"],
        }
    }
}

/// A preset as the grants screen offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NetworkPresetInfo {
    pub preset: NetworkPreset,
    pub description: String,
    pub hosts: Vec<String>,
}

impl From<NetworkPreset> for NetworkPresetInfo {
    fn from(preset: NetworkPreset) -> Self {
        Self {
            preset,
            description: preset.description().to_owned(),
            hosts: preset.hosts().iter().map(|h| (*h).to_owned()).collect(),
        }
    }
}

/// What bash's network is under the settings in effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum BashNetwork {
    /// No rule names a host and `bashNetwork` is off: no network at all.
    None,
    /// The rules: through Paddock's proxy only.
    AllowList,
    /// `bashNetwork: true`: all of it, no proxy.
    Whole,
}

/// The grants screen's Network section: the rules as written, what applies, the presets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NetworkView {
    /// The `network` setting as the file has it.
    pub written: NetworkSettings,
    /// The rules that wait for the user's trust (a folder's allow entries and presets).
    pub waiting: Vec<String>,
    pub bash: BashNetwork,
    pub presets: Vec<NetworkPresetInfo>,
}

/// One connection a call made through the network fence (bash's, web_fetch's), as it
/// ended: shown under the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NetworkConnection {
    pub call_id: String,
    /// `CONNECT`, or a plain-HTTP method; none when no request was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub port: Option<u16>,
    /// Let through upstream (it may still have failed: see `error`).
    pub allowed: bool,
    /// The user was asked about it.
    #[serde(default)]
    pub asked: bool,
    /// The rule that decided (`network.allow[2]`), if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub rule: Option<String>,
    pub why: String,
    #[ts(type = "number")]
    pub bytes_up: u64,
    #[ts(type = "number")]
    pub bytes_down: u64,
    #[ts(type = "number")]
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_expand_after_the_users_rules() {
        let s = NetworkSettings {
            allow: vec!["example.com".into()],
            presets: vec![NetworkPreset::Pypi],
            ..NetworkSettings::default()
        };
        assert_eq!(
            s.allowed(),
            ["example.com", "pypi.org:443", "files.pythonhosted.org:443"]
        );
        assert!(NetworkSettings::default().is_empty() && !s.is_empty());
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"allow": ["example.com"], "presets": ["pypi"]})
        );
    }
}
