//! `paddock exec --agent NAME` and `paddock resume --agent NAME`: the prompt goes to an
//! external ACP agent running behind Paddock's wall, recorded as a Paddock session.

use std::sync::Arc;

use paddock_host::session::SessionStore;
use paddock_host::trust::TrustStore;
use paddock_host::{LiveProject, RunService, ServerPath, canonical_dir};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::cli::RunArgs;
use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::keys::CliKeys;
use crate::output::{self, Printer};
use crate::run::Target;

pub async fn run(
    args: &RunArgs,
    agent: &str,
    target: Target<'_>,
    prompt: &str,
    cancel: CancellationToken,
) -> Result<Code, CliError> {
    let prompt = crate::run::read_prompt(prompt)?;
    // What only Paddock's own agent does is refused, not silently dropped.
    let unsupported = [
        (args.output_schema.is_some(), "--output-schema"),
        (args.output_last_message.is_some(), "--output-last-message"),
        (args.max_turns.is_some(), "--max-turns"),
        (args.budget.is_some(), "--budget"),
    ];
    if let Some((_, flag)) = unsupported.iter().find(|(given, _)| *given) {
        return Err(CliError::usage(format!(
            "{flag} is for Paddock's own agent; an external agent (--agent) does not take it"
        )));
    }
    let root = canonical_dir(&project_dir(args.model.project.as_deref())?)?;
    let service = RunService::new(
        SessionStore::open_default()?,
        Arc::new(CliKeys),
        TrustStore::open_default()?,
    );
    let live = LiveProject::new(root.clone(), ServerPath::Inherit).with_keys(Arc::new(CliKeys));
    // Decided before anything is started or sent, as for Paddock's agent.
    let resolved = service.resolve(&root, &args.options(), crate::run::trust_policy(args))?;
    let printer = Printer::new(args.json);
    let prompt = crate::run::Prompt {
        text: prompt,
        output_schema: None,
        resolved: &resolved,
    };
    let request = crate::run::request_for(
        args,
        &service,
        &root,
        target,
        prompt,
        printer.clone(),
        cancel,
    )
    .await?;
    let report = service.run_external(&live, agent, request).await?;
    printer.finish_text();
    let result = report.result;
    let denied = printer.denied();
    let code = Code::for_run(result.exit, !denied.is_empty());
    let session_id = report.session_id;
    if args.json {
        output::json_line(&json!({"type": "message", "text": result.output}));
        output::json_line(&json!({
            "type": "exit",
            "code": code.as_i32(),
            "reason": if code == Code::Denied { "denied" } else { result.exit.as_str() },
            "session": session_id,
            "turns": result.turns,
            "denied": denied,
        }));
    } else if let Some(why) =
        crate::run::why_not_done(code, result.exit, &denied, &result.usage, result.turns)
    {
        output::err(&format!("paddock: {why}"));
    }
    output::err(&format!(
        "paddock: session {session_id} with {agent} (continue with: paddock resume --agent \
         {agent} {session_id} PROMPT)"
    ));
    Ok(code)
}
