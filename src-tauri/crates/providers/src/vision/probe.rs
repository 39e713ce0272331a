//! Asking an OpenAI-compatible server whether a model reads images, in the dialects that
//! can say: llama.cpp's `/props` (`modalities.vision`, true when a projector is loaded),
//! Ollama's `/api/show` (`capabilities` lists `vision`) and LM Studio's `/api/v0/models`
//! (`type` is `vlm` or `llm`). Parsing is pure, so hostile answers are unit-tested.
//!
//! Sources, read 2026-12-06: github.com/ggml-org/llama.cpp tools/server/README.md (`GET
//! /props`), docs.ollama.com/api/show (`capabilities`), lmstudio.ai/docs/developer/rest/endpoints
//! (`GET /api/v0/models`).

use reqwest::Url;
use serde_json::{Value, json};

use crate::http::{Probed, Transport};
use crate::window::{MAX_LISTING_BODY, MAX_PROBE_BODY, PROBE_TIMEOUT, server_root};

/// What the server says of `model`, and whether that answer is final (no source failed in
/// a way that may pass). `None`: no dialect could say.
pub(crate) async fn discover(t: &Transport, model: &str) -> (Option<bool>, bool) {
    let root = server_root(&t.base);
    let mut settled = true;
    // llama.cpp first, as for the window: it also imitates `/api/show`.
    let mut props = join(&root, "props");
    if let Some(url) = props.as_mut() {
        url.query_pairs_mut().append_pair("model", model);
    }
    let show = join(&root, "api/show");
    let listing = join(&root, "api/v0/models");
    let asks: [Ask; 3] = [
        (props, None, MAX_PROBE_BODY, Dialect::LlamaCpp),
        (
            show,
            Some(json!({ "model": model }).to_string().into_bytes()),
            MAX_PROBE_BODY,
            Dialect::Ollama,
        ),
        (listing, None, MAX_LISTING_BODY, Dialect::LmStudio),
    ];
    for (url, body, cap, dialect) in asks {
        let Some(url) = url else { continue };
        match t.probe(&url, body, PROBE_TIMEOUT, cap).await {
            Probed::Json(v) => {
                let found = match dialect {
                    Dialect::LlamaCpp => parse_props(&v),
                    Dialect::Ollama => parse_show(&v),
                    Dialect::LmStudio => parse_lm_studio(&v, model),
                };
                if found.is_some() {
                    return (found, true);
                }
            }
            Probed::Absent => {}
            Probed::Unsure => settled = false,
        }
    }
    (None, settled)
}

/// One request: where, its body (a POST), how much of the answer is read, how to read it.
type Ask = (Option<Url>, Option<Vec<u8>>, usize, Dialect);

#[derive(Clone, Copy)]
enum Dialect {
    LlamaCpp,
    Ollama,
    LmStudio,
}

fn join(root: &Url, path: &str) -> Option<Url> {
    Url::parse(&crate::config::endpoint(root, path)).ok()
}

/// llama.cpp: `{"modalities": {"vision": true, "audio": false}, ...}`.
pub(crate) fn parse_props(v: &Value) -> Option<bool> {
    v.pointer("/modalities/vision").and_then(Value::as_bool)
}

/// Ollama: `capabilities` of a real Ollama answer (one whose `model_info` names its
/// architecture; llama.cpp's `/api/show` shim has no capabilities anyway).
pub(crate) fn parse_show(v: &Value) -> Option<bool> {
    v.pointer("/model_info/general.architecture")
        .and_then(Value::as_str)?;
    let caps = v.get("capabilities")?.as_array()?;
    Some(caps.iter().any(|c| c.as_str() == Some("vision")))
}

/// LM Studio: the entry whose `id` is `model`; `vlm` reads images, `llm` does not, other
/// types (embeddings) say nothing.
pub(crate) fn parse_lm_studio(v: &Value, model: &str) -> Option<bool> {
    let entry = v
        .get("data")?
        .as_array()?
        .iter()
        .find(|e| e.get("id").and_then(Value::as_str) == Some(model))?;
    match entry.get("type").and_then(Value::as_str)? {
        "vlm" => Some(true),
        "llm" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_says_through_its_modalities() {
        assert_eq!(
            parse_props(&json!({"modalities": {"vision": true, "audio": false}})),
            Some(true)
        );
        assert_eq!(
            parse_props(&json!({"modalities": {"vision": false}})),
            Some(false)
        );
        // Older builds have no modalities: unknown, not "no".
        assert_eq!(parse_props(&json!({"n_ctx": 4096})), None);
        assert_eq!(parse_props(&json!({"modalities": {"vision": "yes"}})), None);
    }

    #[test]
    fn ollama_says_through_its_capabilities() {
        let show = |caps: Value| json!({"model_info": {"general.architecture": "gemma3"}, "capabilities": caps});
        assert_eq!(
            parse_show(&show(json!(["completion", "vision"]))),
            Some(true)
        );
        assert_eq!(
            parse_show(&show(json!(["completion", "tools"]))),
            Some(false)
        );
        assert_eq!(parse_show(&show(json!("vision"))), None);
        // Before capabilities existed (Ollama < 0.6): unknown.
        assert_eq!(
            parse_show(&json!({"model_info": {"general.architecture": "llama"}})),
            None
        );
        // Not Ollama: no architecture named.
        assert_eq!(parse_show(&json!({"capabilities": ["vision"]})), None);
    }

    #[test]
    fn lm_studio_says_through_the_model_type() {
        let list = json!({"data": [
            {"id": "qwen2-vl-7b-instruct", "type": "vlm"},
            {"id": "meta-llama-3.1-8b-instruct", "type": "llm"},
            {"id": "nomic-embed", "type": "embeddings"},
        ]});
        assert_eq!(parse_lm_studio(&list, "qwen2-vl-7b-instruct"), Some(true));
        assert_eq!(
            parse_lm_studio(&list, "meta-llama-3.1-8b-instruct"),
            Some(false)
        );
        assert_eq!(parse_lm_studio(&list, "nomic-embed"), None);
        assert_eq!(parse_lm_studio(&list, "absent"), None);
        assert_eq!(parse_lm_studio(&json!({"data": "x"}), "absent"), None);
    }
}
