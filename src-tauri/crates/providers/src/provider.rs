//! [`Provider`]: one configured vendor connection, usable as the kernel's [`Model`].

pub(crate) mod tool_probe;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use paddock_core::{Model, ModelError, ModelRequest, ModelStream};
use paddock_protocol::ErrorKind;

use crate::anthropic;
use crate::catalog::{self, ConnectionReport, ModelInfo};
use crate::config::{ProviderConfig, ProviderKind};
use crate::http::Transport;
use crate::openai;
use crate::tool_mode::ToolMode;
use crate::window::{self, ContextWindow, ProbeCache, WindowCache};

/// A model vendor, ready to stream. Cheap to clone; clones share one connection pool.
#[derive(Clone)]
pub struct Provider {
    kind: ProviderKind,
    transport: Arc<Transport>,
    anthropic: anthropic::Options,
    text_tool_calls: bool,
    windows: Arc<WindowCache>,
    /// Whether each model reads images, as its server said.
    vision: Arc<ProbeCache<Option<bool>>>,
    /// The server refused to stream a call with tools: such calls go unstreamed.
    unstreamed_tools: Arc<AtomicBool>,
    /// Tools in the `tools` parameter or described in the prompt (compatible servers).
    tool_mode: Arc<ToolMode>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("kind", &self.kind)
            .field("base_url", &self.transport.ctx.base_url)
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// Checks the config (base URL, key presence) and sets up the HTTP client.
    pub fn new(config: ProviderConfig) -> Result<Self, ModelError> {
        let kind = config.kind;
        let has_key = config.api_key.as_ref().is_some_and(|k| !k.is_empty());
        if kind.requires_key() && !has_key {
            return Err(ModelError::new(
                ErrorKind::Auth,
                format!(
                    "{} needs an API key: add one in Settings or set the {} environment variable",
                    kind.label(),
                    kind.key_env_var()
                ),
            ));
        }
        let headers = match kind {
            ProviderKind::Anthropic => anthropic::headers(&config)?,
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => openai::headers(&config)?,
        };
        let transport = Arc::new(Transport::new(&config, headers)?);
        Ok(Self {
            kind,
            transport,
            anthropic: anthropic::Options {
                default_max_tokens: config.default_max_tokens,
                thinking_budget: config.thinking_budget,
                prompt_cache: config.prompt_cache,
            },
            text_tool_calls: config.text_tool_calls,
            windows: Arc::new(WindowCache::default()),
            vision: Arc::new(ProbeCache::default()),
            unstreamed_tools: Arc::new(AtomicBool::new(false)),
            tool_mode: Arc::new(ToolMode::new(
                config.tool_calling,
                config.remembered_prompted.clone(),
                config.on_prompted.clone(),
            )),
        })
    }

    pub fn kind(&self) -> ProviderKind {
        self.kind
    }

    pub(crate) fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The API root requests go to, after normalisation.
    pub fn base_url(&self) -> &str {
        &self.transport.ctx.base_url
    }

    /// The models this server offers, for the settings dropdown.
    pub async fn list_models(&self) -> Result<Vec<ModelInfo>, ModelError> {
        match self.kind {
            ProviderKind::Anthropic => anthropic::list_models(&self.transport).await,
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => {
                openai::list_models(&self.transport).await
            }
        }
    }

    /// How many tokens `model` holds on this server. Never fails: for OpenAI-compatible
    /// servers it asks llama.cpp's `/props`, Ollama's `/api/show`, LM Studio's
    /// `/api/v0/models` and the `/models` list in turn (each given up after
    /// [`window::PROBE_TIMEOUT`]), then the built-in table, then
    /// [`window::DEFAULT_WINDOW`]. For OpenAI and Anthropic the table comes first; the
    /// model list is asked only for models it knows by family at most (a newer Claude).
    /// Answers are remembered per base URL and model, by every clone of this provider; an
    /// answer found while some source timed out or failed is asked again after a minute.
    pub async fn context_window(&self, model: &str) -> ContextWindow {
        let base = self.base_url();
        if let Some(known) = self.windows.get(base, model, Instant::now()) {
            return known;
        }
        let (found, settled) = window::discover(&self.transport, self.kind, model).await;
        self.windows
            .put(base, model, found, settled, Instant::now());
        found
    }

    /// Whether `model` reads images: Paddock's table for hosted models; for an
    /// OpenAI-compatible server, what it says of the model (llama.cpp's `/props`
    /// modalities, Ollama's capabilities, LM Studio's model type, each given up after
    /// [`window::PROBE_TIMEOUT`]); `None` when nothing says. Remembered as windows are.
    pub async fn takes_images(&self, model: &str) -> Option<bool> {
        if self.kind != ProviderKind::OpenAiCompatible {
            return crate::vision::takes_images(self.kind, model);
        }
        let base = self.base_url();
        if let Some(known) = self.vision.get(base, model, Instant::now()) {
            return known;
        }
        let (found, settled) = crate::vision::discover(&self.transport, model.trim()).await;
        self.vision.put(base, model, found, settled, Instant::now());
        found
    }

    /// Whether calls with tools are streamed: false once the server refused to stream one
    /// (it is then asked without streaming, by this provider and all its clones).
    pub fn streams_tool_calls(&self) -> bool {
        !self.unstreamed_tools.load(Ordering::Relaxed)
    }

    /// Whether calls with tools describe them in the system prompt (the `toolCalling`
    /// setting says so, or the server refused the `tools` parameter), by this provider and
    /// all its clones. Only OpenAI-compatible servers are ever asked that way.
    pub fn prompts_tools(&self) -> bool {
        self.kind == ProviderKind::OpenAiCompatible && self.tool_mode.prompts()
    }

    /// Why auto mode describes the tools in the prompt (learned on this connection or
    /// remembered from an earlier run), when it does.
    pub fn why_prompted(&self) -> Option<String> {
        (self.kind == ProviderKind::OpenAiCompatible)
            .then(|| self.tool_mode.why_prompted())
            .flatten()
    }

    pub(crate) fn tools_refusal(&self) -> Option<crate::refusals::ToolsRefusal> {
        self.tool_mode.refusal()
    }

    /// "Test connection": reaches the server with the key (listing models costs no tokens)
    /// and says whether `model` is among those offered.
    pub async fn test_connection(
        &self,
        model: Option<&str>,
    ) -> Result<ConnectionReport, ModelError> {
        let started = Instant::now();
        let models = self.list_models().await?;
        Ok(catalog::report(models, started, model))
    }
}

impl Model for Provider {
    fn stream(&self, request: &ModelRequest<'_>) -> ModelStream {
        match self.kind {
            ProviderKind::Anthropic => anthropic::stream(&self.transport, self.anthropic, request),
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => openai::stream(
                &self.transport,
                &openai::Modes {
                    text_tool_calls: self.text_tool_calls,
                    unstreamed_tools: &self.unstreamed_tools,
                    tools: &self.tool_mode,
                },
                request,
            ),
        }
    }
}
