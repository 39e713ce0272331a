//! The side endpoints local model servers use to say how many tokens a model holds:
//! llama.cpp's `GET /props`, Ollama's `POST /api/show`, LM Studio's `GET /api/v0/models`,
//! and extra fields on the `/v1/models` entries (vLLM `max_model_len`, OpenRouter
//! `context_length`, Anthropic `max_input_tokens`). Each answers only when configured,
//! else 404 as a server without it would. Overrides make one of them hang, answer raw
//! text or an endless body, for tests of clients that must not trust them.

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

use crate::body::{self, Body};

/// What the side endpoints say. Everything empty (the default) answers 404 everywhere.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probes {
    /// llama.cpp: `GET /props` answers with this slot size as
    /// `default_generation_settings.n_ctx` (and `n_ctx`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llama_cpp_n_ctx: Option<u64>,
    /// llama.cpp: `/props` says `modalities.vision` is true (a projector is loaded).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub llama_cpp_vision: bool,
    /// Ollama: `POST /api/show {"model": ...}` answers for these models; others get
    /// Ollama's 404 "model not found".
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ollama: BTreeMap<String, OllamaModel>,
    /// LM Studio: `GET /api/v0/models` lists these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lm_studio: Vec<LmStudioModel>,
    /// Extra fields of the `/v1/models` entries by model id, in either format
    /// (`{"max_model_len": 32768}`, `{"context_length": 200000}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_fields: BTreeMap<String, Map<String, Value>>,
    /// Answers that replace an endpoint's own, by path: `/props`, `/api/show`,
    /// `/api/v0/models` or `/v1/models`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub overrides: BTreeMap<String, ProbeOverride>,
}

impl Probes {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A model as Ollama's `/api/show` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OllamaModel {
    /// `general.architecture` ("llama", "qwen3").
    pub architecture: String,
    /// The trained length: `model_info.<architecture>.context_length`.
    pub context_length: u64,
    /// `num_ctx` in the model's `parameters`, when its Modelfile sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_ctx: Option<u64>,
    /// Set for Ollama's cloud models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_host: Option<String>,
    /// Lists `vision` among the model's `capabilities`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub vision: bool,
}

/// A model as LM Studio's `/api/v0/models` lists it: loaded when it has a loaded length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LmStudioModel {
    pub id: String,
    pub max_context_length: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_context_length: Option<u64>,
    /// Listed with `"type": "vlm"` (a vision model) instead of `"llm"`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub vlm: bool,
}

/// How an endpoint misbehaves instead of answering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ProbeOverride {
    /// Never answers (the connection stays open).
    Hang,
    /// Answers `body` verbatim with `status`.
    Raw { status: u16, body: String },
    /// A 200 JSON document that starts like a real answer (`n_ctx` 999) and goes on for
    /// `bytes` more bytes, sent in pieces without a Content-Length.
    Huge { bytes: u64 },
    /// A redirect (301, 302, 307, 308) to `location`.
    Redirect { status: u16, location: String },
}

/// Which side endpoint a request is for, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Props,
    Show,
    LmStudio,
}

impl Endpoint {
    pub(crate) fn of(method: &hyper::Method, route: &str) -> Option<Self> {
        match (method, route) {
            (&hyper::Method::GET, r) if r.ends_with("/props") => Some(Self::Props),
            (&hyper::Method::POST, r) if r.ends_with("/api/show") => Some(Self::Show),
            (&hyper::Method::GET, r) if r.ends_with("/api/v0/models") => Some(Self::LmStudio),
            _ => None,
        }
    }

    fn path(self) -> &'static str {
        match self {
            Self::Props => "/props",
            Self::Show => "/api/show",
            Self::LmStudio => "/api/v0/models",
        }
    }
}

/// An answer: status, extra headers, body.
pub(crate) type Answer = (u16, Vec<(&'static str, String)>, Body);

/// The answer of a side endpoint, or `None` when it must hang.
pub(crate) fn answer(probes: &Probes, endpoint: Endpoint, request: &Value) -> Option<Answer> {
    if let Some(o) = probes.overrides.get(endpoint.path()) {
        return overridden(o);
    }
    let not_found = || {
        let message = format!("fake-model: {} is not configured", endpoint.path());
        (
            404,
            vec![],
            body::full(json!({ "error": message }).to_string()),
        )
    };
    let value = match endpoint {
        Endpoint::Props => {
            let Some(n) = probes.llama_cpp_n_ctx else {
                return Some(not_found());
            };
            props(n, probes.llama_cpp_vision)
        }
        Endpoint::Show => {
            let name = request
                .get("model")
                .or_else(|| request.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some(model) = probes.ollama.get(name) else {
                if probes.ollama.is_empty() {
                    return Some(not_found());
                }
                let error = json!({ "error": format!("model '{name}' not found") });
                return Some((404, vec![], body::full(error.to_string())));
            };
            show(model)
        }
        Endpoint::LmStudio => {
            if probes.lm_studio.is_empty() {
                return Some(not_found());
            }
            lm_studio(&probes.lm_studio)
        }
    };
    Some((200, vec![], body::full(value.to_string())))
}

/// The override for `/v1/models`, if one is set: `Some(None)` hangs.
pub(crate) fn models_override(probes: &Probes) -> Option<Option<Answer>> {
    probes.overrides.get("/v1/models").map(overridden)
}

fn overridden(o: &ProbeOverride) -> Option<Answer> {
    match o {
        ProbeOverride::Hang => None,
        ProbeOverride::Raw { status, body } => Some((*status, vec![], body::full(body.clone()))),
        ProbeOverride::Huge { bytes } => Some((200, vec![], endless(*bytes))),
        ProbeOverride::Redirect { status, location } => Some((
            *status,
            vec![("location", location.clone())],
            body::full("{}"),
        )),
    }
}

/// `{"n_ctx": 999, ..., "pad": "xxxx...` with `bytes` of padding, then `"}`, in 64 KiB
/// pieces made as they are sent (nothing large is held in memory).
fn endless(bytes: u64) -> Body {
    const PIECE: u64 = 64 * 1024;
    const HEAD: &str =
        r#"{"n_ctx": 999, "default_generation_settings": {"n_ctx": 999}, "data": [], "pad": ""#;
    enum Next {
        Head,
        Pad(u64),
        Done,
    }
    let pieces = futures_util::stream::unfold(Next::Head, move |next| async move {
        let (piece, then) = match next {
            Next::Done => return None,
            Next::Head => (Bytes::from_static(HEAD.as_bytes()), Next::Pad(bytes)),
            Next::Pad(0) => (Bytes::from_static(b"\"}"), Next::Done),
            Next::Pad(left) => {
                let n = left.min(PIECE);
                let piece = vec![b'x'; usize::try_from(n).unwrap_or(0)];
                (Bytes::from(piece), Next::Pad(left - n))
            }
        };
        Some((Ok::<_, std::io::Error>(Frame::data(piece)), then))
    });
    BodyExt::boxed_unsync(StreamBody::new(pieces))
}

/// llama.cpp's `/props`, as its README documents it (abridged).
fn props(n_ctx: u64, vision: bool) -> Value {
    json!({
        "default_generation_settings": {
            "id": 0, "id_task": -1, "n_ctx": n_ctx, "speculative": false,
            "is_processing": false,
            "params": {"n_predict": -1, "temperature": 0.8, "top_k": 40, "top_p": 0.95}
        },
        "n_ctx": n_ctx,
        "total_slots": 1,
        "model_path": "../models/fake-model.gguf",
        "chat_template": "{{ messages }}",
        "modalities": {"vision": vision, "audio": false},
        "build_info": "b0-fake",
        "is_sleeping": false
    })
}

/// Ollama's `/api/show` answer (abridged: no license, no tensors).
fn show(m: &OllamaModel) -> Value {
    let arch = &m.architecture;
    let mut parameters = String::new();
    if let Some(n) = m.num_ctx {
        parameters.push_str(&format!("num_ctx                        {n}\n"));
    }
    parameters.push_str("stop                           \"<|im_end|>\"");
    let mut info = Map::new();
    info.insert("general.architecture".into(), json!(arch));
    info.insert("general.parameter_count".into(), json!(8_030_261_248u64));
    info.insert(format!("{arch}.context_length"), json!(m.context_length));
    info.insert(format!("{arch}.embedding_length"), json!(4096));
    let mut v = json!({
        "modelfile": "# Modelfile generated by \"ollama show\"\nFROM fake",
        "parameters": parameters,
        "template": "{{ .Prompt }}",
        "details": {
            "parent_model": "", "format": "gguf", "family": arch, "families": [arch],
            "parameter_size": "8.0B", "quantization_level": "Q4_K_M"
        },
        "model_info": info,
        "capabilities": if m.vision {
            json!(["completion", "tools", "vision"])
        } else {
            json!(["completion", "tools"])
        },
        "modified_at": "2025-01-01T00:00:00Z"
    });
    if let Some(host) = &m.remote_host {
        v["remote_host"] = json!(host);
        v["remote_model"] = json!(arch);
    }
    v
}

/// LM Studio's `/api/v0/models`.
fn lm_studio(models: &[LmStudioModel]) -> Value {
    let data: Vec<Value> = models
        .iter()
        .map(|m| {
            let mut e = json!({
                "id": m.id, "object": "model", "type": if m.vlm { "vlm" } else { "llm" },
                "publisher": "fake",
                "arch": "llama", "compatibility_type": "gguf", "quantization": "Q4_K_M",
                "state": if m.loaded_context_length.is_some() { "loaded" } else { "not-loaded" },
                "max_context_length": m.max_context_length
            });
            if let Some(n) = m.loaded_context_length {
                e["loaded_context_length"] = json!(n);
            }
            e
        })
        .collect();
    json!({"object": "list", "data": data})
}
