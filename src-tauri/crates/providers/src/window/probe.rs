//! Asking a server how many tokens a model holds, in each dialect that can say:
//! llama.cpp's `/props`, Ollama's `/api/show`, LM Studio's `/api/v0/models` and the
//! `/models` list (vLLM, OpenRouter, Anthropic). Each probe is one request that either
//! finds a window, learns that this server cannot say (`Absent`), or fails in a way that
//! may pass (`Unsure`). Parsing is separate and pure, so hostile answers are unit-tested.

use reqwest::Url;
use serde_json::{Value, json};

use super::{MAX_LISTING_BODY, MAX_PROBE_BODY, PROBE_TIMEOUT, plausible};
use crate::config::{ProviderKind, endpoint};
use crate::http::{Probed, Transport};

/// What one probe learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    Found(u32),
    /// This server does not say (another kind of server, an unknown model).
    Absent,
    /// Could not tell now (timeout, network, a model not loaded yet): worth asking again.
    Unsure,
}

/// Ollama's context length when neither the model nor the request sets `num_ctx`: 2048
/// before v0.6.7, 4096 since, and since v0.15.5 chosen from VRAM (4096 below 24 GiB,
/// 32768 up to 48 GiB, 262144 above; docs.ollama.com "Context length"), unless the
/// server runs with `OLLAMA_CONTEXT_LENGTH`, which a client cannot see. 4096 is what
/// every current version gives at least; Ollama truncates a longer prompt silently.
pub(crate) const OLLAMA_DEFAULT_NUM_CTX: u32 = 4096;

/// The server root: the base URL without the `/v1` that OpenAI-style routes live under
/// (`http://localhost:11434/v1` -> `http://localhost:11434`).
pub(crate) fn server_root(base: &Url) -> Url {
    let mut root = base.clone();
    let path = base.path().trim_end_matches('/');
    root.set_path(path.strip_suffix("/v1").unwrap_or(path));
    root.set_query(None);
    root
}

fn join(root: &Url, path: &str) -> Option<Url> {
    Url::parse(&endpoint(root, path)).ok()
}

fn answer(probed: Probed, parse: impl FnOnce(&Value) -> Answer) -> Answer {
    match probed {
        Probed::Json(v) => parse(&v),
        Probed::Absent => Answer::Absent,
        Probed::Unsure => Answer::Unsure,
    }
}

/// llama.cpp: `GET /props` (with `?model=` for router mode; a single-model server
/// ignores it). Its `default_generation_settings.n_ctx` is the context of one slot, which
/// is what one request may use.
pub(crate) async fn llama_cpp(t: &Transport, root: &Url, model: &str) -> Answer {
    let Some(mut url) = join(root, "props") else {
        return Answer::Absent;
    };
    url.query_pairs_mut().append_pair("model", model);
    let probed = t.probe(&url, None, PROBE_TIMEOUT, MAX_PROBE_BODY).await;
    answer(probed, |v| {
        parse_props(v).map_or(Answer::Absent, Answer::Found)
    })
}

pub(crate) fn parse_props(v: &Value) -> Option<u32> {
    let slot = v.pointer("/default_generation_settings/n_ctx");
    slot.or_else(|| v.get("n_ctx"))
        .and_then(Value::as_u64)
        .and_then(plausible)
}

/// Ollama: `POST /api/show {"model": m}`.
pub(crate) async fn ollama(t: &Transport, root: &Url, model: &str) -> Answer {
    let Some(url) = join(root, "api/show") else {
        return Answer::Absent;
    };
    let body = json!({ "model": model }).to_string().into_bytes();
    let probed = t
        .probe(&url, Some(body), PROBE_TIMEOUT, MAX_PROBE_BODY)
        .await;
    answer(probed, |v| {
        parse_ollama_show(v, model).map_or(Answer::Absent, Answer::Found)
    })
}

/// The window Ollama runs `model` with: the model's `num_ctx` parameter when its
/// Modelfile sets one, else the server default, either way no more than the length the
/// model was trained for (Ollama caps `num_ctx` there). Cloud models run at their full
/// length. The trained length alone is not the answer: Ollama does not use it by default.
///
/// Only a real Ollama answer counts: `model_info` must name the architecture whose
/// `<arch>.context_length` it reports. Other servers imitate `/api/show` (llama.cpp's
/// shim reports its slot size as `llama.context_length` with empty parameters).
pub(crate) fn parse_ollama_show(v: &Value, model: &str) -> Option<u32> {
    let info = v.get("model_info").and_then(Value::as_object);
    let arch = info
        .and_then(|i| i.get("general.architecture"))
        .and_then(Value::as_str);
    let trained = match (info, arch) {
        (Some(info), Some(arch)) => info
            .get(&format!("{arch}.context_length"))
            .and_then(Value::as_u64)
            .and_then(plausible),
        _ => None,
    };
    let num_ctx = v
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(num_ctx_parameter);
    let cloud = v.get("remote_host").is_some_and(|h| !h.is_null())
        || model.ends_with("-cloud")
        || model.ends_with(":cloud");
    let cap = |n: u32| trained.map_or(n, |t| n.min(t));
    match (num_ctx, arch) {
        (Some(n), _) => Some(cap(n)),
        (None, Some(_)) if cloud => trained,
        (None, Some(_)) => Some(cap(OLLAMA_DEFAULT_NUM_CTX)),
        (None, None) => None,
    }
}

/// `num_ctx` from Ollama's `parameters` text ("num_ctx    8192\nstop    \"<|im_end|>\"").
fn num_ctx_parameter(text: &str) -> Option<u32> {
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("num_ctx"), Some(n)) => n.parse::<u64>().ok().and_then(plausible),
            _ => None,
        }
    })
}

/// LM Studio: `GET /api/v0/models`.
pub(crate) async fn lm_studio(t: &Transport, root: &Url, model: &str) -> Answer {
    let Some(url) = join(root, "api/v0/models") else {
        return Answer::Absent;
    };
    let probed = t.probe(&url, None, PROBE_TIMEOUT, MAX_LISTING_BODY).await;
    answer(probed, |v| parse_lm_studio(v, model))
}

/// A loaded model's `loaded_context_length` is what LM Studio enforces. An unloaded
/// one is loaded on the first request with the user's default context length, which the
/// API does not tell (`max_context_length` is only the trained maximum): ask again later.
pub(crate) fn parse_lm_studio(v: &Value, model: &str) -> Answer {
    let Some(entry) = find_entry(v, model) else {
        return Answer::Absent;
    };
    if let Some(n) = entry
        .get("loaded_context_length")
        .and_then(Value::as_u64)
        .and_then(plausible)
    {
        return Answer::Found(n);
    }
    match entry.get("state").and_then(Value::as_str) {
        Some("not-loaded") => Answer::Unsure,
        _ => Answer::Absent,
    }
}

/// The `/models` list: OpenAI style at `{base}/models`, Anthropic's at `v1/models`.
pub(crate) async fn listing(t: &Transport, kind: ProviderKind, model: &str) -> Answer {
    let path = match kind {
        ProviderKind::Anthropic => "v1/models?limit=1000",
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => "models",
    };
    let Some(url) = join(&t.base, path) else {
        return Answer::Absent;
    };
    let probed = t.probe(&url, None, PROBE_TIMEOUT, MAX_LISTING_BODY).await;
    answer(probed, |v| {
        find_entry(v, model)
            .and_then(listing_window)
            .map_or(Answer::Absent, Answer::Found)
    })
}

fn find_entry<'a>(v: &'a Value, model: &str) -> Option<&'a Value> {
    v.get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))
}

/// The window a model-list entry states, in any of the dialects that state one:
/// LM Studio `loaded_context_length`, vLLM `max_model_len`, Anthropic `max_input_tokens`,
/// OpenRouter `context_length` (no more than its `top_provider.context_length`), Groq
/// `context_window`. llama.cpp's `meta.n_ctx_train` is left out: it is the trained length,
/// not the server's.
pub(crate) fn listing_window(entry: &Value) -> Option<u32> {
    let field = |key: &str| entry.get(key).and_then(Value::as_u64).and_then(plausible);
    let provider = entry
        .pointer("/top_provider/context_length")
        .and_then(Value::as_u64)
        .and_then(plausible);
    field("loaded_context_length")
        .or_else(|| field("max_model_len"))
        .or_else(|| field("max_input_tokens"))
        .or_else(|| match (field("context_length"), provider) {
            (Some(n), Some(p)) => Some(n.min(p)),
            (n, p) => n.or(p),
        })
        .or_else(|| field("context_window"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(arch: &str, trained: u64, parameters: &str) -> Value {
        json!({
            "modelfile": "# Modelfile generated by \"ollama show\"",
            "parameters": parameters,
            "template": "{{ .Prompt }}",
            "details": {"format": "gguf", "family": arch},
            "model_info": {
                "general.architecture": arch,
                "general.parameter_count": 8_030_261_248u64,
                format!("{arch}.context_length"): trained,
                format!("{arch}.embedding_length"): 4096,
            },
            "capabilities": ["completion", "tools"],
        })
    }

    #[test]
    fn ollama_uses_num_ctx_not_the_trained_length() {
        let v = show("qwen3", 40_960, "num_ctx 8192\nstop \"<|im_end|>\"");
        assert_eq!(parse_ollama_show(&v, "qwen3:8b"), Some(8192));
        let v = show("llama", 131_072, "stop \"<|eot_id|>\"");
        assert_eq!(
            parse_ollama_show(&v, "llama3.1"),
            Some(OLLAMA_DEFAULT_NUM_CTX)
        );
        // num_ctx beyond the trained length is capped by Ollama.
        let v = show("gemma", 2048, "num_ctx                        8192");
        assert_eq!(parse_ollama_show(&v, "tiny"), Some(2048));
        let v = show("phi", 2048, "");
        assert_eq!(parse_ollama_show(&v, "phi"), Some(2048));
    }

    #[test]
    fn ollama_cloud_models_run_at_full_length() {
        let mut v = show("gptoss", 131_072, "");
        assert_eq!(parse_ollama_show(&v, "gpt-oss:120b-cloud"), Some(131_072));
        v["remote_host"] = json!("https://ollama.com:443");
        assert_eq!(parse_ollama_show(&v, "gpt-oss:120b"), Some(131_072));
    }

    #[test]
    fn imitations_of_api_show_are_not_ollama() {
        // llama.cpp's shim: the slot size under a made-up key, no architecture.
        let shim = json!({"model_info": {"llama.context_length": 65536}, "parameters": "", "modelfile": ""});
        assert_eq!(parse_ollama_show(&shim, "m"), None);
        assert_eq!(parse_ollama_show(&json!({"error": "nope"}), "m"), None);
        assert_eq!(parse_ollama_show(&json!([1, 2]), "m"), None);
        let absurd = show("llama", 0, "num_ctx 99999999999");
        assert_eq!(
            parse_ollama_show(&absurd, "m"),
            Some(OLLAMA_DEFAULT_NUM_CTX),
            "absurd values are unknown"
        );
        let negative = show("llama", 8192, "num_ctx -5");
        assert_eq!(parse_ollama_show(&negative, "m"), Some(4096));
    }

    #[test]
    fn llama_cpp_props() {
        let v = json!({"default_generation_settings": {"n_ctx": 32768, "params": {}}, "total_slots": 2});
        assert_eq!(parse_props(&v), Some(32768));
        assert_eq!(parse_props(&json!({"n_ctx": 4096})), Some(4096));
        assert_eq!(parse_props(&json!({"n_ctx": 0})), None);
        assert_eq!(parse_props(&json!({"n_ctx": 20_000_000})), None);
        assert_eq!(parse_props(&json!({"n_ctx": "4096"})), None);
        assert_eq!(parse_props(&json!({"n_ctx": 4096.5})), None);
        assert_eq!(parse_props(&json!({"model_path": "x.gguf"})), None);
    }

    #[test]
    fn lm_studio_trusts_only_the_loaded_length() {
        let v = json!({"object": "list", "data": [
            {"id": "a", "state": "loaded", "max_context_length": 131072, "loaded_context_length": 8192},
            {"id": "b", "state": "not-loaded", "max_context_length": 32768},
            {"id": "c", "state": "loaded", "max_context_length": 32768}
        ]});
        assert_eq!(parse_lm_studio(&v, "a"), Answer::Found(8192));
        assert_eq!(parse_lm_studio(&v, "b"), Answer::Unsure);
        assert_eq!(parse_lm_studio(&v, "c"), Answer::Absent);
        assert_eq!(parse_lm_studio(&v, "zzz"), Answer::Absent);
        assert_eq!(parse_lm_studio(&json!({"data": "x"}), "a"), Answer::Absent);
    }

    #[test]
    fn listing_dialects() {
        let w = |v: Value| listing_window(&v);
        assert_eq!(w(json!({"id": "m", "max_model_len": 32768})), Some(32768));
        assert_eq!(
            w(json!({"id": "m", "context_length": 200_000})),
            Some(200_000)
        );
        assert_eq!(
            w(
                json!({"id": "m", "context_length": 1_000_000, "top_provider": {"context_length": 163_840}})
            ),
            Some(163_840)
        );
        assert_eq!(
            w(json!({"id": "m", "max_input_tokens": 1_000_000})),
            Some(1_000_000)
        );
        assert_eq!(
            w(json!({"id": "m", "context_window": 131_072})),
            Some(131_072)
        );
        assert_eq!(
            w(json!({"id": "m", "meta": {"n_ctx_train": 131_072}})),
            None
        );
        assert_eq!(w(json!({"id": "m", "max_model_len": 0})), None);
        assert_eq!(w(json!({"id": "m", "max_model_len": -1})), None);
        assert_eq!(w(json!({"id": "m", "owned_by": "openai"})), None);
    }

    #[test]
    fn roots_drop_the_v1() {
        let root = |s: &str| server_root(&Url::parse(s).unwrap()).to_string();
        assert_eq!(root("http://localhost:11434/v1"), "http://localhost:11434/");
        assert_eq!(root("http://h:8080/v1/"), "http://h:8080/");
        assert_eq!(root("https://x.example/api/v1"), "https://x.example/api");
        assert_eq!(root("https://x.example/openai"), "https://x.example/openai");
    }
}
