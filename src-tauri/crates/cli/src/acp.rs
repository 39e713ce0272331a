//! `paddock acp`: the Agent Client Protocol on stdin/stdout. stdout carries only protocol
//! messages; warnings and logs go to stderr (`PADDOCK_LOG=debug` shows the requests).

use std::sync::Arc;

use paddock_host::RunService;
use paddock_host::session::SessionStore;
use paddock_host::trust::TrustStore;

use crate::exit::{CliError, Code};
use crate::keys::CliKeys;

/// Serves until the client closes stdin.
pub async fn run() -> Result<Code, CliError> {
    let service = RunService::new(
        SessionStore::open_default()?,
        Arc::new(CliKeys),
        TrustStore::open_default()?,
    );
    paddock_acp_server::serve(
        Arc::new(service),
        Arc::new(CliKeys),
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await;
    Ok(Code::Success)
}
