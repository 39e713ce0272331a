//! How many tokens each model holds, so the kernel can compact a conversation before it
//! overflows and the app can show a context meter. Asked of the server where it can say
//! (llama.cpp, Ollama, LM Studio, vLLM, OpenRouter, Anthropic), else taken from a table
//! of hosted models, else a small safe default; remembered per base URL and model.

mod probe;
mod table;

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::config::ProviderKind;
use crate::http::Transport;

use probe::Answer;
pub(crate) use probe::{listing_window, server_root};
use table::Fit;
pub use table::known_window;

/// The window assumed when nothing is known: small enough for any current model.
pub const DEFAULT_WINDOW: u32 = 8_192;

/// How long one probe may take, connecting and reading included, before the next source
/// is tried: the answer is a small document from a server that is usually local.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Probe answers larger than this are not read (a model's details, a server's props).
pub(crate) const MAX_PROBE_BODY: usize = 1 << 20;

/// Model lists may be long (OpenRouter lists hundreds with descriptions and prices).
pub(crate) const MAX_LISTING_BODY: usize = 4 << 20;

/// Windows above this are not believed (the largest today hold about 2M tokens).
pub(crate) const MAX_PLAUSIBLE_WINDOW: u64 = 10_000_000;

/// A window found while some source could not answer (a timeout, a model not loaded yet)
/// is used for this long, then asked for again.
const UNSETTLED_TTL: Duration = Duration::from_secs(60);

/// Models remembered per provider; more are not expected, so past it the cache restarts.
const MAX_CACHED: usize = 256;

/// A model's context window: the tokens one request may hold, input and output together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindow {
    pub tokens: u32,
    pub source: WindowSource,
}

/// Where a [`ContextWindow`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowSource {
    /// What the server reported for this model (or, for Ollama, what its reported
    /// settings make it run the model with).
    Server,
    /// The built-in table of hosted models ([`known_window`]).
    Table,
    /// Nothing was known: [`DEFAULT_WINDOW`].
    Default,
}

/// A token count a server reported, if it is believable.
pub(crate) fn plausible(n: u64) -> Option<u32> {
    if n == 0 || n > MAX_PLAUSIBLE_WINDOW {
        return None;
    }
    u32::try_from(n).ok()
}

/// Finds `model`'s window, and whether the answer is final (no source failed in a way
/// that may pass).
pub(crate) async fn discover(
    t: &Transport,
    kind: ProviderKind,
    model: &str,
) -> (ContextWindow, bool) {
    let model = model.trim();
    if model.is_empty() {
        return (default_window(), true);
    }
    let entry = table::lookup(kind, model);
    let mut settled = true;
    match kind {
        ProviderKind::Anthropic | ProviderKind::OpenAi => {
            // Hosted: the table answers without a request, unless it only has a floor
            // for the model's family; then the vendor's model list may know better.
            if let Some((tokens, Fit::Exact)) = entry {
                return (table_window(tokens), true);
            }
            match probe::listing(t, kind, model).await {
                Answer::Found(tokens) => return (server_window(tokens), true),
                Answer::Unsure => settled = false,
                Answer::Absent => {}
            }
        }
        ProviderKind::OpenAiCompatible => {
            let root = probe::server_root(&t.base);
            // llama.cpp before Ollama: llama.cpp also answers `/api/show` (with its slot
            // size under a made-up key), while Ollama has no `/props`.
            for dialect in Dialect::IN_ORDER {
                let found = match dialect {
                    Dialect::LlamaCpp => probe::llama_cpp(t, &root, model).await,
                    Dialect::Ollama => probe::ollama(t, &root, model).await,
                    Dialect::LmStudio => probe::lm_studio(t, &root, model).await,
                    Dialect::Listing => probe::listing(t, kind, model).await,
                };
                match found {
                    Answer::Found(tokens) => return (server_window(tokens), true),
                    Answer::Unsure => settled = false,
                    Answer::Absent => {}
                }
            }
        }
    }
    let window = entry.map_or_else(default_window, |(tokens, _)| table_window(tokens));
    (window, settled)
}

/// The servers an OpenAI-compatible base URL may lead to, in the order they are asked.
#[derive(Clone, Copy)]
enum Dialect {
    LlamaCpp,
    Ollama,
    LmStudio,
    Listing,
}

impl Dialect {
    const IN_ORDER: [Self; 4] = [Self::LlamaCpp, Self::Ollama, Self::LmStudio, Self::Listing];
}

fn server_window(tokens: u32) -> ContextWindow {
    ContextWindow {
        tokens,
        source: WindowSource::Server,
    }
}

fn table_window(tokens: u32) -> ContextWindow {
    ContextWindow {
        tokens,
        source: WindowSource::Table,
    }
}

fn default_window() -> ContextWindow {
    ContextWindow {
        tokens: DEFAULT_WINDOW,
        source: WindowSource::Default,
    }
}

struct Cached<T> {
    answer: T,
    /// Final answers are kept; others are asked again after [`UNSETTLED_TTL`].
    settled: bool,
    at: Instant,
}

/// What servers said of their models so far (a window, whether it reads images), per
/// (base URL, model). Shared by a provider's clones.
pub(crate) struct ProbeCache<T> {
    entries: Mutex<HashMap<(String, String), Cached<T>>>,
}

pub(crate) type WindowCache = ProbeCache<ContextWindow>;

impl<T> Default for ProbeCache<T> {
    fn default() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Copy> ProbeCache<T> {
    pub fn get(&self, base_url: &str, model: &str, now: Instant) -> Option<T> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let cached = entries.get(&(base_url.to_owned(), model.to_owned()))?;
        let fresh = cached.settled || now.saturating_duration_since(cached.at) < UNSETTLED_TTL;
        fresh.then_some(cached.answer)
    }

    pub fn put(&self, base_url: &str, model: &str, answer: T, settled: bool, now: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= MAX_CACHED {
            entries.clear();
        }
        entries.insert(
            (base_url.to_owned(), model.to_owned()),
            Cached {
                answer,
                settled,
                at: now,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implausible_counts_are_unknown() {
        assert_eq!(plausible(0), None);
        assert_eq!(plausible(1), Some(1));
        assert_eq!(plausible(MAX_PLAUSIBLE_WINDOW), Some(10_000_000));
        assert_eq!(plausible(MAX_PLAUSIBLE_WINDOW + 1), None);
        assert_eq!(plausible(u64::MAX), None);
    }

    #[test]
    fn unsettled_windows_expire_settled_ones_do_not() {
        let cache = WindowCache::default();
        let t0 = Instant::now();
        let w = table_window(128_000);
        cache.put("http://h/v1", "settled", w, true, t0);
        cache.put("http://h/v1", "unsure", default_window(), false, t0);
        let later = t0 + UNSETTLED_TTL + Duration::from_secs(1);
        assert_eq!(cache.get("http://h/v1", "settled", later), Some(w));
        assert_eq!(
            cache.get("http://h/v1", "unsure", t0 + Duration::from_secs(1)),
            Some(default_window())
        );
        assert_eq!(cache.get("http://h/v1", "unsure", later), None);
        assert_eq!(
            cache.get("http://other/v1", "settled", t0),
            None,
            "per base URL"
        );
    }

    #[test]
    fn the_cache_is_bounded() {
        let cache = WindowCache::default();
        let now = Instant::now();
        for i in 0..=MAX_CACHED {
            cache.put("b", &format!("m{i}"), default_window(), true, now);
        }
        let entries = cache.entries.lock().unwrap();
        assert!(entries.len() <= MAX_CACHED, "{}", entries.len());
    }
}
