//! `paddock`: a project's fenced-in agent, headless. Runs prompts (`exec`, `resume`), manages
//! stored sessions and checks the setup (`doctor`). Exit codes are listed in `cli.rs`.

mod acp;
mod agents;
mod cli;
mod compact;
mod doctor;
mod exit;
mod external;
mod files;
mod hooks;
mod keys;
mod mentions;
mod output;
mod prompts;
mod rewind;
mod rules;
mod run;
mod sessions;
mod terminal;
mod trust;
mod worktree;

use clap::{CommandFactory, Parser};
use tokio_util::sync::CancellationToken;

use crate::cli::{Cli, Command};
use crate::exit::{CliError, Code};
use crate::run::Target;

fn main() {
    // `paddock` is its own sandbox helper: this process then only builds bash's wall and
    // becomes the command (single-threaded, before anything else starts).
    if let Some(code) = paddock_host::run_sandbox_helper_if_asked() {
        std::process::exit(code);
    }
    paddock_host::use_this_program_as_sandbox_helper();
    paddock_host::sweep_walls_left_behind();
    // One line, no backtrace: a panic is a bug to report, not a screen of frames.
    // It also goes to the log (a panic inside a run is caught there and recorded in the
    // session; this line is what the log keeps of where it happened).
    std::panic::set_hook(Box::new(|info| {
        tracing::error!("internal error (a bug): {info}");
        output::err(&format!("paddock: error: internal error (a bug): {info}"));
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors; clap picks the stream and the code.
            let code = e.exit_code();
            if e.use_stderr() {
                // An error quotes the arguments, which a script may have taken from a
                // model's text: parsed again without styles, so the text is as given
                // (clap's Display drops ESC sequences unseen), then made visible.
                let plain = Cli::command()
                    .styles(clap::builder::Styles::plain())
                    .try_get_matches()
                    .err()
                    .unwrap_or(e);
                output::err(plain.render().ansi().to_string().trim_end());
            } else {
                let _ = e.print();
            }
            std::process::exit(code);
        }
    };
    init_logging();
    let json = match &cli.command {
        Command::Exec { run, .. } | Command::Resume { run, .. } => run.json,
        _ => false,
    };
    let code = match block_on_bounded(dispatch(cli)) {
        Ok(code) => code,
        Err(e) => Err(CliError::failure(format!("cannot start the runtime: {e}"))),
    };
    let code = code.unwrap_or_else(|e| {
        output::err(&format!("paddock: error: {}", e.message));
        if json {
            // Scripts reading stdout learn why too, and the stream ends with its exit line
            // as a run's does (no session: none was started).
            output::json_line(&serde_json::json!({
                "type": "error",
                "code": e.code.as_i32(),
                "message": e.message,
            }));
            output::json_line(&serde_json::json!({
                "type": "exit",
                "code": e.code.as_i32(),
                "reason": "not_started",
                "session": null,
                "turns": 0,
                "usage": paddock_protocol::TokenUsage::default(),
                "denied": [],
            }));
        }
        e.code
    });
    std::process::exit(code.as_i32());
}

/// How long the process waits, once a command is done, for blocking work still running (a
/// file read stuck on a FIFO, say) before it exits anyway.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Runs `work` on a fresh runtime and returns once it is done, leaving behind (at most after
/// [`SHUTDOWN_GRACE`]) any blocking task that does not finish: the CLI never hangs on exit.
fn block_on_bounded<F: std::future::Future>(work: F) -> std::io::Result<F::Output> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let out = rt.block_on(work);
    rt.shutdown_timeout(SHUTDOWN_GRACE);
    Ok(out)
}

async fn dispatch(cli: Cli) -> Result<Code, CliError> {
    match &cli.command {
        Command::Exec {
            run,
            prompt,
            worktree,
            copy,
        } => {
            let target = match worktree {
                Some(name) => Target::NewIn(name, *copy),
                None => Target::New,
            };
            run_prompt(run, target, prompt).await
        }
        Command::Resume { run, last, args } => {
            let (target, prompt) = match (*last, args.as_slice()) {
                (true, [prompt]) => (Target::Last, prompt),
                (false, [session, prompt]) => (Target::Resume(session), prompt),
                (true, _) => {
                    return Err(CliError::usage(
                        "with --last, give only the prompt: paddock resume --last PROMPT",
                    ));
                }
                (false, _) => {
                    return Err(CliError::usage(
                        "give the session and the prompt: paddock resume SESSION PROMPT \
                         (or paddock resume --last PROMPT)",
                    ));
                }
            };
            run_prompt(run, target, prompt).await
        }
        Command::Compact {
            model,
            session,
            undo,
            trust,
        } => compact::run(model, session, *undo, *trust).await,
        Command::Sessions { project, action } => sessions::run(project.as_deref(), action),
        Command::Doctor { model, probe } => doctor::run(model, *probe).await,
        Command::Rewind {
            project,
            session,
            to,
            files_only,
            conversation_only,
            dry_run,
            undo,
            list,
        } => rewind::run(&rewind::Args {
            project: project.as_deref(),
            session,
            to: to.as_deref(),
            files_only: *files_only,
            conversation_only: *conversation_only,
            dry_run: *dry_run,
            undo: *undo,
            list: *list,
        }),
        Command::Rules { project, action } => rules::run(project.as_deref(), action).await,
        Command::Worktree { project, action } => worktree::run(project.as_deref(), action).await,
        Command::Trust {
            project,
            yes,
            revoke,
            list,
        } => trust::run(project.as_deref(), *yes, *revoke, *list),
        Command::Prompts { project, action } => prompts::run(project.as_deref(), action),
        Command::Hooks { project, action } => hooks::run(project.as_deref(), action),
        Command::Agents { action } => agents::run(action),
        Command::Acp => acp::run().await,
    }
}

/// One prompt, to Paddock's agent or (`--agent`) to an external one.
async fn run_prompt(
    run: &cli::RunArgs,
    target: Target<'_>,
    prompt: &str,
) -> Result<Code, CliError> {
    match &run.agent {
        Some(agent) => external::run(run, agent, target, prompt, cancel_on_signals()).await,
        None => run::run(run, target, prompt, cancel_on_signals()).await,
    }
}

/// Ctrl-C (or SIGTERM) cancels the run, which then stops cleanly with its history paired;
/// a second one quits at once.
fn cancel_on_signals() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    // Registered before the run starts, so an early Ctrl-C is not lost.
    let Some(mut signals) = Signals::new() else {
        return token;
    };
    tokio::spawn(async move {
        if signals.next().await {
            output::err("paddock: stopping (press Ctrl-C again to quit at once)");
            cancel.cancel();
        }
        if signals.next().await {
            std::process::exit(Code::Aborted.as_i32());
        }
    });
    token
}

/// SIGINT and SIGTERM, watched from the start so none is missed between two waits.
#[cfg(unix)]
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> Option<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Some(Self {
            int: signal(SignalKind::interrupt()).ok()?,
            term: signal(SignalKind::terminate()).ok()?,
        })
    }

    /// False when signals can no longer be received.
    async fn next(&mut self) -> bool {
        tokio::select! {
            got = self.int.recv() => got.is_some(),
            got = self.term.recv() => got.is_some(),
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> Option<Self> {
        Some(Self)
    }

    async fn next(&mut self) -> bool {
        tokio::signal::ctrl_c().await.is_ok()
    }
}

/// Warnings from the libraries go to stderr; `PADDOCK_LOG=debug` shows more. MCP servers
/// are reported by the commands themselves (statuses, tool lines), so the MCP client's own
/// notices, such as a server exiting at shutdown, stay quiet unless asked for.
fn init_logging() {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let asked = std::env::var("PADDOCK_LOG")
        .ok()
        .and_then(|l| l.parse::<LevelFilter>().ok());
    let filter = match asked {
        Some(level) => Targets::new().with_default(level),
        None => Targets::new()
            .with_default(LevelFilter::WARN)
            .with_target("paddock_mcp", LevelFilter::ERROR),
    };
    use std::io::IsTerminal;
    // Colours for a person at a terminal only, never into a file or a pipe.
    let colours = std::io::stderr().is_terminal();
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(move || terminal::LogWriter { colours })
        .with_ansi(colours)
        .with_target(false)
        .without_time();
    let _ = tracing_subscriber::registry()
        .with(fmt)
        .with(filter)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stuck_blocking_task_does_not_keep_the_process() {
        let started = std::time::Instant::now();
        let out = block_on_bounded(async {
            // Stands in for a read that never returns; dropping the runtime would wait for it.
            tokio::task::spawn_blocking(|| std::thread::sleep(std::time::Duration::from_secs(30)));
            7
        })
        .unwrap();
        assert_eq!(out, 7);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "waited for the stuck task: {:?}",
            started.elapsed()
        );
    }
}
