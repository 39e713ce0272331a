//! OpenAI's Chat Completions API, and the servers that imitate it.

mod decode;
mod request;
mod think;

use std::sync::Arc;

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
pub(crate) fn stream(
    transport: &Arc<Transport>,
    text_tool_calls: bool,
    req: &ModelRequest<'_>,
) -> ModelStream {
    let compat = transport.ctx.kind == ProviderKind::OpenAiCompatible;
    let body = match serde_json::to_vec(&request::body(req, compat)) {
        Ok(b) => b,
        Err(e) => return driver::failed(transport.ctx.invalid(e).error),
    };
    let fallback: Vec<String> = if compat && text_tool_calls {
        req.tools.iter().map(|t| t.name.clone()).collect()
    } else {
        Vec::new()
    };
    let url = endpoint(&transport.base, "chat/completions");
    let ctx = transport.ctx.clone();
    driver::stream(transport.clone(), url, body, move || {
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
