//! Opening the agent's side of a Paddock session: the agent's own session loaded when it has
//! one and can load, else a new one; then the mode the user chose for it in `agents.json`.

use std::path::Path;
use std::sync::Arc;

use paddock_acp::peer::{Peer, RpcError};
use serde_json::{Value, json};

/// How the agent's session was found.
pub(super) enum Opened {
    New,
    Loaded,
    CannotLoad,
    LoadFailed(String),
}

impl Opened {
    pub(super) fn note(&self) -> Option<String> {
        match self {
            Self::New | Self::Loaded => None,
            Self::CannotLoad => Some(
                "the agent cannot load its earlier session: it starts this prompt without the \
                 conversation (Paddock's transcript keeps it)"
                    .to_owned(),
            ),
            Self::LoadFailed(why) => Some(format!(
                "the agent could not load its earlier session ({why}): it starts this prompt \
                 without the conversation"
            )),
        }
    }
}

/// The agent's session for this Paddock session: the one kept in `kept`, loaded when the
/// agent can load, else a new one (kept for the next prompt); put in `mode` when one is set.
pub(super) async fn open_session(
    peer: &Arc<Peer>,
    cwd: &str,
    loads: bool,
    kept: &Path,
    mode: Option<&str>,
) -> Result<(String, Opened), RpcError> {
    let earlier = std::fs::read_to_string(kept)
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    let mut opened = Opened::New;
    let mut found = None;
    if let Some(id) = earlier {
        if !loads {
            opened = Opened::CannotLoad;
        } else {
            let load = json!({"sessionId": id, "cwd": cwd, "mcpServers": []});
            match peer.request("session/load", load).await {
                Ok(answer) => found = Some((id, answer)),
                Err(e) => opened = Opened::LoadFailed(e.message),
            }
        }
    }
    let (id, answer) = match found {
        Some(found) => {
            opened = Opened::Loaded;
            found
        }
        None => {
            let new = peer
                .request("session/new", json!({"cwd": cwd, "mcpServers": []}))
                .await?;
            let id = new["sessionId"].as_str().unwrap_or_default().to_owned();
            if let Err(e) = std::fs::write(kept, &id) {
                tracing::warn!("the agent's session id was not kept: {e}");
            }
            (id, new)
        }
    };
    if let Some(mode) = mode {
        set_mode(peer, &id, &answer, mode).await?;
    }
    Ok((id, opened))
}

/// Puts the session in `mode` when it is not in it already; a mode the agent does not offer
/// is an error naming those it does (the user's choice is never quietly dropped).
async fn set_mode(peer: &Peer, session: &str, answer: &Value, mode: &str) -> Result<(), RpcError> {
    let modes = &answer["modes"];
    if modes["currentModeId"].as_str() == Some(mode) {
        return Ok(());
    }
    let offered: Vec<&str> = modes["availableModes"]
        .as_array()
        .map(|all| all.iter().filter_map(|m| m["id"].as_str()).collect())
        .unwrap_or_default();
    if !offered.contains(&mode) {
        let offers = if offered.is_empty() {
            "it offers no modes".to_owned()
        } else {
            format!("it offers {}", offered.join(", "))
        };
        return Err(RpcError::internal(format!(
            "your agents file sets its mode to {mode}, which it does not offer ({offers})"
        )));
    }
    peer.request(
        "session/set_mode",
        json!({"sessionId": session, "modeId": mode}),
    )
    .await
    .map(|_| ())
    .map_err(|e| RpcError::internal(format!("it refused the mode {mode}: {}", e.message)))
}
