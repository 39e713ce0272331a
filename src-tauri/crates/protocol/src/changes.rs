//! What changed in the workspace: a file's change as data (for edit cards, approvals, the
//! run's Changes list and rewind previews), workspace checkpoints and rewinds.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What happened to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
}

/// One path's change: what happened, line counts and the diff itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileChange {
    /// Relative to the workspace root, with `/` separators.
    pub path: String,
    pub kind: ChangeKind,
    /// Lines added and removed (0 for binary and too-large files).
    pub added: u32,
    pub removed: u32,
    /// Permission bits before and after, when they differ (or when the file was created or
    /// deleted: the side that exists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode: Option<ModeChange>,
    pub diff: DiffBody,
}

/// Permission bits (`0o644` as 420) on each side; `None` where the file does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModeChange {
    pub old: Option<u32>,
    pub new: Option<u32>,
}

/// The body of a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DiffBody {
    /// Line hunks of a text file (empty when only the mode changed).
    Text { hunks: Vec<DiffHunk> },
    /// Either side is binary: sizes only.
    Binary {
        #[ts(type = "number")]
        old_bytes: u64,
        #[ts(type = "number")]
        new_bytes: u64,
    },
    /// Too large to show line by line: sizes only.
    TooLarge {
        #[ts(type = "number")]
        old_bytes: u64,
        #[ts(type = "number")]
        new_bytes: u64,
    },
    /// A symbolic link: its target on each side.
    Link {
        old: Option<String>,
        new: Option<String>,
    },
    /// A folder made or removed.
    Folder,
}

/// A run of changed lines with context, as in a unified diff (`@@ -a,b +c,d @@`). Line
/// numbers start at 1; a side with no lines has start 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiffHunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<DiffLine>,
}

/// One line of a hunk, without its line ending.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiffLine {
    pub op: LineOp,
    pub text: String,
    /// How the line ends when not with `\n`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub end: Option<LineEnd>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LineOp {
    Context,
    Added,
    Removed,
}

/// A line ending other than `\n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LineEnd {
    Crlf,
    /// A lone carriage return (old Mac text).
    Cr,
    /// The last line of a file with no newline at its end.
    Missing,
}

/// What a tool call would do, shown with its approval request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallPreview {
    /// The change a file tool would make, computed without writing.
    Change { change: FileChange },
    /// The call would fail as it stands (approving it runs it, and it fails the same way).
    WouldFail { message: String },
    /// A shell command, where it runs and what it may reach.
    Command {
        command: String,
        /// Working directory, as the user knows it (absolute).
        cwd: String,
        /// Whether the command may use the network.
        network: bool,
        /// How it is confined, in a few words ("bubblewrap", "not confined").
        confinement: String,
        timeout_secs: u32,
    },
    /// What a finished call wrote that would make a program run outside the sandbox (git
    /// configuration or hooks, `.envrc`, editor task files): set aside until the user keeps
    /// it; otherwise removed (or put back as it was).
    Held {
        /// Why each file is held, one line each.
        reasons: Vec<String>,
        changes: Vec<FileChange>,
    },
    /// A running call wants to reach a host no rule of the `network` setting settles; the
    /// connection waits for the answer.
    Network {
        /// The normalized host and its port.
        host: String,
        port: u16,
        /// `CONNECT` (HTTPS, end to end) or the plain-HTTP method.
        method: String,
        /// Why it is asked ("no rule names host:443").
        why: String,
        /// The narrowest `network.allow` rule that would let it through ("Always for this
        /// project" saves it, editable first).
        #[serde(default)]
        rule: String,
    },
}

/// One path of a run's (or a rewind's) changes, without the diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChangeSummary {
    pub path: String,
    pub kind: ChangeKind,
    pub added: u32,
    pub removed: u32,
    /// Binary, too large, a link or a folder: no line counts.
    #[serde(default)]
    pub lines_counted: bool,
}

impl From<&FileChange> for ChangeSummary {
    fn from(c: &FileChange) -> Self {
        Self {
            path: c.path.clone(),
            kind: c.kind,
            added: c.added,
            removed: c.removed,
            lines_counted: matches!(c.diff, DiffBody::Text { .. }),
        }
    }
}

/// A point a session can be rewound to: the workspace as it was before a turn's tools ran
/// (turn 0: before the prompt), and the conversation as it was before that turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CheckpointInfo {
    /// The workspace state's id in the checkpoint store.
    pub checkpoint: String,
    /// The workspace folder it is a state of (absolute): a rewind puts it back only there.
    pub workspace: String,
    /// 0 before the prompt, else the turn whose tools were about to run.
    pub turn: u32,
    /// Messages of the conversation kept when rewinding to here.
    pub messages: u32,
}

/// A rewind, as the session records it (append-only: the rewound turns stay in the file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RewindInfo {
    pub id: String,
    /// Where it went: the prompt (1-based) and turn (0 = before the prompt).
    pub prompt: u32,
    pub turn: u32,
    /// The files were put back to the checkpoint.
    pub files: bool,
    /// The conversation was cut back to `messages`.
    pub conversation: bool,
    /// Messages of the conversation after the rewind.
    pub messages: u32,
    /// The workspace state just before the rewind: undoing it goes back there (empty when
    /// the files were not rewound).
    pub before: String,
    /// The workspace folder the files were rewound in (empty when they were not).
    #[serde(default)]
    pub workspace: String,
    /// Set when this rewind undoes another one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub undoes: Option<String>,
    /// What it changed in the files.
    #[serde(default)]
    pub changed: Vec<ChangeSummary>,
}

/// What a rewind puts back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RewindMode {
    /// Files and conversation.
    Both,
    FilesOnly,
    ConversationOnly,
}

impl RewindMode {
    pub fn files(self) -> bool {
        self != Self::ConversationOnly
    }

    pub fn conversation(self) -> bool {
        self != Self::FilesOnly
    }
}

/// What a rewind would do, shown before it is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RewindPreview {
    /// The changes the files would undergo (from now to the checkpoint); empty when only the
    /// conversation is rewound or nothing differs.
    pub files: Vec<FileChange>,
    /// Messages of the conversation that would be set aside (kept in the session, shown as
    /// rewound).
    pub messages_dropped: u32,
}

/// Where a project's first workspace snapshot in this process stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointState {
    /// Not asked for yet.
    Idle,
    /// Being taken (in the background).
    Recording,
    Ready,
    Failed,
}

/// Where the project's checkpoints stand, for a shell to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CheckpointStatus {
    pub state: CheckpointState,
    /// Files looked at so far by the first snapshot (once done: the files it kept).
    #[ts(type = "number")]
    pub files: u64,
    /// Their bytes.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Files the workspace had last time (0: not known yet).
    #[ts(type = "number")]
    pub expected: u64,
    /// How long the first snapshot took, once done.
    #[ts(type = "number | null")]
    pub took_ms: Option<u64>,
    /// Why it failed, or why each turn walks the whole workspace.
    pub message: Option<String>,
}
