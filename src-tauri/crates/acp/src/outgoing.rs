//! The other direction of `prompt`: Paddock's prompt (the user's message, its `@` files read
//! and its images scaled by the host) as ACP content blocks for an external agent, within
//! what the agent said it takes.

use std::path::Path;

use base64::Engine;
use paddock_protocol::{ContentBlock, Message};
use serde_json::{Value, json};

/// What an agent's prompts may hold besides text and links (its `promptCapabilities`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Takes {
    pub images: bool,
    /// Embedded resources (a file's text sent along); without, a file goes as a link.
    pub embedded: bool,
}

impl Takes {
    /// From an `initialize` answer.
    pub fn of(initialized: &Value) -> Self {
        let p = &initialized["agentCapabilities"]["promptCapabilities"];
        Self {
            images: p["image"] == true,
            embedded: p["embeddedContext"] == true,
        }
    }
}

/// `message` as content blocks; an image for an agent that takes none is an error naming
/// it (nothing is sent), never dropped unsaid.
pub fn blocks(message: &Message, workspace: &Path, takes: Takes) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text } => out.push(json!({"type": "text", "text": text})),
            ContentBlock::Mention(m) => {
                let uri = format!("file://{}", workspace.join(&m.path).display());
                out.push(if takes.embedded && !m.folder {
                    let text = match &m.cut {
                        Some(cut) => format!("{}\n[{cut}]", m.text),
                        None => m.text.clone(),
                    };
                    json!({"type": "resource", "resource": {"uri": uri, "text": text,
                        "mimeType": "text/plain"}})
                } else {
                    json!({"type": "resource_link", "uri": uri, "name": m.path})
                });
            }
            ContentBlock::Image(image) => {
                if !takes.images {
                    return Err(format!(
                        "it takes no images (its ACP capabilities say so), and this prompt has \
                         {}; nothing was sent",
                        image.label()
                    ));
                }
                let data = image
                    .data
                    .as_deref()
                    .ok_or_else(|| format!("{}: its bytes are not at hand", image.label()))?;
                out.push(json!({"type": "image", "mimeType": image.media_type,
                    "data": base64::engine::general_purpose::STANDARD.encode(data)}));
            }
            _ => {}
        }
    }
    Ok(out)
}
