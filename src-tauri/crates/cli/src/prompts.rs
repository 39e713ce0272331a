//! Saved prompts from the command line: `paddock exec "/name args"` sends one filled in,
//! `paddock prompts list` shows them, `paddock prompts accept NAME` confirms a project's
//! prompt after showing it (a cloned repository wrote it: it is never sent unread).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use paddock_host::canonical_dir;
use paddock_host::prompts::{PromptError, SavedPrompts, parse_invocation};
use paddock_host::trust::TrustStore;
use paddock_protocol::{ExpandedPrompt, PromptSource, PromptStatus};

use crate::cli::PromptsAction;
use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::output;

/// `prompt` as it is sent: a `/name args` invocation filled in from the saved prompt, any
/// other text as is. A project prompt not yet confirmed is printed (stderr) and refused.
pub fn expand(store: &TrustStore, root: &Path, prompt: String) -> Result<String, CliError> {
    let Some((name, args)) = parse_invocation(&prompt) else {
        return Ok(prompt);
    };
    let expanded = SavedPrompts::new(store, root)
        .expand(name, args)
        .map_err(prompt_error)?;
    if expanded.needs_confirmation {
        show(&expanded, true);
        return Err(CliError::usage(format!(
            "/{name} is the project's saved prompt {}, not sent before you have read it (above); \
             to send it, run `paddock prompts accept {name} --digest {} --project {}`, then \
             run this again. Nothing was sent.",
            expanded.path,
            expanded.digest,
            root.display()
        )));
    }
    Ok(expanded.text)
}

pub fn run(project: Option<&Path>, action: &PromptsAction) -> Result<Code, CliError> {
    let store = TrustStore::open_default()?;
    let root = canonical_dir(&project_dir(project)?)?;
    let prompts = SavedPrompts::new(&store, &root);
    match action {
        PromptsAction::List => {
            let list = prompts.list();
            if list.is_empty() {
                output::out(
                    "No saved prompts (Markdown files in .paddock/prompts/ or in your config folder's prompts/).\n",
                );
            }
            for p in list {
                let source = match p.source {
                    PromptSource::Project => "project",
                    PromptSource::User => "user",
                };
                let status = match p.status {
                    PromptStatus::Ready => "ready",
                    PromptStatus::Unconfirmed => "not yet confirmed",
                    PromptStatus::Changed => "changed since confirmed",
                    PromptStatus::Broken => "broken",
                };
                let hint = p.argument_hint.map(|h| format!(" {h}")).unwrap_or_default();
                output::out(&format!(
                    "/{}{hint}\t{source}\t{status}\t{}\n",
                    p.name, p.description
                ));
                if let Some(e) = p.error {
                    output::out(&format!("    {e}\n"));
                }
            }
            Ok(Code::Success)
        }
        PromptsAction::Accept { name, digest } => {
            let name = name.trim_start_matches('/');
            let shown = prompts.expand(name, "").map_err(prompt_error)?;
            if shown.source != PromptSource::Project {
                output::out(&format!(
                    "/{name} is your own prompt; it needs no confirmation.\n"
                ));
                return Ok(Code::Success);
            }
            let digest = match digest {
                Some(d) => d.clone(),
                None => {
                    show(&shown, false);
                    if !ask(name, &shown.digest, &root)? {
                        output::out("Not confirmed; nothing changed.\n");
                        return Ok(Code::Success);
                    }
                    shown.digest.clone()
                }
            };
            prompts.confirm(name, "", &digest).map_err(prompt_error)?;
            output::out(&format!(
                "Confirmed /{name}: it is sent as it stands now, and shown again if it changes.\n"
            ));
            Ok(Code::Success)
        }
    }
}

/// The prompt file as it is, between rules, on stderr (or stdout).
fn show(p: &ExpandedPrompt, to_stderr: bool) {
    let text = format!(
        "The project's saved prompt /{} ({}) says:\n----\n{}\n----",
        p.name,
        p.path,
        p.file_text.trim_end()
    );
    if to_stderr {
        output::err(&text);
    } else {
        output::out(&format!("{text}\n"));
    }
}

/// Asks on the terminal; without one, says how to answer from a script.
fn ask(name: &str, digest: &str, root: &Path) -> Result<bool, CliError> {
    if !std::io::stdin().is_terminal() {
        return Err(CliError::usage(format!(
            "not a terminal, so nobody can answer: read the prompt above, then run \
             `paddock prompts accept {name} --digest {digest} --project {}`",
            root.display()
        )));
    }
    output::out(&format!(
        "Send /{name} as it stands when you use it? [y/N] "
    ));
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::failure(format!("cannot read the answer: {e}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

/// A prompt that cannot be sent is the caller's to fix (exit 2); a damaged trust record is not.
fn prompt_error(e: PromptError) -> CliError {
    match e {
        PromptError::Trust(e) => e.into(),
        e => CliError::usage(e.to_string()),
    }
}
