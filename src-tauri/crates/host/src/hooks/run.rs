//! One hook's run: the event as JSON on its stdin (the fields Claude Code's hooks read), its
//! command behind the same wall as bash (`paddock_wall::command`), its time limit, and what
//! its exit code and output mean (`paddock_hooks`), shown as a `Hook` event.

use paddock_hooks::HookPointExt;
use std::path::Path;
use std::time::{Duration, Instant};

use paddock_core::ToolContext;
use paddock_hooks::{Decision, Hook, HookEffect, HookPoint, Invocation};
use paddock_protocol::{AgentEvent, HookOutcome as Shown, HookRun};
use paddock_tools::ToolEnv;
use paddock_wall::command::{EXIT_ABORTED, EXIT_TIMEOUT, WalledCommand, run_walled};
use serde_json::{Map, Value, json};

/// Longest message a `Hook` event carries (the decision's reason, context or warning).
const MAX_SHOWN_CHARS: usize = 2_000;

/// What a hook is told, besides the event's own fields.
pub(super) struct Told<'a> {
    pub session_id: &'a str,
    pub workspace: &'a Path,
    /// The project folder: `$PADDOCK_PROJECT_DIR` (and `$CLAUDE_PROJECT_DIR`, so hooks
    /// written for Claude Code find their scripts).
    pub project: &'a Path,
    pub call_id: Option<&'a str>,
    pub source: super::HookSource,
}

/// What a hook's run may do, decided before it runs.
pub(super) struct Standing {
    /// Its allow may skip an Ask: the user's own hook, running no project file.
    pub may_allow: bool,
    /// A project hook's scripts as checked right before it ran: checked again after, so a
    /// script rewritten while it ran does not count as trusted.
    pub pinned: Option<super::ScriptPins>,
}

/// The JSON on a hook's stdin: `session_id`, `cwd` and `hook_event_name` (Claude Code's name),
/// then the event's `fields` (`tool_name`, `tool_input`, `prompt`...).
pub(super) fn stdin_json(hook: &Hook, told: &Told<'_>, fields: Map<String, Value>) -> Vec<u8> {
    let mut v = Map::new();
    v.insert("session_id".into(), json!(told.session_id));
    v.insert("cwd".into(), json!(told.workspace));
    v.insert("hook_event_name".into(), json!(hook.event().claude_name()));
    v.extend(fields);
    Value::Object(v).to_string().into_bytes()
}

/// A hook that does not run (`why`: its scripts are not as trusted): shown as such, and a
/// failure by its failure mode.
pub(super) fn not_run(hook: &Hook, why: &str, told: &Told<'_>, ctx: &ToolContext) -> HookEffect {
    let outcome = hook.not_run(why);
    ctx.events.emit(AgentEvent::Hook(HookRun {
        point: hook.event(),
        hook: format!("{} · {}", told.source.as_str(), hook.title()),
        call_id: told.call_id.map(str::to_owned),
        outcome: Shown::Failed,
        duration_ms: 0,
        message: Some(format!("not run: {why}")),
    }));
    outcome
}

/// Runs `hook` with `stdin` behind the wall of `env` and says what it decided, as far as
/// `standing` lets it; the run is shown as a `Hook` event under `told.call_id` (or the run).
pub(super) async fn run_hook(
    hook: &Hook,
    env: &ToolEnv,
    stdin: &[u8],
    told: &Told<'_>,
    standing: &Standing,
    ctx: &ToolContext,
) -> HookEffect {
    let started = Instant::now();
    let limit = Duration::from_secs(u64::from(hook.timeout_secs()));
    let line = command_line(hook.invocation());
    let project = told.project.to_string_lossy().into_owned();
    let vars = [
        ("PADDOCK_PROJECT_DIR", project.clone()),
        ("CLAUDE_PROJECT_DIR", project),
    ];
    let command = WalledCommand {
        line: &line,
        stdin: Some(stdin),
        vars: &vars,
    };
    let ran = run_walled(&env.wall(), &command, limit, ctx).await;
    let killed = matches!(ran.exit_code, EXIT_TIMEOUT | EXIT_ABORTED);
    let mut outcome = hook.outcome(&paddock_hooks::HookProcess {
        exit_code: (!killed).then_some(ran.exit_code),
        stdout: ran.stdout.as_bytes(),
        stderr: stderr_with_start(&ran.stderr, ran.not_started.as_deref()).as_bytes(),
        timed_out: ran.timed_out(),
        output_truncated: ran.stdout_cut,
    });
    // Rewritten while it ran: what it said is not the trusted script's.
    if let Some(before) = &standing.pinned {
        let after = super::ScriptPins::scan(hook, told.project);
        if let Some(why) = before.refusal(&after) {
            outcome = hook.not_run(&format!("its script changed while it ran: {why}"));
        }
    }
    let mut shown_message = message(&outcome);
    if !standing.may_allow && outcome.drop_allow() {
        // Only the user's own hooks may skip an Ask (the kernel keeps every other gate).
        let note = "its allow does not skip an Ask: only your own hooks (hooks.json), running \
                    no project file, can";
        shown_message = Some(match shown_message {
            Some(m) => format!("{m}\n{note}"),
            None => note.to_owned(),
        });
    }
    ctx.events.emit(AgentEvent::Hook(HookRun {
        point: hook.event(),
        hook: format!("{} · {}", told.source.as_str(), hook.title()),
        call_id: told.call_id.map(str::to_owned),
        outcome: shown(hook.event(), &outcome),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        message: shown_message,
    }));
    outcome
}

/// The command line the wall runs: the hook's own (a shell command), or its program and
/// arguments each quoted, so nothing in them is read as shell syntax.
fn command_line(invocation: Invocation<'_>) -> String {
    match invocation {
        Invocation::Shell(command) => command.to_owned(),
        Invocation::Program { program, args } => std::iter::once(program)
            .chain(args.iter().map(String::as_str))
            .map(quote)
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// `word` as one shell word: in single quotes, each `'` closed, escaped and reopened.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A command the wall never started says why: that is its stderr for the hook's outcome (a
/// failure naming the cause), before whatever the command printed.
fn stderr_with_start(stderr: &str, not_started: Option<&str>) -> String {
    match not_started {
        Some(why) if stderr.is_empty() => why.to_owned(),
        Some(why) => format!("{why}\n{stderr}"),
        None => stderr.to_owned(),
    }
}

/// How a hook's outcome reads in the transcript.
fn shown(event: HookPoint, o: &HookEffect) -> Shown {
    match &o.decision {
        Decision::Deny { .. } => Shown::Deny,
        Decision::Block { .. } => match event {
            HookPoint::Stop | HookPoint::SubagentStop => Shown::GoOn,
            HookPoint::PostToolUse => Shown::Context,
            _ => Shown::Deny,
        },
        Decision::Ask { .. } => Shown::Ask,
        Decision::Allow { .. } if o.rewritten_input.is_none() => Shown::Allow,
        _ if o.rewritten_input.is_some() => Shown::Rewrote,
        _ if o.warning.is_some() => Shown::Failed,
        _ if o.added_context.is_some() => Shown::Context,
        _ => Shown::Continue,
    }
}

/// What the transcript says of it: the reason, the context, the warning, the message.
fn message(o: &HookEffect) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(o.decision.reason().map(str::to_owned));
    if let Some(input) = &o.rewritten_input {
        parts.push(format!("input: {input}"));
    }
    if !o.suppress_output {
        parts.extend(o.added_context.clone());
    }
    parts.extend(o.system_message.clone());
    parts.extend(o.warning.clone());
    parts.extend(
        o.stop
            .as_ref()
            .map(|s| format!("ended the run: {}", s.reason)),
    );
    let text = parts.join("\n");
    if text.is_empty() {
        return None;
    }
    Some(match text.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_and_its_arguments_stay_words() {
        let args = vec![
            "it's".to_owned(),
            "$(rm -rf ~)".to_owned(),
            "a b".to_owned(),
        ];
        let line = command_line(Invocation::Program {
            program: "./fmt",
            args: &args,
        });
        assert_eq!(line, r"'./fmt' 'it'\''s' '$(rm -rf ~)' 'a b'");
        let out = std::process::Command::new("bash")
            .args(["-c", &format!("printf '%s|' {}", &line[8..])])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "it's|$(rm -rf ~)|a b|"
        );
    }

    #[test]
    fn only_a_wall_that_never_started_the_hook_puts_its_reason_first() {
        assert_eq!(
            stderr_with_start("", Some("bash could not start: no folder")),
            "bash could not start: no folder"
        );
        assert_eq!(
            stderr_with_start("bash: nope: command not found", None),
            "bash: nope: command not found"
        );
        assert_eq!(stderr_with_start("x", Some("why")), "why\nx");
    }
}
