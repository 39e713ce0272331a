//! OpenAI's Chat Completions API, and the servers that imitate it.

mod decode;
mod request;
mod think;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use paddock_core::{ModelError, ModelRequest, ModelStream};
use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::catalog::ModelInfo;
use crate::config::{ProviderConfig, ProviderKind, endpoint};
use crate::driver;
use crate::http::{Transport, secret_header};
use crate::window::listing_window;

pub(crate) fn headers(config: &ProviderConfig) -> Result<HeaderMap, ModelError> {
    let mut h = HeaderMap::new();
    if let Some(key) = config.api_key.as_ref().filter(|k| !k.is_empty()) {
        let (name, value) = secret_header("authorization", &format!("Bearer {}", key.expose()))?;
        h.insert(name, value);
    }
    Ok(h)
}

/// `text_tool_calls`: recover calls printed as text (compatible servers only).
/// `unstreamed_tools`: the server refused to stream a call with tools before, so calls
/// with tools are asked unstreamed; set when it first does.
pub(crate) fn stream(
    transport: &Arc<Transport>,
    text_tool_calls: bool,
    unstreamed_tools: &Arc<AtomicBool>,
    req: &ModelRequest<'_>,
) -> ModelStream {
    let compat = transport.ctx.kind == ProviderKind::OpenAiCompatible;
    let has_tools = !req.tools.is_empty();
    let streamed = !(has_tools && unstreamed_tools.load(Ordering::Relaxed));
    let encode = |streamed: bool| serde_json::to_vec(&request::body(req, compat, streamed));
    let (body, unstreamed) = match (encode(streamed), streamed && has_tools) {
        (Ok(body), false) => (body, None),
        (Ok(body), true) => match encode(false) {
            Ok(alt) => (
                body,
                Some(driver::Unstreamed {
                    body: alt,
                    remember: unstreamed_tools.clone(),
                }),
            ),
            Err(e) => return driver::failed(transport.ctx.invalid(e).error),
        },
        (Err(e), _) => return driver::failed(transport.ctx.invalid(e).error),
    };
    let fallback: Vec<String> = if compat && text_tool_calls {
        req.tools.iter().map(|t| t.name.clone()).collect()
    } else {
        Vec::new()
    };
    let call = driver::Call {
        url: endpoint(&transport.base, "chat/completions"),
        body,
        streamed,
        unstreamed,
    };
    let ctx = transport.ctx.clone();
    driver::stream(transport.clone(), call, move || {
        decode::OpenAiDecoder::new(ctx.clone(), fallback.clone())
    })
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
