//! Errors that say "not like this" rather than "not now": a server that will not stream a
//! call with tools, or will not take the `tools` parameter at all. Both are deterministic
//! (asking again the same way gets the same answer), so they are never retried as they
//! are; each has its own second way of asking (unstreamed, or the tools in the prompt).

/// What servers that cannot stream a call with tools answer to one:
const STREAMING_TOOLS_REFUSALS: [&str; 3] = [
    // llama-cpp-python's server (HTTP 500, "internal_server_error"): its function-calling
    // chat handlers raise this for `stream` with automatic tool choice.
    "automatic streaming tool choice is not supported",
    // llama.cpp's llama-server before streamed tool calls (May 2025): HTTP 500,
    // `{"error": {"code": 500, "message": ..., "type": "server_error"}}`.
    "cannot use tools with stream",
    // Ollama's proposed refusal (ollama/ollama#7750), seen in clients of that time.
    "streaming is not supported with tools",
];

/// What servers that cannot take a `tools` parameter answer to one (lowercased).
const TOOLS_REFUSALS: [&str; 16] = [
    // llama.cpp's llama-server started without --jinja (its default): HTTP 500
    // `{"error": {"code": 500, "message": "tools param requires --jinja flag", ...}}`.
    "requires --jinja",
    // Ollama, for a model whose template has no tools: HTTP 400
    // `{"error": "registry.ollama.ai/library/gemma:2b does not support tools"}`.
    "does not support tools",
    "does not support tool",
    "does not support function calling",
    "tools not supported",
    "tools are not supported",
    "tools is not supported",
    "tool use is not supported",
    "tool calling is not supported",
    "tool calls are not supported",
    "function calling is not supported",
    // vLLM started without a tool-call parser: HTTP 400 `"auto" tool choice requires
    // --enable-auto-tool-choice and --tool-call-parser to be set`.
    "--enable-auto-tool-choice",
    // Servers that refuse fields they do not know (OpenAI's own wording, serde, Python).
    "unrecognized request argument supplied: tools",
    "unknown field `tools`",
    "unknown parameter: tools",
    "unexpected keyword argument 'tools'",
];

/// Why a server refused the `tools` parameter, as far as its words tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolsRefusal {
    /// llama.cpp's llama-server without `--jinja`.
    NeedsJinja,
    /// Any other refusal: the server or the model takes no tools.
    Unsupported,
}

impl ToolsRefusal {
    /// What to do about it, when Paddock could not work around it (`toolCalling` is
    /// `native`): starts with "; ".
    pub fn hint(self) -> &'static str {
        match self {
            Self::NeedsJinja => {
                "; start llama-server with --jinja for native tool calls, or set \
                 \"toolCalling\" to \"auto\" or \"prompted\" so Paddock describes the tools \
                 in the prompt"
            }
            Self::Unsupported => {
                "; pick a model or server with tool support, or set \"toolCalling\" to \
                 \"auto\" or \"prompted\" so Paddock describes the tools in the prompt"
            }
        }
    }
}

/// Whether the error says the server will not take a `tools` parameter: one of the known
/// refusals, or a validation error (pydantic's `extra_forbidden`) about the `tools` field.
/// A refusal to *stream* tools is not one (it is asked unstreamed instead).
pub(crate) fn refuses_tools(etype: &str, detail: &str) -> Option<ToolsRefusal> {
    let d = detail.to_ascii_lowercase();
    if refuses_streaming_tools(etype, detail) {
        return None;
    }
    let extra_field = (d.contains("extra_forbidden") || d.contains("extra inputs"))
        && (d.contains("\"tools\"") || d.contains("'tools'"));
    if !extra_field && !TOOLS_REFUSALS.iter().any(|r| d.contains(r)) {
        return None;
    }
    Some(if d.contains("--jinja") {
        ToolsRefusal::NeedsJinja
    } else {
        ToolsRefusal::Unsupported
    })
}

/// An error that says the server will not stream a call that offers tools: one of the
/// known refusals, a code saying so (`unsupported_streaming_tools`), or a message that
/// says streaming and tools do not go together.
pub(crate) fn refuses_streaming_tools(etype: &str, detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let says = |words: &[String], of: &[&str]| words.iter().any(|w| of.contains(&w.as_str()));
    let mention = |w: &[String]| {
        says(w, &["stream", "streaming", "streamed"]) && says(w, &["tool", "tools", "choice"])
    };
    let (dw, tw) = (words(&d), words(&etype.to_ascii_lowercase()));
    // "not supported", "unsupported", "does not support", "cannot", "can't", "not allowed".
    let negated = ["support", "cannot", "can't", "not allowed"]
        .iter()
        .any(|n| d.contains(n));
    STREAMING_TOOLS_REFUSALS.iter().any(|r| d.contains(r))
        || (mention(&tw) && says(&tw, &["unsupported"]))
        || (mention(&dw) && negated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderKind;
    use crate::errors::ErrorContext;
    use crate::retry::Failure;
    use reqwest::StatusCode;
    use reqwest::header::HeaderMap;

    fn status(code: u16, body: &str) -> Failure {
        let c = ErrorContext {
            kind: ProviderKind::OpenAiCompatible,
            base_url: "http://127.0.0.1:9/v1".into(),
            key: None,
        };
        c.status_failure(StatusCode::from_u16(code).unwrap(), &HeaderMap::new(), body)
    }

    #[test]
    fn refusals_to_stream_tool_calls_are_recognised() {
        let refused = |code: u16, body: &str| status(code, body).stream_refused;
        assert!(refused(
            500,
            r#"{"error":{"message":"Automatic streaming tool choice is not supported","type":"internal_server_error"}}"#
        ));
        assert!(refused(
            500,
            r#"{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}"#
        ));
        assert!(refused(
            400,
            r#"{"error":"streaming is not supported with tools"}"#
        ));
        assert!(refused(
            400,
            r#"{"error":{"message":"no","type":"unsupported_streaming_tools"}}"#
        ));
        assert!(refused(422, "Tool calls cannot be streamed by this server"));
        for other in [
            "oops",
            r#"{"error":{"message":"invalid tool schema: 'streamline' is not a type"}}"#,
            r#"{"error":{"message":"tools are not supported by this model"}}"#,
            r#"{"error":{"message":"streaming failed: model crashed"}}"#,
        ] {
            assert!(!refused(500, other), "{other}");
        }
    }

    /// Shown able to fail: before this module, llama.cpp's 500 was a retryable server
    /// error (four attempts) and none of these set `tools_refused`.
    #[test]
    fn refusals_of_the_tools_parameter_are_final_and_recognised() {
        let cases = [
            (
                500,
                r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
                ToolsRefusal::NeedsJinja,
            ),
            (
                400,
                r#"{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}"#,
                ToolsRefusal::Unsupported,
            ),
            (
                400,
                r#"{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError"}}"#,
                ToolsRefusal::Unsupported,
            ),
            (
                400,
                r#"{"error":{"message":"Unrecognized request argument supplied: tools","type":"invalid_request_error"}}"#,
                ToolsRefusal::Unsupported,
            ),
            (
                422,
                r#"{"detail":[{"type":"extra_forbidden","loc":["body","tools"],"msg":"Extra inputs are not permitted"}]}"#,
                ToolsRefusal::Unsupported,
            ),
            (
                400,
                r#"{"error":{"message":"tools are not supported by this model"}}"#,
                ToolsRefusal::Unsupported,
            ),
        ];
        for (code, body, why) in cases {
            let f = status(code, body);
            assert_eq!(f.tools_refused, Some(why), "{body}");
            assert!(!f.retryable, "{body}");
            assert!(!f.stream_refused, "{body}");
        }
        for other in [
            r#"{"error":{"message":"Cannot use tools with stream"}}"#,
            r#"{"error":{"message":"invalid tool schema: 'x' is not a type"}}"#,
            r#"{"detail":[{"type":"extra_forbidden","loc":["body","foo"]}]}"#,
            "oops",
        ] {
            assert_eq!(status(500, other).tools_refused, None, "{other}");
        }
        assert!(
            ToolsRefusal::NeedsJinja
                .hint()
                .contains("start llama-server with --jinja")
        );
    }
}
