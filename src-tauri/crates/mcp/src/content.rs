//! MCP tool results as the text the model reads: text as is, everything else described.

use paddock_core::ToolOutput;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// The model's view of a result; `isError` carries over.
pub fn to_output(result: &CallToolResult) -> ToolOutput {
    let text = result_text(result);
    if result.is_error.unwrap_or(false) {
        ToolOutput::error(text)
    } else {
        ToolOutput::ok(text)
    }
}

/// Every content block in order, one per paragraph.
pub fn result_text(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = result.content.iter().map(block_text).collect();
    if parts.is_empty() {
        // Servers should mirror structured content as text; not all do.
        if let Some(structured) = &result.structured_content {
            parts.push(structured.to_string());
        }
    }
    if parts.is_empty() {
        return "(the tool returned no content)".to_owned();
    }
    parts.join("\n")
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!(
            "[image: {}, {}; not shown]",
            i.mime_type,
            human_size(base64_len(&i.data))
        ),
        ContentBlock::Audio(a) => format!(
            "[audio: {}, {}; not shown]",
            a.mime_type,
            human_size(base64_len(&a.data))
        ),
        ContentBlock::Resource(r) => resource_text(&r.resource),
        ContentBlock::ResourceLink(link) => {
            let mut details = vec![
                link.mime_type
                    .clone()
                    .unwrap_or_else(|| "type unknown".into()),
            ];
            if let Some(size) = link.size {
                details.push(human_size(size));
            }
            let mut line = format!(
                "[resource link: {} <{}> ({})]",
                link.name,
                link.uri,
                details.join(", ")
            );
            if let Some(d) = link.description.as_deref().filter(|d| !d.is_empty()) {
                line.push_str(&format!(" {d}"));
            }
            line
        }
        _ => "[content of a type Paddock does not know; not shown]".to_owned(),
    }
}

fn resource_text(resource: &ResourceContents) -> String {
    match resource {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => format!(
            "[resource: <{uri}> ({}, {})]\n{text}",
            mime_type.as_deref().unwrap_or("text"),
            human_size(text.len() as u64)
        ),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => format!(
            "[resource: <{uri}> ({}, {}); binary, not shown]",
            mime_type.as_deref().unwrap_or("type unknown"),
            human_size(base64_len(blob))
        ),
        _ => "[resource of a kind Paddock does not know; not shown]".to_owned(),
    }
}

/// Decoded size of base64 text, without decoding it.
fn base64_len(data: &str) -> u64 {
    let significant = data
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count() as u64;
    significant * 3 / 4
}

fn human_size(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    // Display only: precision loss on huge sizes does not matter.
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if b < KB * KB {
        format!("{:.1} KB", b / KB)
    } else {
        format!("{:.1} MB", b / (KB * KB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(v: serde_json::Value) -> CallToolResult {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn text_is_kept_and_images_are_described() {
        let r = result(json!({"content": [
            {"type": "text", "text": "Here it is:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
        ]}));
        let out = to_output(&r);
        assert!(!out.is_error());
        assert_eq!(
            out.content,
            "Here it is:\n[image: image/png, 8 bytes; not shown]\n[audio: audio/wav, 3 bytes; not shown]"
        );
    }

    #[test]
    fn resources_are_described_with_uri_type_and_size() {
        let r = result(json!({"content": [
            {"type": "resource", "resource": {"uri": "demo://1", "mimeType": "text/plain", "text": "hello"}},
            {"type": "resource", "resource": {"uri": "demo://2", "mimeType": "application/zip", "blob": "A".repeat(4096)}},
            {"type": "resource_link", "uri": "demo://3", "name": "notes", "mimeType": "text/markdown", "size": 2048, "description": "Meeting notes"}
        ]}));
        let text = result_text(&r);
        assert!(
            text.contains("[resource: <demo://1> (text/plain, 5 bytes)]\nhello"),
            "{text}"
        );
        assert!(
            text.contains("[resource: <demo://2> (application/zip, 3.0 KB); binary, not shown]"),
            "{text}"
        );
        assert!(
            text.contains(
                "[resource link: notes <demo://3> (text/markdown, 2.0 KB)] Meeting notes"
            ),
            "{text}"
        );
    }

    #[test]
    fn is_error_is_respected() {
        let r = result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert_eq!(to_output(&r), ToolOutput::error("boom"));
    }

    #[test]
    fn structured_content_stands_in_for_missing_text() {
        let r = result(json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(result_text(&r), r#"{"sum":3}"#);
        assert_eq!(
            result_text(&result(json!({"content": []}))),
            "(the tool returned no content)"
        );
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(5), "5 bytes");
        assert_eq!(human_size(1536), "1.5 KB");
        assert_eq!(human_size(3 * 1024 * 1024), "3.0 MB");
    }
}
