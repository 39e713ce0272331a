//! How tools reach an OpenAI-compatible server: in the `tools` parameter (native), or
//! described in the system prompt with the calls read back from the text (prompted), for
//! servers that refuse the parameter (llama-server without `--jinja`, Ollama models
//! without a tool template, vLLM without a tool-call parser). The `toolCalling` setting
//! picks one; `auto` starts native and turns prompted, for the connection (every clone of
//! the provider), once the server refuses the parameter or once the model's calls keep
//! coming back as text the server did not parse (its tool template does not fit the
//! model: measured with Qwen2.5-Coder 1.5B, prompted answered 9 of 15 where native with
//! every call read from the text answered 3). What was learned is handed to
//! [`PromptedHook`] so the host can remember it for the next run.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use paddock_protocol::ToolCalling;

use crate::refusals::ToolsRefusal;

/// Calls read from the text, with none parsed by the server, after which auto turns
/// prompted.
pub const TEXT_CALLS_TO_PROMPT: u32 = 2;

/// Told, once per connection, why auto mode turned prompted (one sentence).
pub type PromptedHook = Arc<dyn Fn(&str) + Send + Sync>;

/// The mode a connection uses for calls that offer tools.
#[derive(Default)]
pub(crate) struct ToolMode {
    setting: ToolCalling,
    /// Auto mode turned prompted (the server refused the parameter, or its calls came as
    /// text), or started so from what was remembered.
    prompted: AtomicBool,
    refusal: Mutex<Option<ToolsRefusal>>,
    /// Why auto mode is prompted, once it is.
    why: Mutex<Option<String>>,
    /// Calls seen in native mode: parsed by the server, and read from the text.
    native_calls: AtomicU32,
    text_calls: AtomicU32,
    on_prompted: Option<PromptedHook>,
}

impl std::fmt::Debug for ToolMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolMode")
            .field("setting", &self.setting)
            .field("prompted", &self.prompted)
            .finish_non_exhaustive()
    }
}

impl ToolMode {
    /// `remembered`: why an earlier run turned this server prompted (auto mode only).
    pub fn new(
        setting: ToolCalling,
        remembered: Option<String>,
        on_prompted: Option<PromptedHook>,
    ) -> Self {
        let remembered = remembered.filter(|_| setting == ToolCalling::Auto);
        Self {
            setting,
            prompted: AtomicBool::new(remembered.is_some()),
            why: Mutex::new(remembered),
            on_prompted,
            ..Self::default()
        }
    }

    /// Whether calls with tools describe them in the prompt.
    pub fn prompts(&self) -> bool {
        self.setting == ToolCalling::Prompted || self.prompted.load(Ordering::Relaxed)
    }

    /// Whether a refusal of the `tools` parameter may be met with the prompted form.
    pub fn may_fall_back(&self) -> bool {
        self.setting == ToolCalling::Auto && !self.prompts()
    }

    /// The server refused the parameter: prompted from now on.
    pub fn fall_back(&self, why: ToolsRefusal) {
        *self.refusal.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
        let said = match why {
            ToolsRefusal::NeedsJinja => {
                "the server refused the tools parameter (llama-server without --jinja)"
            }
            ToolsRefusal::Unsupported => "the server refused the tools parameter",
        };
        self.turn_prompted(said);
    }

    /// A call arrived while native: counted, and auto turns prompted once
    /// [`TEXT_CALLS_TO_PROMPT`] came as text with none parsed by the server. Returns why,
    /// when this call turned it.
    pub fn observe_call(&self, from_text: bool) -> Option<String> {
        if self.setting != ToolCalling::Auto || self.prompts() {
            return None;
        }
        let (native, text) = if from_text {
            (
                self.native_calls.load(Ordering::Relaxed),
                self.text_calls.fetch_add(1, Ordering::Relaxed) + 1,
            )
        } else {
            (
                self.native_calls.fetch_add(1, Ordering::Relaxed) + 1,
                self.text_calls.load(Ordering::Relaxed),
            )
        };
        (native == 0 && text >= TEXT_CALLS_TO_PROMPT).then(|| {
            let why = format!(
                "the server parsed none of the model's tool calls ({text} came back as text)"
            );
            self.turn_prompted(&why);
            why
        })
    }

    /// Auto mode: prompted from now on, for `why` (a probe saw the server leave the call
    /// in the text).
    pub fn prefer_prompted(&self, why: &str) {
        if self.setting == ToolCalling::Auto {
            self.turn_prompted(why);
        }
    }

    fn turn_prompted(&self, why: &str) {
        *self.why.lock().unwrap_or_else(PoisonError::into_inner) = Some(why.to_owned());
        if !self.prompted.swap(true, Ordering::Relaxed)
            && let Some(hook) = &self.on_prompted
        {
            hook(why);
        }
    }

    /// Why the server refused the parameter, once it did.
    pub fn refusal(&self) -> Option<ToolsRefusal> {
        *self.refusal.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why auto mode is prompted (learned now or remembered), when it is.
    pub fn why_prompted(&self) -> Option<String> {
        if self.setting != ToolCalling::Auto {
            return None;
        }
        self.why
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hooked() -> (Arc<Mutex<Vec<String>>>, PromptedHook) {
        let said = Arc::new(Mutex::new(Vec::new()));
        let to = said.clone();
        (
            said,
            Arc::new(move |why: &str| to.lock().unwrap().push(why.to_owned())),
        )
    }

    #[test]
    fn calls_that_keep_coming_as_text_turn_auto_prompted_once() {
        let (said, hook) = hooked();
        let mode = ToolMode::new(ToolCalling::Auto, None, Some(hook));
        mode.observe_call(true);
        assert!(!mode.prompts());
        mode.observe_call(true);
        assert!(mode.prompts());
        mode.observe_call(true);
        assert_eq!(said.lock().unwrap().len(), 1, "told once");
        assert!(mode.why_prompted().unwrap().contains("2 came back as text"));
    }

    #[test]
    fn one_native_call_keeps_native() {
        let mode = ToolMode::new(ToolCalling::Auto, None, None);
        mode.observe_call(false);
        for _ in 0..5 {
            mode.observe_call(true);
        }
        assert!(!mode.prompts());
    }

    #[test]
    fn a_remembered_mode_holds_in_auto_only() {
        let auto = ToolMode::new(ToolCalling::Auto, Some("refused".into()), None);
        assert!(auto.prompts());
        assert_eq!(auto.why_prompted().as_deref(), Some("refused"));
        let native = ToolMode::new(ToolCalling::Native, Some("refused".into()), None);
        assert!(!native.prompts());
        let native_texts = ToolMode::new(ToolCalling::Native, None, None);
        native_texts.observe_call(true);
        native_texts.observe_call(true);
        assert!(!native_texts.prompts(), "a forced mode is never changed");
    }

    #[test]
    fn a_refusal_turns_prompted_and_tells() {
        let (said, hook) = hooked();
        let mode = ToolMode::new(ToolCalling::Auto, None, Some(hook));
        mode.fall_back(ToolsRefusal::NeedsJinja);
        assert!(mode.prompts());
        assert!(said.lock().unwrap()[0].contains("--jinja"));
    }
}
