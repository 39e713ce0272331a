//! Which models take images: a yes or no for the hosted models Paddock knows; for an
//! OpenAI-compatible server, what the server says of its model (llama.cpp, Ollama, LM
//! Studio); unknown for the rest (the `images` setting can say so).

mod probe;

pub(crate) use probe::discover;

use paddock_protocol::ProviderKind;

/// Whether `model` of `provider` takes images: `Some(true)`, `Some(false)`, or `None` when
/// Paddock cannot tell (then images are sent, and the server's refusal is shown).
///
/// Anthropic: every Claude 3 and later model reads images
/// (platform.claude.com/docs/en/build-with-claude/vision, read 2026-12-06). OpenAI: GPT-4o,
/// GPT-4.1, GPT-5, o1, o3 and o4-mini take image inputs; GPT-3.5, o1-mini and o3-mini do
/// not (platform.openai.com/docs/models, read 2026-12-06).
pub fn takes_images(provider: ProviderKind, model: &str) -> Option<bool> {
    let model = model.to_ascii_lowercase();
    match provider {
        ProviderKind::Anthropic => {
            let m = model.strip_prefix("claude-")?;
            // claude-2.x and claude-instant read text only.
            if m.starts_with('2') || m.starts_with("instant") {
                Some(false)
            } else {
                Some(true)
            }
        }
        ProviderKind::OpenAi => {
            let no = ["gpt-3.5", "o1-mini", "o3-mini", "gpt-4-0", "gpt-4-32k"];
            let yes = [
                "gpt-4o",
                "gpt-4.1",
                "gpt-4-turbo",
                "gpt-5",
                "o1",
                "o3",
                "o4-mini",
                "chatgpt-4o",
            ];
            if no.iter().any(|p| model.starts_with(p)) || model == "gpt-4" {
                Some(false)
            } else if yes.iter().any(|p| model.starts_with(p)) {
                Some(true)
            } else {
                None
            }
        }
        ProviderKind::OpenAiCompatible => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosted_models_are_known() {
        use ProviderKind::*;
        for (p, m, takes) in [
            (Anthropic, "claude-sonnet-4-5", Some(true)),
            (Anthropic, "claude-3-haiku-20240307", Some(true)),
            (Anthropic, "claude-2.1", Some(false)),
            (OpenAi, "gpt-4o-mini", Some(true)),
            (OpenAi, "gpt-4.1", Some(true)),
            (OpenAi, "gpt-5.2", Some(true)),
            (OpenAi, "o1", Some(true)),
            (OpenAi, "o3", Some(true)),
            (OpenAi, "o4-mini", Some(true)),
            (OpenAi, "gpt-3.5-turbo", Some(false)),
            (OpenAi, "o1-mini", Some(false)),
            (OpenAi, "o3-mini", Some(false)),
            (OpenAi, "davinci-002", None),
            (OpenAiCompatible, "llava", None),
        ] {
            assert_eq!(takes_images(p, m), takes, "{p:?} {m}");
        }
    }
}
