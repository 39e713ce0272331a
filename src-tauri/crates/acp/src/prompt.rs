//! A client's prompt (ACP content blocks) as Paddock's prompt text and attachments.

use std::path::Path;

use paddock_protocol::PromptAttachment;
use serde_json::Value;

/// Most characters of a resource the client embedded that go into the prompt.
pub const MAX_EMBEDDED_CHARS: usize = 256 * 1024;

/// A prompt ready for Paddock.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub text: String,
    pub attachments: Vec<PromptAttachment>,
}

/// Reads `blocks`: text as it is; a link to a file of the agent's workspace as an `@`
/// attachment (read later through the path guard), any other link as text; an embedded
/// resource as context the client chose to send; images as image attachments. Audio, and
/// anything unknown, is refused by name.
pub fn read(blocks: &Value, workspace: &Path) -> Result<Prompt, String> {
    let blocks = blocks
        .as_array()
        .ok_or_else(|| "the prompt must be a list of content blocks".to_owned())?;
    let mut text = String::new();
    let mut attachments = Vec::new();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => push(&mut text, block["text"].as_str().unwrap_or_default()),
            Some("resource_link") => {
                let uri = block["uri"].as_str().unwrap_or_default();
                match in_workspace(uri, workspace) {
                    Some(path) => attachments.push(PromptAttachment::Mention { path }),
                    None => push(&mut text, &format!("[{}]({uri})", name_of(block, uri))),
                }
            }
            Some("resource") => {
                let r = &block["resource"];
                let uri = r["uri"].as_str().unwrap_or_default();
                let Some(body) = r["text"].as_str() else {
                    return Err(format!("{uri}: only text resources can be embedded"));
                };
                let (body, cut) = cut(body);
                push(
                    &mut text,
                    &format!("<context uri=\"{uri}\"{cut}>\n{body}\n</context>"),
                );
            }
            Some("image") => attachments.push(PromptAttachment::Image {
                media_type: block["mimeType"].as_str().unwrap_or_default().to_owned(),
                data: block["data"].as_str().unwrap_or_default().to_owned(),
                name: block["uri"].as_str().map(str::to_owned),
            }),
            Some(other) => return Err(format!("Paddock does not take {other} in a prompt")),
            None => return Err("a content block without a type".to_owned()),
        }
    }
    if text.trim().is_empty() && !attachments.is_empty() {
        text = "(see the attachments)".to_owned();
    }
    Ok(Prompt { text, attachments })
}

fn push(text: &mut String, part: &str) {
    if !text.is_empty() && !part.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(part);
}

fn name_of<'a>(block: &'a Value, uri: &'a str) -> &'a str {
    block["name"].as_str().unwrap_or(uri)
}

fn cut(body: &str) -> (String, &'static str) {
    if body.chars().count() <= MAX_EMBEDDED_CHARS {
        (body.to_owned(), "")
    } else {
        (
            body.chars().take(MAX_EMBEDDED_CHARS).collect(),
            " cut=\"only the start is included\"",
        )
    }
}

/// `file:///abs/path` under `workspace`, relative and `/`-separated. Only a plain prefix
/// test: the path guard decides later whether the file may be read (symlinks, ignores).
fn in_workspace(uri: &str, workspace: &Path) -> Option<String> {
    let path = uri.strip_prefix("file://")?;
    let path = percent_decoded(path)?;
    let rel = Path::new(&path).strip_prefix(workspace).ok()?;
    let rel = rel.to_str()?.replace('\\', "/");
    (!rel.is_empty() && !rel.split('/').any(|c| c == "..")).then_some(rel)
}

/// `%20` and friends; `None` for a broken escape or bytes that are not UTF-8.
fn percent_decoded(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
