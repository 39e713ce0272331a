//! Anthropic's Messages API.

mod decode;
mod request;

use std::sync::Arc;

use paddock_core::{ModelError, ModelRequest, ModelStream};
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use crate::catalog::ModelInfo;
use crate::config::{ProviderConfig, endpoint};
use crate::driver;
use crate::http::{Transport, secret_header};
use crate::window::listing_window;

pub(crate) use decode::parse_input;
pub(crate) use request::Options;

/// The API version this adapter was written against.
pub const API_VERSION: &str = "2023-06-01";

pub(crate) fn headers(config: &ProviderConfig) -> Result<HeaderMap, ModelError> {
    let mut h = HeaderMap::new();
    h.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
    if let Some(key) = &config.api_key {
        let (name, value) = secret_header("x-api-key", key.expose())?;
        h.insert(name, value);
    }
    Ok(h)
}

pub(crate) fn stream(
    transport: &Arc<Transport>,
    opts: Options,
    req: &ModelRequest<'_>,
) -> ModelStream {
    let body = match serde_json::to_vec(&request::body(req, opts)) {
        Ok(b) => b,
        Err(e) => return driver::failed(transport.ctx.invalid(e).error),
    };
    let call = driver::Call {
        url: endpoint(&transport.base, "v1/messages"),
        body,
        streamed: true,
        unstreamed: None,
        prompted: None,
    };
    let ctx = transport.ctx.clone();
    driver::stream(transport.clone(), call, move || {
        decode::AnthropicDecoder::new(ctx.clone())
    })
}

/// Every model the key may use, newest first as the API lists them.
pub(crate) async fn list_models(t: &Transport) -> Result<Vec<ModelInfo>, ModelError> {
    let mut models = Vec::new();
    let mut after: Option<String> = None;
    // Pages are large; the bound only guards against a server that never stops paging.
    for _ in 0..20 {
        let mut url = endpoint(&t.base, "v1/models?limit=1000");
        if let Some(id) = &after {
            url.push_str("&after_id=");
            url.push_str(id);
        }
        let page = t.get_json(&url).await?;
        let data = page
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| t.ctx.invalid("the model list has no 'data' array").error)?;
        for m in data {
            if let Some(id) = m.get("id").and_then(Value::as_str) {
                models.push(ModelInfo {
                    id: id.to_owned(),
                    display_name: m
                        .get("display_name")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    context_window: listing_window(m),
                });
            }
        }
        let more = page.get("has_more").and_then(Value::as_bool) == Some(true);
        after = page
            .get("last_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if !more || after.is_none() {
            break;
        }
    }
    Ok(models)
}
