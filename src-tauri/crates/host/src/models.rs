//! A provider connection outside a run: the app's settings screen lists models and tests
//! the connection; `paddock doctor` checks the setup.

use std::sync::Arc;
use std::time::Duration;

use paddock_protocol::{
    ConnectionReport, ModelInfo, ProviderKind, ToolCallMode, ToolCalling, ToolProbeReport,
};
use paddock_providers::{ApiKey, Provider, ProviderConfig, RetryPolicy};

use crate::HostError;
use crate::keys::{KeyStore, resolve_key};

/// Connect and idle limits of a quick check (doctor): no retries either.
const QUICK_TIMEOUTS: (Duration, Duration) = (Duration::from_secs(5), Duration::from_secs(10));

/// A provider reached with a given key and base URL.
pub struct Connection {
    provider: Provider,
    tool_calling: ToolCalling,
}

impl Connection {
    /// `base_url` is the one the user gave (none: the provider's default or its environment
    /// variable); `quick` gives up fast and never retries.
    pub fn new(
        kind: ProviderKind,
        base_url: Option<&str>,
        key: Option<ApiKey>,
        quick: bool,
    ) -> Result<Self, HostError> {
        Self::with_tool_calling(kind, base_url, key, quick, ToolCalling::Auto)
    }

    /// As [`Self::new`], telling the server about tools as the `toolCalling` setting says.
    pub fn with_tool_calling(
        kind: ProviderKind,
        base_url: Option<&str>,
        key: Option<ApiKey>,
        quick: bool,
        tool_calling: ToolCalling,
    ) -> Result<Self, HostError> {
        let mut config = ProviderConfig::new(kind).with_tool_calling(tool_calling);
        if let Some(url) = base_url.map(str::trim).filter(|u| !u.is_empty()) {
            config = config.with_base_url(url);
        }
        if let Some(key) = key {
            config = config.with_api_key(key);
        }
        if quick {
            config = config
                .with_retry(RetryPolicy::never())
                .with_timeouts(QUICK_TIMEOUTS.0, QUICK_TIMEOUTS.1);
        }
        Ok(Self {
            provider: Provider::new(config.with_env())?,
            tool_calling,
        })
    }

    /// With the key the keychain (or the environment) holds for `kind`.
    pub async fn with_stored_key(
        keys: Arc<dyn KeyStore>,
        kind: ProviderKind,
        base_url: Option<&str>,
    ) -> Result<Self, HostError> {
        // The keychain answers over D-Bus, which blocks.
        let key = tokio::task::spawn_blocking(move || resolve_key(kind, Some(&*keys)))
            .await
            .map_err(|e| HostError::Internal(e.to_string()))??;
        Self::new(kind, base_url, key, false)
    }

    /// Where requests go.
    pub fn base_url(&self) -> &str {
        self.provider.base_url()
    }

    pub async fn list_models(&self) -> Result<Vec<ModelInfo>, HostError> {
        Ok(self.provider.list_models().await?)
    }

    pub async fn test(&self, model: Option<&str>) -> Result<ConnectionReport, HostError> {
        let model = model.map(str::trim).filter(|m| !m.is_empty());
        Ok(self.provider.test_connection(model).await?)
    }

    /// Sends one short request offering a harmless tool and reports how `model` answered
    /// (natively, as text, with the tools described in the prompt after the server refused
    /// the `tools` parameter, or not at all), with advice.
    pub async fn probe_tools(&self, model: &str) -> Result<ToolProbeReport, HostError> {
        let model = model.trim();
        if model.is_empty() {
            return Err(crate::error::RequestError::NoModelToTest.into());
        }
        let p = self.provider.probe_tools(model).await?;
        // What runs will do from now on: a probe that saw the server leave the call in the
        // text (or refuse the tools) is remembered; one that saw a native call forgets.
        let prompted_from_now_on = match (self.tool_calling, crate::tool_modes::default_file()) {
            (ToolCalling::Auto, Some(file)) => {
                let base = self.provider.base_url();
                match self.provider.why_prompted() {
                    Some(why) => {
                        crate::tool_modes::remember(&file, base, model, &why);
                        Some(why)
                    }
                    None if p.mode == paddock_providers::ToolCallMode::Native => {
                        crate::tool_modes::forget(&file, base, model);
                        None
                    }
                    None => crate::tool_modes::remembered(&file, base, model),
                }
            }
            _ => None,
        };
        Ok(ToolProbeReport {
            mode: match p.mode {
                paddock_providers::ToolCallMode::Native => ToolCallMode::Native,
                paddock_providers::ToolCallMode::TextFallback => ToolCallMode::TextFallback,
                paddock_providers::ToolCallMode::Prompted => ToolCallMode::Prompted,
                paddock_providers::ToolCallMode::None => ToolCallMode::None,
            },
            streaming: p.streaming,
            first_token_ms: p.first_token_ms,
            total_ms: p.total_ms,
            context_window: p.context_window.tokens,
            window_source: match p.context_window.source {
                paddock_providers::WindowSource::Server => "server",
                paddock_providers::WindowSource::Table => "table",
                paddock_providers::WindowSource::Default => "default",
            }
            .to_owned(),
            advice: p.advice,
            detail: p.detail,
            prompted_from_now_on,
        })
    }
}
