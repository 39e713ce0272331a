//! What a provider needs to know: which vendor, where, with which key, and how patient to be.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use paddock_core::ModelError;
use paddock_protocol::ErrorKind;
use reqwest::Url;

use crate::key::ApiKey;

/// The wire formats Paddock speaks (shared with the settings and the UI).
pub use paddock_protocol::{ProviderKind, ToolCalling};

/// How failed calls are retried: 429, 5xx and connection failures, before any output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included (1 = never retry).
    pub max_attempts: u32,
    /// Delay before the first retry; doubled each time, with jitter.
    pub base_delay: Duration,
    /// Upper bound of a computed backoff delay.
    pub max_delay: Duration,
    /// A vendor's Retry-After longer than this is not waited for: the error is surfaced.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    pub fn never() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }
}

/// Told to the host before each retry, so a UI can say "rate limited, retrying in 2 s".
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNotice {
    /// The attempt that failed (1-based).
    pub attempt: u32,
    pub max_attempts: u32,
    pub delay: Duration,
    pub error: ModelError,
}

pub type RetryHook = Arc<dyn Fn(&RetryNotice) + Send + Sync>;

/// Everything needed to build a [`crate::Provider`].
#[derive(Clone)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// `None` uses the vendor's default; required for `openai-compatible`.
    pub base_url: Option<String>,
    pub api_key: Option<ApiKey>,
    pub connect_timeout: Duration,
    /// Longest wait for the response headers or for the next piece of a stream.
    pub idle_timeout: Duration,
    pub retry: RetryPolicy,
    /// Anthropic requires an output limit on every call; used when the request has none.
    pub default_max_tokens: u32,
    /// Anthropic extended thinking: the token budget, `None` leaves it off.
    pub thinking_budget: Option<u32>,
    /// Anthropic prompt caching: mark the system prompt (or the tools) and the last two user
    /// turns as cache breakpoints, so each turn of a run re-reads the conversation so far at
    /// the cached rate. On by default; prompts below the model's minimum are not cached.
    pub prompt_cache: bool,
    /// OpenAI-compatible: recover tool calls printed as text when none came natively.
    pub text_tool_calls: bool,
    /// OpenAI-compatible: tools in the `tools` parameter, described in the prompt, or the
    /// first until the server refuses it (the default).
    pub tool_calling: ToolCalling,
    /// Auto mode: why an earlier run turned this server prompted (it starts prompted).
    pub remembered_prompted: Option<String>,
    /// Auto mode: told why, once, when the connection turns prompted.
    pub on_prompted: Option<crate::tool_mode::PromptedHook>,
    pub on_retry: Option<RetryHook>,
}

impl ProviderConfig {
    pub fn new(kind: ProviderKind) -> Self {
        Self {
            kind,
            base_url: None,
            api_key: None,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(180),
            retry: RetryPolicy::default(),
            default_max_tokens: 8192,
            thinking_budget: None,
            prompt_cache: true,
            text_tool_calls: true,
            tool_calling: ToolCalling::Auto,
            remembered_prompted: None,
            on_prompted: None,
            on_retry: None,
        }
    }

    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Takes the key from [`ProviderKind::key_env_var`] when none is set yet.
    pub fn with_env_key(mut self) -> Self {
        if self.api_key.is_none() {
            self.api_key = ApiKey::from_env(self.kind.key_env_var());
        }
        self
    }

    /// Headless defaults: the key and base URL from [`ProviderKind::key_env_var`] and
    /// [`ProviderKind::base_url_env_var`], for whichever of the two is not set yet.
    pub fn with_env(mut self) -> Self {
        self = self.with_env_key();
        if self.base_url.is_none() {
            self.base_url = std::env::var(self.kind.base_url_env_var())
                .ok()
                .filter(|u| !u.trim().is_empty());
        }
        self
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn with_timeouts(mut self, connect: Duration, idle: Duration) -> Self {
        self.connect_timeout = connect;
        self.idle_timeout = idle;
        self
    }

    pub fn with_thinking_budget(mut self, tokens: u32) -> Self {
        self.thinking_budget = Some(tokens);
        self
    }

    pub fn with_tool_calling(mut self, mode: ToolCalling) -> Self {
        self.tool_calling = mode;
        self
    }

    /// Auto mode starts prompted: an earlier run learned so, for `why`.
    pub fn with_remembered_prompted(mut self, why: Option<String>) -> Self {
        self.remembered_prompted = why;
        self
    }

    /// Auto mode: `hook` is told why when the connection turns prompted.
    pub fn on_prompted(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_prompted = Some(Arc::new(hook));
        self
    }

    pub fn on_retry(mut self, hook: impl Fn(&RetryNotice) + Send + Sync + 'static) -> Self {
        self.on_retry = Some(Arc::new(hook));
        self
    }

    /// The API root every endpoint is joined to, normalised (see [`normalize_base_url`]).
    pub fn resolved_base_url(&self) -> Result<Url, ModelError> {
        let raw = match (&self.base_url, self.kind.default_base_url()) {
            (Some(url), _) if !url.trim().is_empty() => url.trim(),
            (_, Some(default)) => default,
            _ => {
                return Err(ModelError::new(
                    ErrorKind::InvalidRequest,
                    "no base URL is set for the OpenAI-compatible provider: set one (\"baseUrl\" \
                     in the settings, or PADDOCK_OPENAI_COMPAT_BASE_URL), e.g. \
                     http://localhost:11434/v1 (Ollama), http://localhost:1234/v1 (LM Studio), \
                     http://localhost:8080/v1 (llama.cpp) or http://localhost:8000/v1 (vLLM)",
                ));
            }
        };
        normalize_base_url(self.kind, raw)
    }
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("retry", &self.retry)
            .field("default_max_tokens", &self.default_max_tokens)
            .field("thinking_budget", &self.thinking_budget)
            .field("prompt_cache", &self.prompt_cache)
            .field("text_tool_calls", &self.text_tool_calls)
            .field("tool_calling", &self.tool_calling)
            .field("on_retry", &self.on_retry.as_ref().map(|_| "hook"))
            .finish()
    }
}

/// Forgives the usual ways of writing a base URL: a trailing slash, a pasted endpoint
/// (`.../chat/completions`, `.../v1/messages`), or a bare host for a local server
/// (`http://localhost:11434` means `http://localhost:11434/v1`). Anthropic's root is the
/// host: its endpoints carry the `/v1` themselves.
pub fn normalize_base_url(kind: ProviderKind, raw: &str) -> Result<Url, ModelError> {
    let bad = |why: &str| {
        ModelError::new(
            ErrorKind::InvalidRequest,
            format!("the base URL '{raw}' is not usable: {why}"),
        )
    };
    let mut url = Url::parse(raw.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("use http:// or https://"));
    }
    if url.cannot_be_a_base() || url.host_str().is_none() {
        return Err(bad("it has no host"));
    }
    url.set_query(None);
    url.set_fragment(None);
    let mut path = url.path().trim_end_matches('/').to_owned();
    for suffix in ["/chat/completions", "/messages", "/models"] {
        if let Some(stripped) = path.strip_suffix(suffix) {
            path = stripped.to_owned();
        }
    }
    match kind {
        ProviderKind::Anthropic => {
            if let Some(stripped) = path.strip_suffix("/v1") {
                path = stripped.to_owned();
            }
        }
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => {
            if path.is_empty() {
                path = "/v1".to_owned();
            }
        }
    }
    url.set_path(&path);
    Ok(url)
}

/// `base` joined with `endpoint` ("chat/completions", "v1/messages").
pub(crate) fn endpoint(base: &Url, endpoint: &str) -> String {
    format!("{}/{endpoint}", base.as_str().trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(kind: ProviderKind, raw: &str) -> String {
        normalize_base_url(kind, raw).unwrap().to_string()
    }

    #[test]
    fn base_urls_are_normalised() {
        use ProviderKind::*;
        assert_eq!(
            norm(OpenAiCompatible, "http://localhost:11434"),
            "http://localhost:11434/v1"
        );
        assert_eq!(
            norm(OpenAiCompatible, "http://localhost:11434/v1/"),
            "http://localhost:11434/v1"
        );
        assert_eq!(
            norm(
                OpenAiCompatible,
                "http://127.0.0.1:8080/v1/chat/completions"
            ),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(
            norm(OpenAiCompatible, "https://example.com/openai/v1"),
            "https://example.com/openai/v1"
        );
        assert_eq!(
            norm(OpenAi, "https://api.openai.com"),
            "https://api.openai.com/v1"
        );
        assert_eq!(
            norm(Anthropic, "https://api.anthropic.com/v1"),
            "https://api.anthropic.com/"
        );
        assert_eq!(
            norm(Anthropic, "http://127.0.0.1:9/v1/messages"),
            "http://127.0.0.1:9/"
        );
        assert_eq!(
            endpoint(
                &normalize_base_url(Anthropic, "http://h:1").unwrap(),
                "v1/messages"
            ),
            "http://h:1/v1/messages"
        );
    }

    #[test]
    fn unusable_base_urls_say_why() {
        for raw in ["localhost:11434", "ftp://host/v1", "not a url"] {
            let err = normalize_base_url(ProviderKind::OpenAiCompatible, raw).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidRequest);
            assert!(err.message.contains(raw), "{}", err.message);
        }
        let err = ProviderConfig::new(ProviderKind::OpenAiCompatible)
            .resolved_base_url()
            .unwrap_err();
        assert!(err.message.contains("11434"), "{}", err.message);
    }

    #[test]
    fn kinds_parse_and_name_their_env_vars() {
        for kind in ProviderKind::ALL {
            assert_eq!(kind.as_str().parse::<ProviderKind>().unwrap(), kind);
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
        assert!("gemini".parse::<ProviderKind>().is_err());
        assert_eq!(
            ProviderKind::OpenAiCompatible.key_env_var(),
            "PADDOCK_OPENAI_COMPAT_API_KEY"
        );
    }

    #[test]
    fn debug_hides_the_key() {
        let cfg =
            ProviderConfig::new(ProviderKind::OpenAi).with_api_key(ApiKey::new("sk-live-xyz"));
        assert!(!format!("{cfg:?}").contains("sk-live-xyz"));
    }
}
