//! `paddock exec` and `paddock resume`: one prompt through the project's agent, recorded in a
//! session, printed as it streams.

use std::path::Path;
use std::sync::Arc;

use paddock_host::trust::{TrustPolicy, TrustStore};
use paddock_host::{
    Approver, AskPolicy, LiveProject, RunRequest, RunService, ServerPath, SessionTarget,
    canonical_dir, session::SessionStore,
};
use paddock_protocol::{ExitReason, ProjectSettings, TokenUsage};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::cli::RunArgs;
use crate::exit::{CliError, Code};
use crate::files::{self, project_dir};
use crate::keys::CliKeys;
use crate::output::{self, Printer};

/// A new session, or the one to continue.
pub enum Target<'a> {
    New,
    /// A new session in a new worktree (an empty name: derived from the prompt); `true`: a
    /// plain copy of a folder outside git.
    NewIn(&'a str, bool),
    Resume(&'a str),
    /// The project's most recent session.
    Last,
}

/// Runs `prompt` and returns the exit code for how the run ended.
pub async fn run(
    args: &RunArgs,
    target: Target<'_>,
    prompt: &str,
    cancel: CancellationToken,
) -> Result<Code, CliError> {
    let prompt = read_prompt(prompt)?;
    // The files named by flags are checked before anything is started or sent.
    let output_schema = match &args.output_schema {
        Some(path) => Some(read_schema(path)?),
        None => None,
    };
    if let Some(path) = &args.output_last_message {
        files::check_output(path)
            .map_err(|e| CliError::usage(format!("--output-last-message: {}", e.message())))?;
    }
    let root = canonical_dir(&project_dir(args.model.project.as_deref())?)?;
    // `/name args`: the saved prompt, filled in; a project's prompt only once confirmed.
    let prompt = crate::prompts::expand(&TrustStore::open_default()?, &root, prompt)?;
    let service = RunService::new(
        SessionStore::open_default()?,
        Arc::new(CliKeys),
        TrustStore::open_default()?,
    );
    // Decided before anything is started or sent: untrusted settings end the run here.
    let resolved = service.resolve(&root, &args.options(), trust_policy(args))?;
    // Run from a terminal: the user's PATH as is; provider keys stay out of servers.
    let live = LiveProject::new(root, ServerPath::Inherit).with_keys(Arc::new(CliKeys));
    let starting = say_while_mcp_starts(&live, resolved.settings());
    let request = Prompt {
        text: prompt,
        output_schema,
        resolved: &resolved,
    };
    let result = run_prompt(args, &service, &live, target, request, cancel).await;
    if let Some(task) = starting {
        task.abort();
    }
    live.shutdown().await;
    result
}

/// How long MCP servers may take to start before the terminal is told why nothing happens.
const MCP_QUIET: std::time::Duration = std::time::Duration::from_secs(1);

/// A run waits for the MCP servers to start (npx may be downloading one): when that takes
/// more than a moment, says so instead of sitting silent.
fn say_while_mcp_starts(
    live: &LiveProject,
    settings: &ProjectSettings,
) -> Option<tokio::task::JoinHandle<()>> {
    let names: Vec<&str> = settings
        .mcp_servers
        .iter()
        .filter(|(_, c)| !c.disabled)
        .map(|(name, _)| name.as_str())
        .collect();
    if names.is_empty() {
        return None;
    }
    let line = format!(
        "paddock: starting MCP servers ({}); the run waits for them, up to {} s",
        names.join(", "),
        paddock_host::MCP_START_TIMEOUT.as_secs()
    );
    let mcp = live.mcp(settings);
    Some(tokio::spawn(async move {
        tokio::time::sleep(MCP_QUIET).await;
        if !mcp.is_ready() {
            output::err(&line);
        }
    }))
}

/// One prompt to run, with the trusted configuration `run` read before anything started.
pub(crate) struct Prompt<'a> {
    pub text: String,
    pub output_schema: Option<serde_json::Value>,
    pub resolved: &'a paddock_host::Resolved,
}

/// The request Paddock's agent and an external one both take from the flags: the session
/// (a new worktree made and set up first), the prompt's `@` files and `--image`s, the
/// headless approver.
pub(crate) async fn request_for(
    args: &RunArgs,
    service: &RunService,
    root: &Path,
    target: Target<'_>,
    prompt: Prompt<'_>,
    events: Arc<dyn paddock_host::EventSink>,
    cancel: CancellationToken,
) -> Result<RunRequest, CliError> {
    let Prompt {
        text: prompt,
        output_schema,
        resolved,
    } = prompt;
    let mut worktree = None;
    let target = match target {
        Target::New => SessionTarget::New,
        Target::NewIn(name, plain_copy) => {
            let new = paddock_host::NewWorktree {
                name: Some(name.to_owned()).filter(|n| !n.is_empty()),
                hint: Some(prompt.clone()),
                plain_copy,
            };
            let made = service.create_worktree(root, new, trust_policy(args))?;
            crate::worktree::say_created(&made, args.json);
            let effective = resolved.clone().with_options(&args.options())?;
            crate::worktree::setup(service, root, &made.worktree.name, &effective, args.json)
                .await?;
            worktree = Some(made.worktree.name);
            SessionTarget::New
        }
        Target::Resume(id) => SessionTarget::Resume(id.to_owned()),
        Target::Last => {
            let last = service.store().list(root)?.into_iter().next();
            match last {
                Some(s) => SessionTarget::Resume(s.id),
                None => {
                    return Err(CliError::usage(format!(
                        "there is no session to continue in {}; start one with paddock exec",
                        root.display()
                    )));
                }
            }
        }
    };
    let policy = if args.ask_allows {
        AskPolicy::HeadlessAllow
    } else {
        AskPolicy::HeadlessDeny
    };
    let mut attachments = crate::mentions::attachments_in(&prompt);
    for path in &args.image {
        attachments.push(paddock_host::attach::image_file(path)?);
    }
    let request = RunRequest {
        target,
        attachments,
        prompt,
        options: args.options(),
        approver: Approver::Headless(policy),
        events,
        cancel: Some(cancel),
        trust: trust_policy(args),
        output_schema,
        worktree,
    };
    Ok(request)
}

async fn run_prompt(
    args: &RunArgs,
    service: &RunService,
    live: &LiveProject,
    target: Target<'_>,
    prompt: Prompt<'_>,
    cancel: CancellationToken,
) -> Result<Code, CliError> {
    let printer = Printer::new(args.json);
    let request = request_for(
        args,
        service,
        live.root(),
        target,
        prompt,
        printer.clone(),
        cancel,
    )
    .await?;
    let prepared = service.prepare(live, request).await?;
    let session_id = prepared.session_id.clone();
    for w in &prepared.warnings {
        output::err(&format!("paddock: warning: session {session_id}: {w}"));
    }
    if args.json {
        output::json_line(&output::session_line(
            &session_id,
            &live.root().to_string_lossy(),
            &prepared.model,
            prepared.resumed,
        ));
    }
    let resumed = prepared.resumed;
    let report = prepared.run().await;
    let result = report.result;
    printer.finish_text();
    if let Some(e) = &report.save_error {
        output::err(&format!(
            "paddock: warning: the session could not be fully saved to {}: {e}",
            report.session_path.display()
        ));
    }

    if let Some(path) = &args.output_last_message {
        // Under --output-schema, the JSON that matched it, not the words around it.
        let last = match &result.structured {
            Some(value) => format!("{value:#}\n"),
            None => result.output.clone(),
        };
        // Never through a link a repository committed at that name (`out.txt -> ~/.bashrc`).
        if let Err(e) = files::write_output(path, &last, files::DEFAULT_MODE) {
            output::err(&format!(
                "paddock: warning: the answer was not written: {}",
                e.message()
            ));
        }
    }
    let denied = printer.denied();
    let mut code = Code::for_run(result.exit, !denied.is_empty());
    if args.output_schema.is_some() && code == Code::Success && result.structured.is_none() {
        code = Code::Schema;
    }
    if args.json {
        // The whole answer once more, for scripts that do not want to join deltas.
        output::json_line(&json!({
            "type": "message",
            "text": result.output,
            "structured": result.structured,
        }));
        output::json_line(&json!({
            "type": "exit",
            "code": code.as_i32(),
            "reason": if code == Code::Denied { "denied" } else { result.exit.as_str() },
            "session": session_id,
            "turns": result.turns,
            "usage": result.usage,
            "cost": result.cost,
            "denied": denied,
        }));
    } else if let Some(why) = why_not_done(code, result.exit, &denied, &result.usage, result.turns)
        .map(|why| match (&result.output_error, code) {
            (Some(e), Code::Schema) => format!("{why}: {e}"),
            _ => why,
        })
    {
        output::err(&format!("paddock: {why}"));
    }
    if !args.json && !result.usage.is_zero() {
        output::err(&format!(
            "paddock: {} tokens in, {} out; cost {}",
            result.usage.input_tokens,
            result.usage.output_tokens,
            result.cost.describe()
        ));
    }
    if nothing_ran(resumed, result.exit, result.turns) {
        // Only the prompt is in the session: nothing to continue from.
        output::err(&format!(
            "paddock: nothing ran (the first model call failed); session {session_id} holds \
             only the prompt"
        ));
    } else {
        output::err(&format!(
            "paddock: session {session_id} (continue with: paddock resume {session_id} PROMPT)"
        ));
    }
    Ok(code)
}

/// A new session whose first model call failed: no answer, no tool ran.
fn nothing_ran(resumed: bool, exit: ExitReason, turns: u32) -> bool {
    !resumed && exit == ExitReason::Error && turns <= 1
}

/// Why a run did not succeed, with what to do about it.
pub(crate) fn why_not_done(
    code: Code,
    exit: ExitReason,
    denied: &[String],
    usage: &TokenUsage,
    turns: u32,
) -> Option<String> {
    Some(match code {
        Code::Success => return None,
        Code::Denied => {
            let mut names = denied.to_vec();
            names.dedup();
            format!(
                "denied: the grants refused {} call(s) to {}; grant with --allow NAME (or \
                 --ask-allows for Ask tools)",
                denied.len(),
                names.join(", ")
            )
        }
        Code::BudgetExceeded => format!(
            "stopped: token budget exceeded ({} tokens used); raise it with --budget",
            usage.total()
        ),
        Code::LoopDetected => "stopped: the model kept repeating itself".to_owned(),
        Code::MaxTurns => {
            format!(
                "stopped: max turns reached after {turns} model call(s); raise it with --max-turns"
            )
        }
        Code::Aborted => "aborted; the session is saved and can be resumed".to_owned(),
        Code::Provider => "stopped: the model provider failed (see the error above)".to_owned(),
        Code::Schema => "the answer did not match --output-schema, even after one retry".to_owned(),
        _ => format!("stopped: {}", exit.as_str()),
    })
}

/// The JSON schema in `path`, checked to be one.
fn read_schema(path: &Path) -> Result<serde_json::Value, CliError> {
    // A regular file of at most 1 MiB: not /dev/zero, not a FIFO that never answers.
    let text = files::read_input("the output schema", path, files::MAX_SCHEMA_BYTES)?;
    let schema: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        CliError::usage(format!(
            "the output schema {} is not JSON: {e}",
            path.display()
        ))
    })?;
    if !schema.is_object() {
        return Err(CliError::usage(format!(
            "the output schema {} is not a JSON schema object",
            path.display()
        )));
    }
    paddock_host::check_schema(&schema)
        .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
    Ok(schema)
}

/// `--trust` vouches for the folder for one run; otherwise untrusted settings are refused.
pub(crate) fn trust_policy(args: &RunArgs) -> TrustPolicy {
    if args.trust {
        TrustPolicy::Assume
    } else {
        TrustPolicy::Refuse
    }
}

/// The prompt argument; `-` reads standard input.
pub(crate) fn read_prompt(arg: &str) -> Result<String, CliError> {
    let prompt = if arg == "-" {
        files::read_stdin("the prompt", files::MAX_STDIN_PROMPT_BYTES)?
    } else {
        arg.to_owned()
    };
    if prompt.trim().is_empty() {
        return Err(CliError::usage("the prompt is empty"));
    }
    Ok(prompt)
}
