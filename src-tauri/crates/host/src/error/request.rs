//! Why a request was refused before anything ran: something it needs is missing, or it does
//! not fit the session, worktree or agent it names. Each is a case the shells can tell apart
//! without reading the sentence.

use std::path::PathBuf;

/// A request refused before anything ran (nothing changed).
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("the prompt is empty")]
    EmptyPrompt,
    #[error(
        "no model is set: choose one beside Send or in Settings (desktop), pass --model (CLI), or \
         set \"model\" in .paddock/settings.json"
    )]
    NoModel,
    #[error("no model given")]
    NoModelGiven,
    #[error("name a model to test")]
    NoModelToTest,
    #[error("no tool name given")]
    NoToolName,
    #[error("nothing to commit: the checkout has no changes")]
    NothingToCommit,
    #[error("the model proposed no message; type one")]
    NoCommitMessage,
    #[error(
        "the worktree '{name}' belongs to session {session}: resume that session, or make a new \
         worktree"
    )]
    WorktreeTaken { name: String, session: String },
    #[error(
        "session {session} does not work in a worktree; a worktree is chosen when a session starts"
    )]
    NotInWorktree { session: String },
    #[error("the worktree this session worked in ({branch}) was discarded; start a new session")]
    WorktreeDiscarded { branch: String },
    #[error("session {session} is with the external agent {agent}: continue it with that agent")]
    ExternalSession { session: String, agent: String },
    #[error("session {session} is not a session of the agent {agent}")]
    NotAgentsSession { session: String, agent: String },
    #[error(
        "the external agent {agent} answers in its own words: an output schema is for Paddock's \
         agent"
    )]
    SchemaForExternal { agent: String },
    /// The agent's API address is one its wall refuses.
    #[error("{0}")]
    Unreachable(String),
    #[error("{} is not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error("a variable name has letters, digits and _ (e.g. GITHUB_TOKEN)")]
    BadVariableName,
    #[error("this project has no .mcp.json, .cursor/mcp.json or .vscode/mcp.json")]
    NoMcpFile,
    #[error("{target}: {why}")]
    BadTarget { target: String, why: String },
    #[error("the input of {tool} must be JSON: {why}")]
    InputNotJson { tool: String, why: String },
}
