//! Images in requests, as each wire format takes them. The bytes were checked and scaled to
//! the vendor's limits when the block was made (`paddock-images`); here they are only
//! encoded.

use base64::Engine;
use paddock_protocol::ImageBlock;
use serde_json::{Value, json};

fn base64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// What the model is told instead of an image whose bytes are gone (a session's image file
/// was deleted).
pub(crate) fn missing(image: &ImageBlock) -> String {
    format!("{} (no longer available)", image.label())
}

/// Anthropic Messages API image block: `{"type":"image","source":{"type":"base64",
/// "media_type":"image/png","data":"..."}}` (platform.claude.com/docs/en/build-with-claude/
/// vision, read 2026-12-06); a text block when the bytes are gone.
pub(crate) fn anthropic(image: &ImageBlock) -> Value {
    match &image.data {
        Some(data) => json!({"type": "image", "source": {
            "type": "base64",
            "media_type": image.media_type,
            "data": base64(data),
        }}),
        None => json!({"type": "text", "text": missing(image)}),
    }
}

/// Chat Completions content part: `{"type":"image_url","image_url":{"url":"data:image/png;
/// base64,...","detail":"auto"}}` (platform.openai.com/docs/guides/images-vision, read
/// 2026-12-06); a text part when the bytes are gone.
pub(crate) fn openai_part(image: &ImageBlock) -> Value {
    match &image.data {
        Some(data) => json!({"type": "image_url", "image_url": {
            "url": format!("data:{};base64,{}", image.media_type, base64(data)),
            "detail": "auto",
        }}),
        None => json!({"type": "text", "text": missing(image)}),
    }
}

/// The line put before a tool call's image in a user message (Chat Completions' tool
/// messages carry text only).
pub(crate) fn from_call(image: &ImageBlock, call: &str) -> String {
    format!("{} is the output of tool call {call}:", image.label())
}
