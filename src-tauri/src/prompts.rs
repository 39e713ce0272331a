//! Saved prompts for the composer's `/` menu: the host's list, a prompt filled in, and the
//! confirmation of a project's prompt the user read (which alone gives its text to send).

use paddock_host::HostError;
use paddock_host::prompts::SavedPrompts;
use paddock_protocol::{ExpandedPrompt, SavedPrompt};

use crate::error::AppResult;
use crate::error::blocking;
use crate::projects::canonical;
use crate::state::Desktop;

/// The project's and the user's saved prompts.
pub async fn list(state: &Desktop, project: &str) -> AppResult<Vec<SavedPrompt>> {
    let root = canonical(project)?;
    let store = state.trust().clone();
    blocking(move || Ok(SavedPrompts::new(&store, &root).list())).await
}

/// `/name args` filled in; with `digest`, the user's confirmation of what they were shown.
pub async fn expand(
    state: &Desktop,
    project: &str,
    name: String,
    args: String,
    digest: Option<String>,
) -> AppResult<ExpandedPrompt> {
    let root = canonical(project)?;
    let store = state.trust().clone();
    blocking(move || {
        let prompts = SavedPrompts::new(&store, &root);
        let expanded = match digest {
            Some(digest) => prompts.confirm(&name, &args, &digest),
            None => prompts.expand(&name, &args),
        };
        Ok(expanded.map_err(HostError::from)?)
    })
    .await
}
