use std::sync::Arc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Something the user adds to a prompt besides its words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptAttachment {
    /// A file or folder of the agent's workspace, named with `@` (relative to the workspace).
    Mention { path: String },
    /// An image the user pasted, dropped or picked: its bytes in base64. What it is is read
    /// from the bytes; `media_type` is what the shell believed, checked against them.
    Image {
        media_type: String,
        data: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        name: Option<String>,
    },
}

/// An image's bytes in memory, shared by the history, the request builders and the writer.
pub type ImageData = Arc<[u8]>;

/// An image in a message. A session keeps its bytes in a file named by `sha256` beside the
/// session (the JSONL line holds only this reference); in memory `data` carries them, as the
/// request to the model needs them. `data` is never serialized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImageBlock {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// Hex SHA-256 of the bytes as sent.
    pub sha256: String,
    /// What the user called it (a file name), for transcripts and summaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name: Option<String>,
    pub width: u32,
    pub height: u32,
    /// Set when a tool call's result (`file_read` of an image) produced it: the call's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_call_id: Option<String>,
    #[serde(skip)]
    #[ts(skip)]
    pub data: Option<ImageData>,
}

impl ImageBlock {
    /// How summaries and text-only views name it: `[image: name]`.
    pub fn label(&self) -> String {
        format!(
            "[image: {}]",
            self.name
                .as_deref()
                .unwrap_or(&self.sha256[..self.sha256.len().min(12)])
        )
    }
}

/// A prompt as a shell hands it over: the user's words and what they attached.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PromptInput {
    pub text: String,
    #[serde(default)]
    pub attachments: Vec<PromptAttachment>,
    /// For a new session: the external agent (by its name in the user's `agents.json`) to
    /// give it to instead of Paddock's own. A stored session keeps the agent it began with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub agent: Option<String>,
}

impl From<String> for PromptInput {
    fn from(text: String) -> Self {
        Self {
            text,
            attachments: Vec::new(),
            agent: None,
        }
    }
}

impl From<&str> for PromptInput {
    fn from(text: &str) -> Self {
        text.to_owned().into()
    }
}

/// A file's content or a folder's listing, attached to a prompt because the user named it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Mention {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    pub folder: bool,
    /// The file's text (or the folder's entries, one a line), cut to the attachment limit.
    pub text: String,
    /// Set when `text` is not all of it: what was left out, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cut: Option<String>,
}

impl Mention {
    /// What the model is sent: the content between tags naming the path, so it can tell the
    /// file from the user's words.
    pub fn model_text(&self) -> String {
        let what = if self.folder { "folder" } else { "file" };
        let cut = self
            .cut
            .as_ref()
            .map(|c| format!("\n[{c}]"))
            .unwrap_or_default();
        format!(
            "<mentioned {what}=\"{}\">\n{}{cut}\n</mentioned>",
            self.path, self.text
        )
    }
}

/// A file or folder the composer's `@` list offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MentionCandidate {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    pub folder: bool,
}
