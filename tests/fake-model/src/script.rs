//! The script format: what the fake server answers, one reply per model request, in order.
//! Everything here is plain serde data so a test in another process can send it as JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::probe::Probes;

/// A whole script: the replies to play and the models to list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(default)]
    pub replies: Vec<Reply>,
    /// Served by `GET /v1/models`; empty means the single model `fake-model`.
    #[serde(default)]
    pub models: Vec<String>,
    /// When set, model requests must carry this key (`x-api-key` or `Authorization:
    /// Bearer`); others get a 401 in the vendor's format and consume no reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// The context window mode: chat requests estimated above this many tokens
    /// ([`crate::estimate_tokens`]) are refused with the vendor's context-overflow error
    /// and consume no reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u32>,
    /// What the side endpoints say about models (`/props`, `/api/show`, ...).
    #[serde(default, skip_serializing_if = "Probes::is_empty")]
    pub probes: Probes,
    /// The streaming refusal mode: Chat Completions requests that ask for a stream and
    /// offer tools are refused as llama-cpp-python's server does, and consume no reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refuse_streaming_tools: Option<StreamRefusal>,
    /// The tools refusal mode: Chat Completions requests that offer tools at all are
    /// refused as a server without tool support does (llama-server without `--jinja` by
    /// default), and consume no reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refuse_tools: Option<ToolRefusal>,
    /// The side reply: requests that offer no tools (an agent's side requests, such as
    /// Claude Code's session title) get this reply, and take nothing from the queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_reply: Option<Reply>,
}

/// How a server that takes no `tools` parameter refuses a request offering tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRefusal {
    /// The HTTP status (llama.cpp: 500; Ollama and vLLM: 400).
    pub status: u16,
    /// The body the server sends.
    pub body: Value,
}

impl ToolRefusal {
    /// llama.cpp's llama-server started without `--jinja` (its default).
    pub fn llama_cpp_without_jinja() -> Self {
        Self {
            status: 500,
            body: serde_json::json!({"error": {"code": 500,
                "message": "tools param requires --jinja flag", "type": "server_error"}}),
        }
    }

    /// Ollama, for a model whose template has no tools.
    pub fn ollama(model: &str) -> Self {
        Self {
            status: 400,
            body: serde_json::json!({"error":
                format!("registry.ollama.ai/library/{model} does not support tools")}),
        }
    }

    /// vLLM started without a tool-call parser.
    pub fn vllm_without_parser() -> Self {
        Self {
            status: 400,
            body: serde_json::json!({"object": "error", "type": "BadRequestError", "code": 400,
                "message": "\"auto\" tool choice requires --enable-auto-tool-choice and \
                            --tool-call-parser to be set"}),
        }
    }

    /// A server that refuses fields it does not know (pydantic's 422).
    pub fn unknown_field() -> Self {
        Self {
            status: 422,
            body: serde_json::json!({"detail": [{"type": "extra_forbidden",
                "loc": ["body", "tools"], "msg": "Extra inputs are not permitted"}]}),
        }
    }
}

impl Default for ToolRefusal {
    fn default() -> Self {
        Self::llama_cpp_without_jinja()
    }
}

/// How a server that cannot stream tool calls refuses a request that asks it to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamRefusal {
    /// The HTTP status (llama-cpp-python and llama.cpp: 500).
    #[serde(default = "StreamRefusal::default_status")]
    pub status: u16,
    /// The body; default llama-cpp-python's: `{"error": {"message": "Automatic streaming
    /// tool choice is not supported", "type": "internal_server_error", ...}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

impl StreamRefusal {
    fn default_status() -> u16 {
        500
    }

    /// llama-cpp-python's server's refusal (its chat handlers raise "Automatic streaming
    /// tool choice is not supported"; its error handler answers 500).
    pub fn llama_cpp_python() -> Self {
        Self {
            status: 500,
            body: None,
        }
    }

    /// The body this refusal sends.
    pub fn body(&self) -> Value {
        self.body.clone().unwrap_or_else(|| {
            serde_json::json!({"error": {
                "message": "Automatic streaming tool choice is not supported",
                "type": "internal_server_error", "param": null, "code": null
            }})
        })
    }
}

impl Default for StreamRefusal {
    fn default() -> Self {
        Self::llama_cpp_python()
    }
}

/// One model response, written once and rendered in whichever wire format was asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// Reasoning streamed before the answer (Anthropic thinking block; OpenAI
    /// `reasoning_content`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    /// Anthropic `redacted_thinking` blocks (ignored in the OpenAI format).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted_thinking: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ScriptCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Overrides the stop reason, in the vendor's words ("max_tokens", "length").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Text and tool arguments are split into pieces of this many characters (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_chars: Option<usize>,
    /// A pause before every SSE event: a slow drip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drip_ms: Option<u64>,
    /// Exact SSE bytes to send instead of rendering (vendors' documented examples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_sse: Option<String>,
    #[serde(default, skip_serializing_if = "Quirks::is_default")]
    pub quirks: Quirks,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thinking {
    pub text: String,
    /// Anthropic's signature; empty sends no signature delta.
    #[serde(default)]
    pub signature: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptCall {
    /// Generated when missing (`toolu_fake_N` / `call_fake_N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub input: Value,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// How local OpenAI-compatible servers bend the format (OpenAI format only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quirks {
    /// No usage chunk even when asked (older Ollama, llama.cpp).
    #[serde(default)]
    pub omit_usage: bool,
    /// Tool calls without `id` (some llama.cpp and LM Studio builds).
    #[serde(default)]
    pub omit_tool_call_ids: bool,
    /// Send reasoning under this key instead of `reasoning_content` (Ollama: `reasoning`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_field: Option<String>,
    /// End the stream without `data: [DONE]`.
    #[serde(default)]
    pub omit_done: bool,
    /// Send each tool call whole in one chunk with `arguments` as a JSON object.
    #[serde(default)]
    pub arguments_as_object: bool,
    /// Stream tool calls in odd pieces: an empty first chunk with only the id, argument
    /// pieces without `index` split mid-key, and the name in a later chunk.
    #[serde(default)]
    pub odd_tool_chunks: bool,
}

impl Quirks {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// Something going wrong on purpose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// An HTTP error status instead of a stream, with the vendor's error body unless given.
    Status {
        status: u16,
        /// Sent as the `retry-after` header, verbatim ("2", or an HTTP date).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Value>,
    },
    /// Send `after` SSE events, then cut the connection.
    Drop { after: usize },
    /// Send `after` SSE events, then an event whose data is not JSON.
    Malformed { after: usize },
    /// Send `after` SSE events, then the vendor's in-stream error event.
    StreamError {
        after: usize,
        /// Anthropic error type / OpenAI error type ("overloaded_error", "server_error").
        error_type: String,
        #[serde(default)]
        message: String,
    },
    /// Send `after` SSE events, then nothing, keeping the connection open.
    Hang { after: usize },
    /// A redirect (301, 302, 307, 308) to `location` instead of an answer.
    Redirect { status: u16, location: String },
    /// The vendor's context-overflow error (HTTP 400) instead of an answer, saying the
    /// window is `limit` tokens (default: the context window mode's, else one token less
    /// than the request's estimate).
    ContextOverflow {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A reply that calls one tool.
    pub fn tool_call(name: impl Into<String>, input: Value) -> Self {
        Self::default().with_tool_call(None, name, input)
    }

    /// A reply made of one fault.
    pub fn fault(fault: Fault) -> Self {
        Self {
            fault: Some(fault),
            ..Self::default()
        }
    }

    /// An HTTP error status, optionally with a Retry-After header.
    pub fn status(status: u16, retry_after: Option<&str>) -> Self {
        Self::fault(Fault::Status {
            status,
            retry_after: retry_after.map(str::to_owned),
            body: None,
        })
    }

    /// A redirect to `location` with `status` (307 keeps the method and the body).
    pub fn redirect(status: u16, location: impl Into<String>) -> Self {
        Self::fault(Fault::Redirect {
            status,
            location: location.into(),
        })
    }

    pub fn raw_sse(sse: impl Into<String>) -> Self {
        Self {
            raw_sse: Some(sse.into()),
            ..Self::default()
        }
    }

    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    pub fn with_tool_call(
        mut self,
        id: Option<&str>,
        name: impl Into<String>,
        input: Value,
    ) -> Self {
        self.tool_calls.push(ScriptCall {
            id: id.map(str::to_owned),
            name: name.into(),
            input,
        });
        self
    }

    pub fn with_thinking(mut self, text: impl Into<String>, signature: impl Into<String>) -> Self {
        self.thinking = Some(Thinking {
            text: text.into(),
            signature: signature.into(),
        });
        self
    }

    pub fn with_redacted_thinking(mut self, data: impl Into<String>) -> Self {
        self.redacted_thinking.push(data.into());
        self
    }

    pub fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Some(Usage {
            input_tokens,
            output_tokens,
        });
        self
    }

    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    pub fn with_chunk_chars(mut self, n: usize) -> Self {
        self.chunk_chars = Some(n);
        self
    }

    pub fn with_drip_ms(mut self, ms: u64) -> Self {
        self.drip_ms = Some(ms);
        self
    }

    pub fn with_quirks(mut self, quirks: Quirks) -> Self {
        self.quirks = quirks;
        self
    }

    /// The vendor's context-overflow error, once.
    pub fn context_overflow() -> Self {
        Self::fault(Fault::ContextOverflow { limit: None })
    }

    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.fault = Some(fault);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scripts_read_from_json() {
        let script: Script = serde_json::from_value(json!({
            "models": ["m1"],
            "replies": [
                {"text": "hi", "usage": {"input_tokens": 3, "output_tokens": 1}},
                {"tool_calls": [{"name": "echo", "input": {"text": "x"}}]},
                {"fault": {"kind": "status", "status": 429, "retry_after": "1"}},
                {"text": "slow", "drip_ms": 20, "fault": {"kind": "drop", "after": 2}},
                {"fault": {"kind": "context_overflow"}}
            ],
            "context_window": 8192,
            "probes": {
                "llama_cpp_n_ctx": 4096,
                "ollama": {"qwen3:8b": {"architecture": "qwen3", "context_length": 40960, "num_ctx": 8192}},
                "lm_studio": [{"id": "m1", "max_context_length": 32768, "loaded_context_length": 4096}],
                "model_fields": {"m1": {"max_model_len": 32768}},
                "overrides": {"/props": {"kind": "hang"}, "/api/show": {"kind": "huge", "bytes": 10}}
            },
            "refuse_streaming_tools": {}
        }))
        .unwrap();
        assert_eq!(script.replies.len(), 5);
        assert_eq!(script.replies[4], Reply::context_overflow());
        assert_eq!(script.context_window, Some(8192));
        assert_eq!(script.probes.ollama["qwen3:8b"].num_ctx, Some(8192));
        assert_eq!(script.replies[1].tool_calls[0].name, "echo");
        assert_eq!(script.replies[2], Reply::status(429, Some("1")));
        assert_eq!(
            script.refuse_streaming_tools,
            Some(StreamRefusal::llama_cpp_python())
        );
        let back = serde_json::to_value(&script).unwrap();
        assert_eq!(serde_json::from_value::<Script>(back).unwrap(), script);
    }

    #[test]
    fn typos_in_scripts_are_rejected() {
        let err = serde_json::from_value::<Reply>(json!({"txt": "hi"})).unwrap_err();
        assert!(err.to_string().contains("txt"), "{err}");
        let err =
            serde_json::from_value::<Script>(json!({"probes": {"llama_cpp": 1}})).unwrap_err();
        assert!(err.to_string().contains("llama_cpp"), "{err}");
    }
}
