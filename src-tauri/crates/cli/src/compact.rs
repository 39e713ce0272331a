//! `paddock compact`: make room in a session between prompts, or undo the latest compaction.

use std::sync::Arc;

use paddock_host::session::SessionStore;
use paddock_host::trust::{TrustPolicy, TrustStore};
use paddock_host::{LiveProject, RunOptions, RunService, ServerPath, canonical_dir};

use crate::cli::ModelArgs;
use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::keys::CliKeys;
use crate::output;

pub async fn run(
    model: &ModelArgs,
    session: &str,
    undo: bool,
    trust: bool,
) -> Result<Code, CliError> {
    let root = canonical_dir(&project_dir(model.project.as_deref())?)?;
    let service = RunService::new(
        SessionStore::open_default()?,
        Arc::new(CliKeys),
        TrustStore::open_default()?,
    );
    if undo {
        let undone = service.undo_compaction(&root, session)?;
        output::err(&format!(
            "paddock: undid the compaction of {} message(s); the full history is back",
            undone.replaced
        ));
        return Ok(Code::Success);
    }
    let options = RunOptions {
        provider: model.provider,
        model: model.model.clone(),
        base_url: model.base_url.clone(),
        ..RunOptions::default()
    };
    let policy = if trust {
        TrustPolicy::Assume
    } else {
        TrustPolicy::Refuse
    };
    let live = LiveProject::new(root, ServerPath::Inherit);
    let result = service.compact(&live, session, &options, policy).await;
    live.shutdown().await;
    let info = result?;
    output::out(&format!("{}\n", info.summary));
    output::err(&format!(
        "paddock: compacted {} message(s): about {} tokens -> {} (undo with: paddock compact {session} --undo)",
        info.replaced, info.before_tokens, info.after_tokens
    ));
    Ok(Code::Success)
}
