//! Saved prompts as the UI and the CLI show them: Markdown files under
//! `<project>/.paddock/prompts/` (written by whoever wrote the project) and the user's own
//! config folder, run as `/name args`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a saved prompt comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PromptSource {
    /// `<project>/.paddock/prompts/`: a stranger's text until the user has seen it.
    Project,
    /// The user's config folder: their own.
    User,
}

/// Whether a saved prompt can be sent as it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PromptStatus {
    /// The user's own, or a project prompt confirmed with this content.
    Ready,
    /// A project prompt never confirmed in this folder: shown in full before it is sent.
    Unconfirmed,
    /// A project prompt confirmed once, changed since: shown in full again.
    Changed,
    /// Not readable as a prompt (`error` says why); never sent.
    Broken,
}

/// One saved prompt in the `/` list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SavedPrompt {
    /// What follows the `/`: the file's name without `.md`, or `project:<name>` for a project
    /// prompt whose name the user's own prompt takes.
    pub name: String,
    pub source: PromptSource,
    /// The file, as the user would find it.
    pub path: String,
    /// The front-matter's `description`, else the first line of the text.
    pub description: String,
    /// The front-matter's `argument-hint`, e.g. `[file] [focus]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub argument_hint: Option<String>,
    pub status: PromptStatus,
    /// Why a broken prompt cannot be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}

/// A saved prompt filled in with its arguments, ready to send (or to show first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExpandedPrompt {
    pub name: String,
    pub source: PromptSource,
    pub path: String,
    /// The prompt to send: the file's text after the front-matter, arguments filled in.
    pub text: String,
    /// The file as it is, front-matter included: what the user is shown before a first send.
    pub file_text: String,
    /// SHA-256 of the file's bytes: what a confirmation records.
    pub digest: String,
    /// A project prompt not confirmed with this content: show `file_text`, send only after the
    /// user said yes (`confirm_prompt` with `digest`).
    pub needs_confirmation: bool,
}
