//! The built-in table: context windows of hosted models by id prefix, checked against
//! the vendors' documentation. A window here is what one request may fill (input and
//! output together) and what the vendor enforces, which is not always the headline
//! number: GPT-5's "400K context" accepts at most 272K input tokens.
//!
//! Sources, as of the time of writing:
//! - Anthropic: the model pages at platform.claude.com/docs/en/models/<model>/overview
//!   ("Claude Opus 4.6 ... Context window: 1M tokens"; Sonnet 4.6 likewise) and the models
//!   overview (Haiku 4.5: 200K tokens). Claude 3.x and 4.0 to 4.5 (Sonnet 4.5 named
//!   explicitly on the context-windows page) hold 200K; Claude 2.0 and Instant held 100K.
//!   Newer Claude models hold 1M but ids not listed here are asked of the Models API
//!   (`max_input_tokens`) first; `claude-*` at 200K is only the floor when it cannot say.
//! - OpenAI: the model pages at platform.openai.com/docs/models (GPT-4o and GPT-4 Turbo
//!   128,000; GPT-4.1 family 1,047,576; o1, o3, o4-mini 200,000, o1-mini and o1-preview
//!   128,000; GPT-4 8,192; GPT-3.5 Turbo 16,385). GPT-5: 400,000 in total of which at
//!   most 272,000 input ("Introducing GPT-5 for developers"; the API answers "Input tokens
//!   exceed the configured limit of 272,000 tokens", community.openai.com/t/1344734), so
//!   272,000 is the window a conversation may fill; the chat-latest variants hold 128,000.
//!   OpenAI's `/v1/models` reports no window, so this table is all there is for OpenAI.

use crate::config::ProviderKind;

/// How much an entry can be trusted for the ids it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Documented for every id the prefix matches.
    Exact,
    /// A lower bound for a family whose newer members may hold more: worth asking the
    /// vendor's model list first, safe to use when it cannot say.
    Floor,
}

struct Entry {
    prefix: &'static str,
    tokens: u32,
    fit: Fit,
}

const fn exact(prefix: &'static str, tokens: u32) -> Entry {
    Entry {
        prefix,
        tokens,
        fit: Fit::Exact,
    }
}

const fn floor(prefix: &'static str, tokens: u32) -> Entry {
    Entry {
        prefix,
        tokens,
        fit: Fit::Floor,
    }
}

/// Most specific first: the first matching prefix wins.
const ANTHROPIC: &[Entry] = &[
    exact("claude-opus-4-6", 1_000_000),
    exact("claude-sonnet-4-6", 1_000_000),
    exact("claude-opus-4-5", 200_000),
    exact("claude-sonnet-4-5", 200_000),
    exact("claude-haiku-4-5", 200_000),
    exact("claude-opus-4-1", 200_000),
    exact("claude-opus-4-0", 200_000),
    exact("claude-opus-4-20250514", 200_000),
    exact("claude-sonnet-4-0", 200_000),
    exact("claude-sonnet-4-20250514", 200_000),
    exact("claude-3", 200_000),
    exact("claude-2.1", 200_000),
    exact("claude-2", 100_000),
    exact("claude-instant", 100_000),
    floor("claude", 200_000),
];

const OPENAI: &[Entry] = &[
    exact("gpt-5-chat-latest", 128_000),
    exact("gpt-5.1-chat-latest", 128_000),
    exact("gpt-5.2-chat-latest", 128_000),
    exact("gpt-5.3-chat-latest", 128_000),
    exact("gpt-5.3-codex-spark", 100_000),
    floor("gpt-5", 272_000),
    exact("gpt-4.1", 1_047_576),
    exact("gpt-4o", 128_000),
    exact("chatgpt-4o", 128_000),
    exact("gpt-4-turbo", 128_000),
    exact("gpt-4-1106-preview", 128_000),
    exact("gpt-4-0125-preview", 128_000),
    exact("gpt-4-32k", 32_768),
    exact("gpt-4", 8_192),
    exact("gpt-3.5-turbo-instruct", 4_096),
    exact("gpt-3.5-turbo", 16_385),
    exact("o1-mini", 128_000),
    exact("o1-preview", 128_000),
    exact("o1", 200_000),
    exact("o3", 200_000),
    exact("o4", 200_000),
];

/// Characters that may follow a prefix: "gpt-4o" matches "gpt-4o-mini" and
/// "gpt-4o-2024-08-06" but not "gpt-4o1"; "gpt-5" matches "gpt-5.2"; "claude-sonnet-4-6"
/// matches "claude-sonnet-4-6[1m]".
fn matches(prefix: &str, id: &str) -> bool {
    match id.strip_prefix(prefix) {
        Some(rest) => rest.is_empty() || rest.starts_with(['-', '.', ':', '@', '[', '_']),
        None => false,
    }
}

fn find(table: &[Entry], id: &str) -> Option<(u32, Fit)> {
    table
        .iter()
        .find(|e| matches(e.prefix, id))
        .map(|e| (e.tokens, e.fit))
}

/// The entry for `model`, with how far it can be trusted. The Anthropic API serves only
/// Claude; OpenAI-style servers (and the proxies behind an OpenAI-compatible base URL)
/// may serve either vendor's models, often as `vendor/model`.
pub(crate) fn lookup(kind: ProviderKind, model: &str) -> Option<(u32, Fit)> {
    let id = model.trim().to_ascii_lowercase();
    match kind {
        ProviderKind::Anthropic => find(ANTHROPIC, &id),
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => {
            let bare = id.rsplit('/').next().unwrap_or(&id);
            find(OPENAI, bare).or_else(|| find(ANTHROPIC, bare))
        }
    }
}

/// The built-in table: the context window of a hosted OpenAI or Anthropic model, from
/// its id, without asking anyone. `None` for ids it does not know (local models).
pub fn known_window(kind: ProviderKind, model: &str) -> Option<u32> {
    lookup(kind, model).map(|(tokens, _)| tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProviderKind::*;

    #[test]
    fn documented_windows() {
        let cases = [
            (Anthropic, "claude-opus-4-6", 1_000_000),
            (Anthropic, "claude-sonnet-4-6", 1_000_000),
            (Anthropic, "claude-sonnet-4-5-20250929", 200_000),
            (Anthropic, "claude-haiku-4-5", 200_000),
            (Anthropic, "claude-opus-4-20250514", 200_000),
            (Anthropic, "claude-3-5-haiku-latest", 200_000),
            (Anthropic, "claude-3-7-sonnet-20250219", 200_000),
            (Anthropic, "claude-2.0", 100_000),
            (Anthropic, "claude-2.1", 200_000),
            (OpenAi, "gpt-4o", 128_000),
            (OpenAi, "gpt-4o-mini-2024-07-18", 128_000),
            (OpenAi, "chatgpt-4o-latest", 128_000),
            (OpenAi, "gpt-4-turbo-2024-04-09", 128_000),
            (OpenAi, "gpt-4.1", 1_047_576),
            (OpenAi, "gpt-4.1-nano", 1_047_576),
            (OpenAi, "gpt-4", 8_192),
            (OpenAi, "gpt-4-0613", 8_192),
            (OpenAi, "gpt-4-32k", 32_768),
            (OpenAi, "o1", 200_000),
            (OpenAi, "o1-2024-12-17", 200_000),
            (OpenAi, "o1-mini", 128_000),
            (OpenAi, "o3-mini", 200_000),
            (OpenAi, "o4-mini", 200_000),
            (OpenAi, "gpt-5", 272_000),
            (OpenAi, "gpt-5-mini", 272_000),
            (OpenAi, "gpt-5.2-codex", 272_000),
            (OpenAi, "gpt-5.1-chat-latest", 128_000),
            (OpenAiCompatible, "openai/gpt-4o", 128_000),
            (OpenAiCompatible, "anthropic/claude-3-opus", 200_000),
        ];
        for (kind, model, tokens) in cases {
            assert_eq!(known_window(kind, model), Some(tokens), "{kind} {model}");
        }
    }

    #[test]
    fn prefixes_respect_word_boundaries() {
        assert_eq!(known_window(OpenAi, "gpt-4o1"), None);
        assert_eq!(known_window(OpenAi, "o10"), None);
        assert_eq!(known_window(OpenAi, "gpt-oss:20b"), None);
        assert_eq!(known_window(OpenAiCompatible, "olmo2:7b"), None);
        assert_eq!(known_window(OpenAiCompatible, "qwen3:8b"), None);
        assert_eq!(known_window(Anthropic, "gpt-4o"), None, "not served there");
        assert_eq!(known_window(OpenAi, "GPT-4o"), Some(128_000));
        assert_eq!(
            known_window(Anthropic, "claude-sonnet-4-6[1m]"),
            Some(1_000_000)
        );
    }

    #[test]
    fn family_floors_are_marked() {
        assert_eq!(
            lookup(Anthropic, "claude-opus-9"),
            Some((200_000, Fit::Floor))
        );
        assert_eq!(lookup(OpenAi, "gpt-5.5"), Some((272_000, Fit::Floor)));
        assert_eq!(lookup(OpenAi, "gpt-4.1"), Some((1_047_576, Fit::Exact)));
        // The newest Claude models are not in the table by name: the floor sends the
        // question to the Models API first.
        assert_eq!(
            lookup(Anthropic, "claude-opus-4-8"),
            Some((200_000, Fit::Floor))
        );
    }
}
