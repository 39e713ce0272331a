//! Sessions in their own checkout of the project's repository (issue 35): the `worktree`
//! setting, a worktree as the shells list it, and what landing one did.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How a session's own checkout is made ready. `setup` and `copy` come from the folder, so
/// they wait for trust like the other settings that run or read something.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WorktreeSettings {
    /// The commit or branch a new session's branch starts from (default: the project's HEAD).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub base_ref: Option<String>,
    /// A command run inside the wall in the new checkout before the first prompt
    /// (`npm ci`, say); its output is shown and its failure said.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub setup: Option<String>,
    /// Files git does not track that the work needs (`.env`, `config/local.json`): globs
    /// over the project, copied into each new checkout; a folder is copied whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub copy: Vec<String>,
}

impl WorktreeSettings {
    pub fn is_empty(&self) -> bool {
        self.base_ref.is_none() && self.setup.is_none() && self.copy.is_empty()
    }
}

/// Where a session's worktree stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WorktreeState {
    /// Its checkout exists and a session may work in it.
    Active,
    /// Merged into `into` as `commit`; the checkout is gone, the branch stays.
    Merged { into: String, commit: String },
    /// The checkout is gone; the branch stays for the user.
    Kept,
    /// Checkout and branch removed; kept on record so its session is not resumed elsewhere.
    Discarded,
}

/// One session's worktree: a branch `paddock/<name>` and (while active) its checkout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorktreeInfo {
    pub name: String,
    /// `paddock/<name>`.
    pub branch: String,
    /// What the branch started from, as the user named it.
    pub base_ref: String,
    /// The commit the branch started from.
    pub base_commit: String,
    /// The checkout's folder (the project's own folder inside it, for a project below its
    /// repository's top).
    pub path: String,
    /// The session working in it, once its first prompt ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session: Option<String>,
    /// RFC 3339, UTC.
    pub created: String,
    /// A copy of a folder outside git (its branch is the copy's own; merging writes the
    /// changed files back into the folder).
    #[serde(default)]
    pub plain_copy: bool,
    #[serde(flatten)]
    pub state: WorktreeState,
}

/// Files copied into a new checkout by the `worktree.copy` globs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CopiedFiles {
    /// Paths relative to the project, folders with a trailing `/`.
    pub paths: Vec<String>,
    pub files: u64,
    pub bytes: u64,
    /// What was not copied, and why (a link, a special file, unreadable).
    pub skipped: Vec<String>,
}

/// A worktree made for a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorktreeCreated {
    pub worktree: WorktreeInfo,
    pub copied: CopiedFiles,
    /// What `worktree.setup` did, when the (trusted) settings have one and it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub setup: Option<WorktreeSetup>,
}

/// The `worktree.setup` command's run in a new checkout, inside the session's wall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorktreeSetup {
    pub command: String,
    pub ok: bool,
    /// bash's result (bounded; the exit code at its end).
    pub output: String,
}

/// The project repository's branches, for "merge into…".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BranchList {
    /// The branch the project's checkout is on (none when detached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub current: Option<String>,
    /// Every local branch but the sessions' own (`paddock/…`).
    pub branches: Vec<String>,
}

/// What the session's branch holds beyond its base.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorktreeChanges {
    /// Commits on the branch that its base does not have.
    pub commits: u32,
    /// Files changed in the checkout and not committed (untracked ones included).
    pub uncommitted: Vec<String>,
    /// Files that differ between the base and the checkout as it is now.
    pub files: Vec<String>,
}

/// What merging a worktree did. A merge with conflicts changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum MergeOutcome {
    /// `into` now points at the branch's last commit.
    FastForward { into: String, commit: String },
    /// A merge commit on `into`.
    Merged { into: String, commit: String },
    /// Nothing was changed: these files conflict.
    Conflicts { into: String, files: Vec<String> },
    /// The branch has nothing `into` lacks.
    UpToDate { into: String },
}

/// What to do with a session's worktree (the Changes view's actions, `paddock worktree`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum WorktreeLanding {
    /// Commit what the checkout has not committed (`message`: else the session's title).
    Commit {
        #[serde(default)]
        message: Option<String>,
    },
    /// Commit what is left, then merge into `into` (else the project's current branch).
    /// Refused when it lands files folder trust covers, unless `accept_trust_changes`.
    Merge {
        #[serde(default)]
        into: Option<String>,
        #[serde(default)]
        message: Option<String>,
        /// The user read the trust-covered files it lands and accepts them (the folder then
        /// asks for trust again).
        #[serde(default)]
        accept_trust_changes: bool,
    },
    /// Commit what is left, keep the branch, remove the checkout; the same trust rule.
    Keep {
        #[serde(default)]
        accept_trust_changes: bool,
    },
    /// Remove the checkout and the branch.
    Discard,
}

/// What a landing did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorktreeLanded {
    /// The worktree as it now stands; none once discarded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub worktree: Option<WorktreeInfo>,
    /// The commit Paddock made of what was left, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub merge: Option<MergeOutcome>,
    /// Discarded: commits not merged and files not committed that went with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub lost: Option<WorktreeChanges>,
}
