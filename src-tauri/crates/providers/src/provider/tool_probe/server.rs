//! Which local server is behind an OpenAI-compatible base URL, and what to tell its user
//! when tool calls do not come back natively.

use reqwest::Url;
use serde_json::{Value, json};

use crate::config::{ProviderKind, endpoint};
use crate::http::{Probed, Transport};
use crate::window::{MAX_PROBE_BODY, PROBE_TIMEOUT, server_root};

use crate::ToolCallMode;
use crate::refusals::ToolsRefusal;

/// A server kind, as far as its side endpoints tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ServerKind {
    /// llama.cpp's `llama-server` (answers `/props`); whether its chat template handles
    /// tools, when it says (`chat_template_caps`, present with `--jinja`).
    LlamaCpp {
        template_tools: Option<bool>,
    },
    /// Ollama (answers `/api/show` with the model's architecture); whether the model
    /// lists the `tools` capability, when it says.
    Ollama {
        tools: Option<bool>,
    },
    /// LM Studio (answers `/api/v0/models`).
    LmStudio,
    /// vLLM (its model list says `owned_by: vllm`).
    Vllm,
    /// A hosted API (OpenAI, Anthropic).
    Hosted,
    Unknown,
}

impl ServerKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::LlamaCpp { .. } => "llama.cpp",
            Self::Ollama { .. } => "Ollama",
            Self::LmStudio => "LM Studio",
            Self::Vllm => "vLLM",
            Self::Hosted => "a hosted API",
            Self::Unknown => "an unrecognised server",
        }
    }
}

async fn get(t: &Transport, url: Option<Url>, body: Option<Value>) -> Option<Value> {
    let body = body.map(|b| b.to_string().into_bytes());
    match t.probe(&url?, body, PROBE_TIMEOUT, MAX_PROBE_BODY).await {
        Probed::Json(v) => Some(v),
        Probed::Absent | Probed::Unsure => None,
    }
}

/// Asks the side endpoints each server kind answers, in an order where imitations come
/// last (llama.cpp also imitates Ollama's `/api/show`). Each ask is bounded by
/// [`PROBE_TIMEOUT`].
pub(crate) async fn detect(t: &Transport, kind: ProviderKind, model: &str) -> ServerKind {
    if kind != ProviderKind::OpenAiCompatible {
        return ServerKind::Hosted;
    }
    let root = server_root(&t.base);
    let at = |path: &str| Url::parse(&endpoint(&root, path)).ok();
    if let Some(v) = get(t, at("props"), None).await
        && (v.get("default_generation_settings").is_some() || v.get("build_info").is_some())
    {
        return ServerKind::LlamaCpp {
            template_tools: template_tools(&v),
        };
    }
    if let Some(v) = get(t, at("api/show"), Some(json!({ "model": model }))).await
        && v.pointer("/model_info/general.architecture").is_some()
    {
        let tools = v
            .get("capabilities")
            .and_then(Value::as_array)
            .map(|caps| caps.iter().any(|c| c == "tools"));
        return ServerKind::Ollama { tools };
    }
    if let Some(v) = get(t, at("api/v0/models"), None).await
        && v.get("data").is_some_and(Value::is_array)
    {
        return ServerKind::LmStudio;
    }
    let listing = Url::parse(&endpoint(&t.base, "models")).ok();
    if let Some(v) = get(t, listing, None).await {
        let vllm = v
            .get("data")
            .and_then(Value::as_array)
            .is_some_and(|d| d.iter().any(|m| m.get("owned_by") == Some(&json!("vllm"))));
        if vllm {
            return ServerKind::Vllm;
        }
    }
    ServerKind::Unknown
}

/// `chat_template_caps.supports_tools` from llama.cpp's `/props`: a JSON object, or (in
/// some builds) the same written as a Python dict in a string.
fn template_tools(props: &Value) -> Option<bool> {
    match props.get("chat_template_caps")? {
        Value::Object(caps) => caps.get("supports_tools").and_then(Value::as_bool),
        Value::String(caps) => {
            let caps = caps.replace(['\'', '"', ' '], "").to_ascii_lowercase();
            if caps.contains("supports_tools:true") {
                Some(true)
            } else if caps.contains("supports_tools:false") {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Why calls with tools were described in the prompt: `None` when they were not; then
/// the server's refusal, or `None` inside when the settings asked for it.
pub(crate) type Prompted = Option<Option<ToolsRefusal>>;

/// What to change so tool calls come back natively (and streamed), for this server. It
/// never contradicts what the server says of itself: "--jinja" only when llama.cpp refused
/// for want of it or says nothing of its template, a template fix only when `/props` says
/// the template has no tools, and no model families to pick from (the model at hand may
/// well be one of them).
pub(crate) fn advice(
    server: ServerKind,
    mode: ToolCallMode,
    streaming: bool,
    prompted: Prompted,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(why) = prompted {
        out.push(prompted_advice(server, why));
    } else if mode != ToolCallMode::Native {
        out.push(native_advice(server, mode));
    }
    if mode == ToolCallMode::TextFallback {
        out.push(
            "Paddock read the call from the text, which works but is less reliable than the \
             server's own tool-call parser"
                .to_owned(),
        );
    }
    if !streaming {
        out.push(match server {
            ServerKind::LlamaCpp { .. } => {
                "this llama-server does not stream tool calls: Paddock asks \
                without streaming, so answers with tools arrive whole; llama.cpp builds from \
                May 2025 on stream them"
                    .to_owned()
            }
            _ => "the server does not stream tool calls (llama-cpp-python's server cannot with \
                automatic tool choice): Paddock asks without streaming, so answers with tools \
                arrive whole"
                .to_owned(),
        });
    }
    out
}

/// The tools went in the prompt: why, and how to get native calls.
fn prompted_advice(server: ServerKind, why: Option<ToolsRefusal>) -> String {
    const HOW: &str = "Paddock describes the tools in the system prompt and reads the calls \
                       from the text (prompted tool calls)";
    let no_template = matches!(
        server,
        ServerKind::LlamaCpp {
            template_tools: Some(false)
        }
    );
    match (why, server) {
        (None, _) => format!("\"toolCalling\" is \"prompted\": {HOW}"),
        (Some(ToolsRefusal::NeedsJinja), _) => format!(
            "llama-server was started without --jinja, so it refuses the tools parameter: {HOW}. \
             For native calls restart it with --jinja{}",
            if no_template {
                " and a chat template with tool support (--chat-template-file): this model's \
                 own has none (/props: supports_tools false)"
            } else {
                ""
            }
        ),
        (Some(_), ServerKind::Ollama { .. }) => format!(
            "Ollama refuses tools for this model (ollama show MODEL lists no 'tools' \
             capability): {HOW}; a model tag with tool support gets native calls"
        ),
        (Some(_), ServerKind::Vllm) => format!(
            "vLLM refuses tools without a tool-call parser: {HOW}; start it with \
             --enable-auto-tool-choice --tool-call-parser PARSER (hermes for Qwen 2.5/3, \
             llama3_json, mistral, ...) for native calls"
        ),
        (Some(_), _) => format!("the server refuses the tools parameter: {HOW}"),
    }
}

/// Calls came back as text, or not at all, with the tools in the `tools` parameter.
fn native_advice(server: ServerKind, mode: ToolCallMode) -> String {
    let called = mode != ToolCallMode::None;
    match server {
        ServerKind::LlamaCpp {
            template_tools: Some(true),
        } if called => "llama.cpp applies a chat template with tool support, but did not parse \
            this model's call: Paddock reads it from the text. A model whose call format \
            llama.cpp parses (see its function-calling docs) comes back natively"
            .to_owned(),
        ServerKind::LlamaCpp {
            template_tools: Some(true),
        } => "llama.cpp applies a chat template with tool support, but this model did not call \
            the tool: small models often answer in words instead; a larger model may call it, \
            and \"toolCalling\": \"prompted\" describes the tools the way small models were \
            trained on"
            .to_owned(),
        ServerKind::LlamaCpp {
            template_tools: Some(false),
        } => "this model's chat template has no tool support (/props: supports_tools false), \
            so llama.cpp neither shows the model its tools properly nor parses its calls: start \
            llama-server with --chat-template-file FILE holding a template with tools, or set \
            \"toolCalling\" to \"prompted\" so Paddock describes them"
            .to_owned(),
        ServerKind::LlamaCpp {
            template_tools: None,
        } => "llama.cpp: start llama-server with --jinja so it applies the model's chat template \
            and parses tool calls (a model whose template has no tool support needs \
            --chat-template-file with one that has)"
            .to_owned(),
        ServerKind::Vllm => "vLLM: start it with --enable-auto-tool-choice --tool-call-parser \
            PARSER, the parser for the model family (hermes for Qwen 2.5/3, qwen3_coder, \
            llama3_json, mistral, ...)"
            .to_owned(),
        ServerKind::Ollama { tools: Some(false) } => "Ollama: this model has no 'tools' \
            capability (ollama show MODEL lists them): pick a model tag with tool support, \
            e.g. qwen3 or llama3.1"
            .to_owned(),
        ServerKind::Ollama { .. } => "Ollama: use a model tag with tool support (ollama \
            show MODEL lists 'tools' under Capabilities), e.g. qwen3 or llama3.1"
            .to_owned(),
        ServerKind::LmStudio => "LM Studio: load a model with tool use support (the hammer \
            badge in the model list)"
            .to_owned(),
        ServerKind::Hosted => {
            "this model does not seem to call tools: pick one that does".to_owned()
        }
        ServerKind::Unknown => "check that the server parses tool calls for this model \
            (llama.cpp: --jinja; vLLM: --enable-auto-tool-choice --tool-call-parser ...; \
            Ollama and LM Studio: a model with tool support), or set \"toolCalling\" to \
            \"prompted\""
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_streamed_calls_need_no_advice() {
        let llama = ServerKind::LlamaCpp {
            template_tools: None,
        };
        for server in [llama, ServerKind::Unknown, ServerKind::Vllm] {
            assert!(advice(server, ToolCallMode::Native, true, None).is_empty());
        }
    }

    /// Shown able to fail: the old advice named "Qwen 2.5/3" to a Qwen 2.5 model, and
    /// "--jinja" to a server whose /props said its template had no tools.
    #[test]
    fn advice_is_keyed_on_the_server_and_never_contradicts_it() {
        let first = |s, m| advice(s, m, true, None).remove(0);
        let llama = |template_tools| ServerKind::LlamaCpp { template_tools };
        assert!(first(llama(None), ToolCallMode::None).contains("--jinja"));
        let no_template = first(llama(Some(false)), ToolCallMode::None);
        assert!(no_template.contains("--chat-template-file") && !no_template.contains("--jinja"));
        for mode in [ToolCallMode::None, ToolCallMode::TextFallback] {
            let with_template = first(llama(Some(true)), mode);
            assert!(!with_template.contains("--jinja") && !with_template.contains("Qwen"));
        }
        assert!(
            first(ServerKind::Vllm, ToolCallMode::TextFallback)
                .contains("--enable-auto-tool-choice --tool-call-parser")
        );
        assert!(
            first(
                ServerKind::Ollama { tools: Some(false) },
                ToolCallMode::None
            )
            .contains("no 'tools' capability")
        );
        assert!(first(ServerKind::LmStudio, ToolCallMode::None).contains("tool use"));
        let text = advice(ServerKind::Unknown, ToolCallMode::TextFallback, false, None);
        assert_eq!(text.len(), 3, "{text:?}");
        assert!(text[2].contains("without streaming"));
        let unstreamed = advice(llama(None), ToolCallMode::Native, false, None);
        assert_eq!(unstreamed.len(), 1);
        assert!(unstreamed[0].contains("May 2025"));
    }

    #[test]
    fn prompted_calls_say_why_and_how_to_get_native_ones() {
        let prompted = |server, why| advice(server, ToolCallMode::Prompted, true, Some(why));
        let llama = |template_tools| ServerKind::LlamaCpp { template_tools };
        let jinja = prompted(llama(None), Some(ToolsRefusal::NeedsJinja));
        assert_eq!(jinja.len(), 1);
        assert!(jinja[0].contains("without --jinja") && jinja[0].contains("prompted tool calls"));
        let both = prompted(llama(Some(false)), Some(ToolsRefusal::NeedsJinja));
        assert!(both[0].contains("--chat-template-file"));
        let ollama = prompted(
            ServerKind::Ollama { tools: None },
            Some(ToolsRefusal::Unsupported),
        );
        assert!(ollama[0].contains("Ollama refuses tools"));
        assert!(prompted(ServerKind::Unknown, None)[0].contains("\"toolCalling\" is \"prompted\""));
    }

    #[test]
    fn template_caps_are_read_in_both_forms() {
        let caps = |v: Value| template_tools(&json!({ "chat_template_caps": v }));
        assert_eq!(caps(json!({"supports_tools": true})), Some(true));
        assert_eq!(caps(json!({"supports_tools": false})), Some(false));
        assert_eq!(
            caps(json!(
                "{'supports_system_role': True, 'supports_tools': False}"
            )),
            Some(false)
        );
        assert_eq!(caps(json!("{'supports_tools': True}")), Some(true));
        assert_eq!(caps(json!(3)), None);
        assert_eq!(template_tools(&json!({})), None);
    }
}
