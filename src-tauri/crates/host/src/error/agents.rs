//! Why the user's external agents could not be read, changed or started.

use std::path::PathBuf;

/// Why the user's external agents could not be read, changed or started.
#[derive(Debug, thiserror::Error)]
pub enum AgentConfigError {
    #[error("your agents file {} cannot be used: {why}", path.display())]
    Broken { path: PathBuf, why: String },
    #[error("no external agent '{name}'{}", listed(in_file, known))]
    Unknown {
        name: String,
        /// The file read, and the names it lists (for a lookup that read it).
        in_file: Option<PathBuf>,
        known: Vec<String>,
    },
    #[error("agent {name}: {why}")]
    Invalid { name: String, why: String },
    #[error("you already have an agent named {name}: choose another name, or edit it")]
    Exists { name: String },
    #[error(
        "the agent {agent} needs a {provider} key: store one (the app's Settings) or set {var}"
    )]
    NoProviderKey {
        agent: String,
        provider: &'static str,
        var: &'static str,
    },
    #[error(
        "the agent {agent} needs the key kept as {name}: store it (the app's Sandbox screen, \
         under its agent) or set {name}"
    )]
    NoKeyValue { agent: String, name: String },
    #[error("the agent {agent}'s key names neither a provider nor a keychain value")]
    NoKeySource { agent: String },
}

fn listed(in_file: &Option<PathBuf>, known: &[String]) -> String {
    let Some(path) = in_file else {
        return String::new();
    };
    if known.is_empty() {
        format!(" in {} (it lists none)", path.display())
    } else {
        format!(" in {} (it lists {})", path.display(), known.join(", "))
    }
}
