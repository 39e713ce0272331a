use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Something the user adds to a prompt besides its words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptAttachment {
    /// A file or folder of the agent's workspace, named with `@` (relative to the workspace).
    Mention { path: String },
}

/// A prompt as a shell hands it over: the user's words and what they attached.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PromptInput {
    pub text: String,
    #[serde(default)]
    pub attachments: Vec<PromptAttachment>,
}

impl From<String> for PromptInput {
    fn from(text: String) -> Self {
        Self {
            text,
            attachments: Vec::new(),
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
