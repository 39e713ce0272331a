//! How tools reach an OpenAI-compatible server: in the `tools` parameter (native), or
//! described in the system prompt with the calls read back from the text (prompted), for
//! servers that refuse the parameter (llama-server without `--jinja`, Ollama models
//! without a tool template, vLLM without a tool-call parser). The `toolCalling` setting
//! picks one; `auto` starts native and falls back once a server refuses, remembering it
//! for the connection (every clone of the provider).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use paddock_protocol::ToolCalling;

use crate::refusals::ToolsRefusal;

/// The mode a connection uses for calls that offer tools.
#[derive(Debug, Default)]
pub(crate) struct ToolMode {
    setting: ToolCalling,
    /// The server refused the `tools` parameter (auto mode).
    fell_back: AtomicBool,
    refusal: Mutex<Option<ToolsRefusal>>,
}

impl ToolMode {
    pub fn new(setting: ToolCalling) -> Self {
        Self {
            setting,
            ..Self::default()
        }
    }

    /// Whether calls with tools describe them in the prompt.
    pub fn prompts(&self) -> bool {
        self.setting == ToolCalling::Prompted || self.fell_back.load(Ordering::Relaxed)
    }

    /// Whether a refusal of the `tools` parameter may be met with the prompted form.
    pub fn may_fall_back(&self) -> bool {
        self.setting == ToolCalling::Auto && !self.prompts()
    }

    /// The server refused the parameter: prompted from now on.
    pub fn fall_back(&self, why: ToolsRefusal) {
        *self.refusal.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
        self.fell_back.store(true, Ordering::Relaxed);
    }

    /// Why the server refused the parameter, once it did.
    pub fn refusal(&self) -> Option<ToolsRefusal> {
        *self.refusal.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
