//! `paddock exec` and `paddock resume`: one prompt through the project's agent, recorded in a
//! session, printed as it streams.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paddock_host::{Project, ProjectRuntime, RunOptions, mcp_options};
use paddock_kernel::session::{SessionStore, SessionWriter};
use paddock_kernel::{Approvals, AskPolicy, EventSink, Fanout};
use paddock_mcp::{McpServers, ServerPath};
use paddock_protocol::{ExitReason, McpServerState, Message, TokenUsage};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::cli::RunArgs;
use crate::exit::{CliError, Code};
use crate::keys::CliKeys;
use crate::output::{self, Gatekeeper, Printer};

/// A new session, or the one to continue.
pub enum Target<'a> {
    New,
    Resume(&'a str),
}

/// Runs `prompt` and returns the exit code for how the run ended.
pub async fn run(
    args: &RunArgs,
    target: Target<'_>,
    prompt: &str,
    cancel: CancellationToken,
) -> Result<Code, CliError> {
    let prompt = read_prompt(prompt)?;
    let project = Project::open(&project_dir(args.model.project.as_deref())?)?;
    let store = SessionStore::open_default()?;
    let mut options = args.options();
    let resumed = match target {
        Target::New => None,
        Target::Resume(id) => {
            let (session, writer) = store.resume(&project.root, id)?;
            for w in &session.warnings {
                output::err(&format!("paddock: warning: session {id}: {w}"));
            }
            // The session's model carries on unless a flag or the settings name another.
            if options.model.is_none() && project.settings.model.is_none() {
                options.model = Some(session.header.model.clone());
            }
            if options.provider.is_none() && project.settings.provider.is_none() {
                options.provider = session
                    .header
                    .provider
                    .as_deref()
                    .and_then(|p| p.parse().ok());
            }
            Some((session.messages, writer))
        }
    };

    let mcp = start_mcp(&project).await;
    let prepared = Prepared {
        project,
        options,
        store,
        resumed,
        prompt,
    };
    let result = run_agent(args, prepared, &mcp, cancel).await;
    mcp.shutdown().await;
    result
}

/// Everything a run needs that is known before the model and tools are set up.
struct Prepared {
    project: Project,
    options: RunOptions,
    store: SessionStore,
    /// The resumed session's history and writer; `None` starts a new session.
    resumed: Option<(Vec<Message>, SessionWriter)>,
    prompt: String,
}

async fn run_agent(
    args: &RunArgs,
    prepared: Prepared,
    mcp: &McpServers,
    cancel: CancellationToken,
) -> Result<Code, CliError> {
    let Prepared {
        project,
        options,
        store,
        resumed,
        prompt,
    } = prepared;
    let runtime = ProjectRuntime::new(project, &options, Some(&CliKeys), mcp.runtime_tools())?;
    let root = runtime.project().root.clone();
    let is_resume = resumed.is_some();
    let (history, writer) = match resumed {
        Some(r) => r,
        None => {
            let (_, writer) = store.create(
                &root,
                Some(runtime.provider().as_str()),
                runtime.model_name(),
                &prompt,
            )?;
            (Vec::new(), writer)
        }
    };
    let writer = Arc::new(writer);
    let session_id = writer.id().to_owned();
    if args.json {
        output::json_line(&output::session_line(
            &session_id,
            &root.to_string_lossy(),
            runtime.model_name(),
            is_resume,
        ));
    }

    let policy = if args.ask_allows {
        AskPolicy::HeadlessAllow
    } else {
        AskPolicy::HeadlessDeny
    };
    let agent = runtime
        .agent()
        .with_history(history)
        .with_approvals(Arc::new(Approvals::new(policy)))
        .with_cancel(cancel);
    let printer = Printer::new(
        args.json,
        Gatekeeper {
            tools: agent.resolved_tools(),
            registry: runtime.registry().clone(),
            policy,
        },
    );
    let sinks: Vec<Arc<dyn EventSink>> = vec![writer.clone(), printer.clone()];
    let mut agent = agent
        .with_events(Arc::new(Fanout(sinks)))
        .with_checkpoint(writer.clone());
    let result = agent.run(&prompt).await;
    printer.finish_text();
    writer.flush();
    if let Some(e) = writer.error() {
        output::err(&format!(
            "paddock: warning: the session could not be fully saved to {}: {e}",
            writer.path().display()
        ));
    }

    let denied = printer.denied();
    let code = Code::for_run(result.exit, !denied.is_empty());
    if args.json {
        output::json_line(&json!({
            "type": "exit",
            "code": code.as_i32(),
            "reason": if code == Code::Denied { "denied" } else { result.exit.as_str() },
            "session": session_id,
            "turns": result.turns,
            "usage": result.usage,
            "denied": denied,
        }));
    } else if let Some(why) = explain(code, result.exit, &denied, &result.usage, result.turns) {
        output::err(&format!("paddock: {why}"));
    }
    output::err(&format!(
        "paddock: session {session_id} (continue with: paddock resume {session_id} PROMPT)"
    ));
    Ok(code)
}

/// Why a run did not succeed, with what to do about it.
fn explain(
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
        _ => format!("stopped: {}", exit.as_str()),
    })
}

/// The project's MCP servers, started; the ones that failed are reported and left out.
async fn start_mcp(project: &Project) -> McpServers {
    // Run from a terminal: the user's PATH as is; provider keys stay out of servers.
    let servers = McpServers::new(mcp_options(&project.root, ServerPath::Inherit));
    if project.settings.mcp_servers.is_empty() {
        return servers;
    }
    servers.start(&project.settings.mcp_servers).await;
    for status in servers.statuses() {
        match &status.state {
            McpServerState::Failed { error } => output::err(&format!(
                "paddock: warning: MCP server '{}' did not start: {error}",
                status.name
            )),
            McpServerState::Running { .. } => {
                for w in &status.warnings {
                    output::err(&format!(
                        "paddock: warning: MCP server '{}': {w}",
                        status.name
                    ));
                }
            }
            _ => {}
        }
    }
    servers
}

/// `--project`, or the current directory.
pub fn project_dir(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    let dir = match flag {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| CliError::failure(format!("cannot read the current directory: {e}")))?,
    };
    if !dir.is_dir() {
        return Err(CliError::usage(format!(
            "the project folder {} does not exist or is not a folder",
            dir.display()
        )));
    }
    Ok(dir)
}

/// The prompt argument; `-` reads standard input.
fn read_prompt(arg: &str) -> Result<String, CliError> {
    let prompt = if arg == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::usage(format!("cannot read the prompt from stdin: {e}")))?;
        text
    } else {
        arg.to_owned()
    };
    if prompt.trim().is_empty() {
        return Err(CliError::usage("the prompt is empty"));
    }
    Ok(prompt)
}
