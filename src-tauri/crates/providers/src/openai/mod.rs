//! OpenAI's Chat Completions API, and the servers that imitate it.

mod decode;
mod holdback;
mod prompted;
mod repeats;
mod request;
mod think;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::StreamExt;
use paddock_core::{ModelError, ModelEvent, ModelRequest, ModelStream};
use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::catalog::ModelInfo;
use crate::config::{ProviderConfig, ProviderKind, endpoint};
use crate::driver;
use crate::http::{Transport, secret_header};
use crate::tool_mode::ToolMode;
use crate::window::listing_window;

/// A tool result's text as Chat Completions carries it: that API has no error flag, so a
/// failure says so in its text, once (the kernel's own failures already begin with
/// `Error:`; a second prefix only confuses a small model).
pub(crate) fn result_text(r: &paddock_protocol::ToolResult) -> std::borrow::Cow<'_, str> {
    if r.is_error && !r.content.trim_start().starts_with("Error:") {
        std::borrow::Cow::Owned(format!("Error: {}", r.content))
    } else {
        std::borrow::Cow::Borrowed(r.content.as_str())
    }
}

pub(crate) fn headers(config: &ProviderConfig) -> Result<HeaderMap, ModelError> {
    let mut h = HeaderMap::new();
    if let Some(key) = config.api_key.as_ref().filter(|k| !k.is_empty()) {
        let (name, value) = secret_header("authorization", &format!("Bearer {}", key.expose()))?;
        h.insert(name, value);
    }
    Ok(h)
}

/// How a call offering tools is made, shared by every call of one provider.
pub(crate) struct Modes<'a> {
    /// Recover calls printed as text (compatible servers only).
    pub text_tool_calls: bool,
    /// The server refused to stream a call with tools before, so calls with tools are
    /// asked unstreamed; set when it first does.
    pub unstreamed_tools: &'a Arc<AtomicBool>,
    /// Native or prompted tools (compatible servers only).
    pub tools: &'a Arc<ToolMode>,
}

/// The longest reply asked of an OpenAI-compatible server when the caller names no limit:
/// a small local model may otherwise stream for minutes (the stall timer never fires
/// while tokens flow).
pub const LOCAL_MAX_OUTPUT_TOKENS: u32 = 4096;

pub(crate) fn stream(
    transport: &Arc<Transport>,
    modes: &Modes<'_>,
    req: &ModelRequest<'_>,
) -> ModelStream {
    let compat = transport.ctx.kind == ProviderKind::OpenAiCompatible;
    let bounded;
    let req = if compat && req.max_output_tokens.is_none() {
        bounded = ModelRequest {
            max_output_tokens: Some(LOCAL_MAX_OUTPUT_TOKENS),
            ..*req
        };
        &bounded
    } else {
        req
    };
    let has_tools = !req.tools.is_empty();
    let invalid = |e: serde_json::Error| driver::failed(transport.ctx.invalid(e).error);
    let call = if compat && has_tools && modes.tools.prompts() {
        match serde_json::to_vec(&prompted::body(req)) {
            Ok(body) => driver::Call {
                url: endpoint(&transport.base, "chat/completions"),
                body,
                streamed: true,
                unstreamed: None,
                prompted: None,
            },
            Err(e) => return invalid(e),
        }
    } else {
        let streamed = !(has_tools && modes.unstreamed_tools.load(Ordering::Relaxed));
        let encode = |streamed: bool| serde_json::to_vec(&request::body(req, compat, streamed));
        let body = match encode(streamed) {
            Ok(body) => body,
            Err(e) => return invalid(e),
        };
        let unstreamed = match (streamed && has_tools).then(|| encode(false)) {
            Some(Ok(alt)) => Some(driver::Unstreamed {
                body: alt,
                remember: modes.unstreamed_tools.clone(),
            }),
            Some(Err(e)) => return invalid(e),
            None => None,
        };
        let prompted = match (compat && has_tools && modes.tools.may_fall_back())
            .then(|| serde_json::to_vec(&prompted::body(req)))
        {
            Some(Ok(alt)) => Some(driver::Prompted {
                body: alt,
                mode: modes.tools.clone(),
            }),
            Some(Err(e)) => return invalid(e),
            None => None,
        };
        driver::Call {
            url: endpoint(&transport.base, "chat/completions"),
            body,
            streamed,
            unstreamed,
            prompted,
        }
    };
    let names: Vec<String> = req.tools.iter().map(|t| t.name.clone()).collect();
    let (text_tool_calls, mode) = (modes.text_tool_calls, modes.tools.clone());
    let observed = modes.tools.clone();
    let ctx = transport.ctx.clone();
    let events = driver::stream(transport.clone(), call, move || {
        // Looked at per attempt: a refusal may have switched this call to prompted.
        let fallback = if compat && (text_tool_calls || mode.prompts()) {
            names.clone()
        } else {
            Vec::new()
        };
        decode::OpenAiDecoder::new(ctx.clone(), fallback)
    });
    if !compat {
        return events;
    }
    // Whether the server parses the model's calls: auto mode learns from what arrives,
    // and says so when it turns prompted.
    events
        .flat_map(move |event| {
            let turned = match &event {
                Ok(ModelEvent::ToolCall(call)) => observed.observe_call(call.parsed_from_text),
                _ => None,
            };
            let notice = turned.map(|why| {
                Ok(ModelEvent::Notice(format!(
                    "{why}; {}",
                    driver::PROMPTED_NOTICE
                )))
            });
            futures_util::stream::iter(std::iter::once(event).chain(notice))
        })
        .boxed()
}

pub(crate) async fn list_models(t: &Transport) -> Result<Vec<ModelInfo>, ModelError> {
    let page = t.get_json(&endpoint(&t.base, "models")).await?;
    let data = page
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| t.ctx.invalid("the model list has no 'data' array").error)?;
    let mut models: Vec<ModelInfo> = data
        .iter()
        .filter_map(|m| {
            let id = m.get("id").and_then(Value::as_str)?;
            Some(ModelInfo {
                id: id.to_owned(),
                display_name: None,
                context_window: listing_window(m),
            })
        })
        .collect();
    models.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(models)
}

#[cfg(test)]
mod tests {
    use paddock_protocol::ToolResult;

    use super::result_text;

    fn result(content: &str, is_error: bool) -> ToolResult {
        ToolResult {
            tool_call_id: "c1".into(),
            content: content.into(),
            is_error,
        }
    }

    /// Issue 52: the kernel's `Error: …` reached the model as `Error: Error: …`.
    #[test]
    fn a_failure_says_error_once() {
        assert_eq!(
            result_text(&result("Error: no such file", true)),
            "Error: no such file"
        );
        assert_eq!(
            result_text(&result("denied by a rule", true)),
            "Error: denied by a rule"
        );
        assert_eq!(result_text(&result("Error: text", false)), "Error: text");
        assert_eq!(result_text(&result("ok", false)), "ok");
    }
}
