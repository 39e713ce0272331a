//! The command line: subcommands, flags and the help text (which documents the exit codes).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use paddock_host::RunOptions;
use paddock_protocol::{ProviderKind, ToolPreset};

const EXIT_CODES_HELP: &str = "\
Exit codes:
    0    success: the agent finished its answer (end_turn)
    1    failure not listed below (I/O, unreadable session file); doctor: something is broken
    2    usage error: bad flags or arguments, no model set, unknown session, or settings
         the folder's trust does not cover yet (see `paddock trust`)
    3    settings error: .paddock/settings.json is broken (the message names line or field)
    4    provider error: the model could not be reached, refused the key or request, or no
         key was found (environment variable or keychain)
    5    token budget exceeded (--budget / maxTokenBudget)
    6    loop detected: the model kept repeating itself
    7    max turns reached (--max-turns / maxTurns)
    8    denied: the run ended, but a tool call was refused by the grants (not granted, on a
         deny list, or an Ask tool in a headless run without --ask-allows)
    9    the final answer did not match --output-schema, even after one retry
  130    aborted (Ctrl-C or SIGTERM); the session stays consistent and can be resumed

API keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, PADDOCK_OPENAI_COMPAT_API_KEY, else the OS keychain.
Sessions live in $PADDOCK_DATA_DIR/sessions (default: the user data directory).";

#[derive(Debug, Parser)]
#[command(
    name = "paddock",
    version,
    about = "Run a project's fenced-in LLM agent headless, and manage its sessions.",
    after_help = EXIT_CODES_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one prompt in a new session and stream the answer.
    #[command(after_help = EXIT_CODES_HELP)]
    Exec {
        #[command(flatten)]
        run: RunArgs,
        /// Work in a worktree of its own: branch `paddock/NAME` (NAME derived from the
        /// prompt when left out) checked out outside the project, the only place the agent
        /// may write; land it with `paddock worktree merge`.
        #[arg(long, value_name = "NAME", num_args = 0..=1, require_equals = true, default_missing_value = "")]
        worktree: Option<String>,
        /// With --worktree in a folder outside git: work in a plain copy of the folder; its
        /// changed files are written back by `paddock worktree merge`.
        #[arg(long, requires = "worktree")]
        copy: bool,
        /// The prompt; `-` reads it from standard input (at most 4 MiB).
        prompt: String,
    },
    /// Continue a stored session with a new prompt: `resume SESSION PROMPT`, or
    /// `resume --last PROMPT` for the project's most recent session.
    #[command(after_help = EXIT_CODES_HELP)]
    Resume {
        #[command(flatten)]
        run: RunArgs,
        /// Continue the project's most recent session.
        #[arg(long)]
        last: bool,
        /// SESSION PROMPT (or just PROMPT with --last); `-` as the prompt reads standard input.
        #[arg(value_name = "SESSION PROMPT", num_args = 1..=2, required = true)]
        args: Vec<String>,
    },
    /// Make room in a session: the model summarizes the start of the conversation (the
    /// user's own messages are kept word for word); `--undo` brings the full history back.
    Compact {
        #[command(flatten)]
        model: ModelArgs,
        /// The session id (see `paddock sessions list`).
        session: String,
        /// Undo the session's latest compaction.
        #[arg(long)]
        undo: bool,
        /// Use the folder's settings even where you have not trusted them.
        #[arg(long)]
        trust: bool,
    },
    /// List, show, search, export or delete this project's sessions.
    Sessions {
        /// The project folder (default: the current directory).
        #[arg(long, global = true, value_name = "DIR")]
        project: Option<PathBuf>,
        #[command(subcommand)]
        action: SessionsAction,
    },
    /// Check the sandbox, keychain, provider, MCP servers and settings.
    Doctor {
        #[command(flatten)]
        model: ModelArgs,
        /// Also test tool calling: one short request offering a harmless tool, reporting
        /// native / text / no calls, streaming, first-token time, the window, and advice.
        #[arg(long)]
        probe: bool,
    },
    /// Put a session's files and/or conversation back to before a prompt or a turn (see
    /// `--list`), showing what changes first with `--dry-run`; `--undo` reverts the last
    /// rewind.
    Rewind {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// The session id (see `paddock sessions list`).
        session: String,
        /// Where to: `N` is before prompt N (1 = the first), `N.T` before turn T of it.
        #[arg(long, value_name = "N[.T]", required_unless_present_any = ["undo", "list"])]
        to: Option<String>,
        /// Put back the files only; the conversation goes on as it is.
        #[arg(long, conflicts_with = "conversation_only")]
        files_only: bool,
        /// Rewind the conversation only; the files stay as they are.
        #[arg(long)]
        conversation_only: bool,
        /// Show what would change (a unified diff) and change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Undo the session's last rewind (itself a rewind, so it can be undone too).
        #[arg(long, conflicts_with_all = ["to", "files_only", "conversation_only", "list"])]
        undo: bool,
        /// List the points the session can be rewound to.
        #[arg(long, conflicts_with_all = ["to", "dry_run"])]
        list: bool,
    },
    /// The project's argument rules, and which rule or grant decides a call (nothing runs).
    Rules {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", global = true)]
        project: Option<PathBuf>,
        #[command(subcommand)]
        action: RulesAction,
    },
    /// Sessions' worktrees: list them, see what one changed, commit, merge, keep the
    /// branch only, or discard.
    Worktree {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", global = true)]
        project: Option<PathBuf>,
        #[command(subcommand)]
        action: WorktreeAction,
    },
    /// Show what the folder's settings would do (start programs, send your key elsewhere,
    /// grant tools) and trust them, after asking on a terminal.
    Trust {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// Trust without asking (scripts; read the list first).
        #[arg(long, conflicts_with_all = ["revoke", "list"])]
        yes: bool,
        /// Forget the folder's trust: its settings are asked about again.
        #[arg(long, conflicts_with = "list")]
        revoke: bool,
        /// List the trusted folders.
        #[arg(long)]
        list: bool,
    },
    /// Saved prompts (`.paddock/prompts/*.md`, and `prompts/` in your config folder), sent
    /// with `paddock exec "/name args"`: list them, or confirm a project's prompt.
    Prompts {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", global = true)]
        project: Option<PathBuf>,
        #[command(subcommand)]
        action: PromptsAction,
    },
    /// Hooks: your own (`hooks.json` in the config folder) and the project's (`hooks` in its
    /// settings; a folder's wait for trust).
    Hooks {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", global = true)]
        project: Option<PathBuf>,
        #[command(subcommand)]
        action: HooksAction,
    },
    /// Your external ACP agents (`agents.json` in the config folder): the ones `exec --agent`
    /// runs behind Paddock's wall.
    Agents {
        #[command(subcommand)]
        action: AgentsAction,
    },
    /// Serve the Agent Client Protocol on stdin/stdout, for an editor (Zed, JetBrains,
    /// Neovim, Emacs) to drive Paddock's agent. Each session works in the folder the editor
    /// names, under its trust, grants and wall; approvals are asked of the editor.
    Acp,
}

#[derive(Debug, Subcommand)]
pub enum AgentsAction {
    /// Each agent: its command line, the hosts it may reach, its key.
    List {
        /// One JSON line per agent.
        #[arg(long)]
        json: bool,
    },
    /// The agents Paddock knows how to run, and whether each is installed.
    Known,
    /// Adds an agent (a known one, or a command line after `--`).
    Add {
        name: String,
        /// Start from a known agent (`claude`, `gemini`, `codex`); the flags below change it.
        #[arg(long, value_name = "ID")]
        known: Option<String>,
        /// A host it may reach besides the project's rules (its API), as in `network.allow`.
        #[arg(long = "host", value_name = "RULE")]
        hosts: Vec<String>,
        /// A variable it gets (`NAME=value`).
        #[arg(long = "env", value_name = "NAME=VALUE")]
        env: Vec<String>,
        /// Give it a provider's key (`anthropic`, `openai`, `openai-compatible`)...
        #[arg(long, value_name = "PROVIDER", conflicts_with = "key_value")]
        key_provider: Option<String>,
        /// ...or a keychain value's (as MCP servers' `${NAME}`s are kept).
        #[arg(long, value_name = "NAME")]
        key_value: Option<String>,
        /// The variable the key goes in (`ANTHROPIC_API_KEY`).
        #[arg(long, value_name = "VAR")]
        key_env: Option<String>,
        /// The ACP mode its sessions are put in.
        #[arg(long)]
        mode: Option<String>,
        /// Replace an agent of that name.
        #[arg(long)]
        replace: bool,
        /// The program and its arguments.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Removes an agent (its sessions stay).
    Remove { name: String },
}

#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Each hook: where it comes from, when it runs, its command, and whether it waits for
    /// the folder's trust.
    List {
        /// One JSON line per hook.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum PromptsAction {
    /// Name, source (project or user), status and description of each.
    List,
    /// Show a project's prompt in full and confirm it (asked on a terminal): it is then sent
    /// as it stands, and shown again once it changes.
    Accept {
        /// The prompt's name (as after the `/`).
        name: String,
        /// Confirm without asking the content with this digest (the one a refused `exec`
        /// printed, after you read the prompt).
        #[arg(long, value_name = "SHA256")]
        digest: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum WorktreeAction {
    /// The project's worktrees: name, branch, state, session.
    List {
        #[arg(long)]
        json: bool,
    },
    /// What a worktree's branch and checkout hold beyond its base.
    Changes {
        /// The worktree's name or its session's id.
        session: String,
        #[arg(long)]
        json: bool,
    },
    /// Commit what the checkout has not committed.
    Commit {
        session: String,
        /// The commit message (default: the session's title).
        #[arg(short, long)]
        message: Option<String>,
        /// Let the project's model write the message from the diff (printed first).
        #[arg(long, conflicts_with = "message")]
        propose: bool,
    },
    /// Commit what is left and merge the branch (a fast-forward when it can, else a merge
    /// commit); conflicts change nothing, are listed, and exit 1.
    Merge {
        session: String,
        /// The branch to merge into (default: the project's current branch).
        #[arg(long, value_name = "BRANCH")]
        into: Option<String>,
        /// The message of a commit of what is left (default: the session's title).
        #[arg(short, long)]
        message: Option<String>,
        #[arg(long)]
        json: bool,
        /// Land it although it changes files folder trust covers (.paddock/, hooks, MCP
        /// configs, files other programs run), after reading them: the folder then asks for
        /// trust again.
        #[arg(long)]
        accept_trust_changes: bool,
    },
    /// Commit what is left, keep the branch and remove the checkout.
    Keep {
        session: String,
        /// As for merge: keep it although it changes files folder trust covers.
        #[arg(long)]
        accept_trust_changes: bool,
    },
    /// The diff of files of the worktree against its base (default: every changed file).
    Diff {
        session: String,
        /// Files relative to the project (as `changes` lists them).
        paths: Vec<String>,
    },
    /// Remove the checkout and the branch. Work not merged is listed, and needs --yes.
    Discard {
        session: String,
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum RulesAction {
    /// Which rule or grant would decide a call, and why, e.g.
    /// `paddock rules explain --tool bash -- 'git status && rm -rf x'`; or which network rule
    /// would decide a host bash reaches: `paddock rules explain --host registry.npmjs.org`.
    Explain {
        /// A host (`host`, `host:port`; port 443 when left out) instead of a call: how bash's
        /// network would treat it.
        #[arg(long, value_name = "HOST", conflicts_with = "tool")]
        host: Option<String>,
        /// The tool called: bash (the call is its command), a file tool (the call is its
        /// path), or another tool (the call is its JSON input).
        #[arg(long, default_value = "bash")]
        tool: String,
        /// One JSON object instead of a sentence.
        #[arg(long)]
        json: bool,
        /// Also run the hooks that run before such a call (behind the wall, as in a run)
        /// and say what they decide.
        #[arg(long, conflicts_with = "host")]
        run_hooks: bool,
        /// The command, path or JSON input (after `--`).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            required_unless_present = "host"
        )]
        call: Vec<String>,
    },
    /// The rules of the project's settings, per tool, in order.
    List {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// Sessions of the project, newest first.
    List {
        /// One JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// A session as a readable transcript (or JSON with --json).
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Case-insensitive text search across the project's sessions.
    Search {
        query: String,
        #[arg(long)]
        json: bool,
    },
    /// Write a session as Markdown or JSON.
    Export {
        id: String,
        #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
        format: ExportFormat,
        /// Write to this file instead of standard output (replaced whole; a symlink there
        /// is refused, never written through).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Delete a session file.
    Delete { id: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Markdown,
    Json,
}

/// Which project and model: shared by every command that talks to a model.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// The project folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// anthropic, openai or openai-compatible.
    #[arg(long, value_name = "P")]
    pub provider: Option<ProviderKind>,
    /// The model's name as the provider knows it (`paddock doctor` checks it), e.g.
    /// claude-sonnet-4-5, gpt-4.1 or qwen3:8b; the settings' "model" otherwise.
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Server address, e.g. http://localhost:11434/v1 for Ollama.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
}

/// Flags of `exec` and `resume`. They override the project's settings for this run.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Tool bundle: readonly, readwrite or full.
    #[arg(long, value_name = "P")]
    pub preset: Option<ToolPreset>,
    /// Grant these tools (comma-separated or repeated: --allow grep,glob --allow bash).
    #[arg(long, value_name = "TOOL", value_delimiter = ',')]
    pub allow: Vec<String>,
    /// Grant these tools behind an approval (denied headless unless --ask-allows).
    #[arg(long, value_name = "TOOL", value_delimiter = ',')]
    pub ask: Vec<String>,
    /// Take these tools away, whatever else grants them.
    #[arg(long, value_name = "TOOL", value_delimiter = ',')]
    pub deny: Vec<String>,
    /// Let bash reach these hosts in this run, through Paddock's proxy (comma-separated or
    /// repeated: --allow-host registry.npmjs.org,pypi.org). A host nothing allows is refused
    /// in a headless run. `*.example.com` for its subdomains, `host:port` for one port.
    #[arg(long, value_name = "HOST", value_delimiter = ',', value_parser = host_rule)]
    pub allow_host: Vec<String>,
    /// Model calls allowed in this run (at least 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Token budget (input + output); the run stops once it is exceeded.
    #[arg(long, value_name = "N")]
    pub budget: Option<u64>,
    /// One JSON object per event on stdout (JSON Lines) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Let Ask tools run without approval (nobody can approve in a headless run).
    #[arg(long)]
    pub ask_allows: bool,
    /// Give the prompt to this external ACP agent (named in your agents.json in Paddock's
    /// config folder) instead of Paddock's own: it runs behind the same wall as bash.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Attach this image to the prompt (PNG, JPEG, GIF or WebP, told by its bytes; at most
    /// 20 MB; scaled to the provider's limits). Repeat for more.
    #[arg(long, value_name = "FILE")]
    pub image: Vec<PathBuf>,
    /// Use the folder's settings for this run even where you have not trusted them (see
    /// `paddock trust`); nothing is recorded.
    #[arg(long)]
    pub trust: bool,
    /// Also write the final answer's text to this file (under --output-schema, the JSON that
    /// matched it). It is replaced whole; a symlink there is refused, never written through.
    #[arg(long, value_name = "FILE")]
    pub output_last_message: Option<PathBuf>,
    /// A JSON schema the final answer must match (one retry with the errors); exit 9 when it
    /// still does not. A regular file of at most 1 MiB, not a symlink.
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<PathBuf>,
}

/// A host rule as `network.allow` takes it.
fn host_rule(rule: &str) -> Result<String, String> {
    paddock_host::network::check_rule(rule).map(|()| rule.to_owned())
}

impl RunArgs {
    pub fn options(&self) -> RunOptions {
        RunOptions {
            provider: self.model.provider,
            model: self.model.model.clone(),
            base_url: self.model.base_url.clone(),
            preset: self.preset,
            allow: self.allow.clone(),
            ask: self.ask.clone(),
            deny: self.deny.clone(),
            max_turns: self.max_turns,
            max_token_budget: self.budget,
            allow_hosts: self.allow_host.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every argument that takes a path is a `PathBuf` whose value is named `FILE` or `DIR`
    /// in the help, and every `FILE` or `DIR` is a `PathBuf`: tests/it/blocking_open.rs finds
    /// the path arguments by those names in `paddock … --help`, so a path argument named
    /// otherwise would escape its walk.
    #[test]
    fn every_path_argument_is_named_file_or_dir() {
        fn walk(cmd: &clap::Command, at: &str, wrong: &mut Vec<String>, paths: &mut usize) {
            for arg in cmd.get_arguments() {
                let is_path = arg.get_value_parser().type_id() == std::any::TypeId::of::<PathBuf>();
                let named = arg
                    .get_value_names()
                    .unwrap_or_default()
                    .iter()
                    .any(|n| n.as_str() == "FILE" || n.as_str() == "DIR");
                if is_path != named {
                    wrong.push(format!("{at} {}", arg.get_id()));
                }
                *paths += usize::from(is_path);
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{at} {}", sub.get_name()), wrong, paths);
            }
        }
        let (mut wrong, mut paths) = (Vec::new(), 0);
        walk(&Cli::command(), "paddock", &mut wrong, &mut paths);
        assert!(
            wrong.is_empty(),
            "a path argument must be a PathBuf named FILE or DIR (and only those): {wrong:?}"
        );
        assert!(paths > 10, "the walk found {paths} path arguments");
    }

    #[test]
    fn the_help_lists_every_exit_code() {
        use crate::exit::Code;
        let codes = [
            Code::Success,
            Code::Failure,
            Code::Usage,
            Code::Settings,
            Code::Provider,
            Code::BudgetExceeded,
            Code::LoopDetected,
            Code::MaxTurns,
            Code::Denied,
            Code::Schema,
            Code::Aborted,
        ];
        let listed: Vec<i32> = EXIT_CODES_HELP
            .lines()
            .filter_map(|l| l.split_whitespace().next()?.parse().ok())
            .collect();
        let expected: Vec<i32> = codes.iter().map(|c| c.as_i32()).collect();
        assert_eq!(listed, expected);
    }

    #[test]
    fn flags_become_run_options() {
        let cli = Cli::try_parse_from([
            "paddock",
            "exec",
            "--provider",
            "openai-compatible",
            "--preset",
            "readwrite",
            "--allow",
            "grep,glob",
            "--deny",
            "bash",
            "--budget",
            "100",
            "hi",
        ])
        .unwrap();
        let Command::Exec { run, prompt, .. } = cli.command else {
            panic!("not exec");
        };
        let o = run.options();
        assert_eq!(prompt, "hi");
        assert_eq!(o.provider, Some(ProviderKind::OpenAiCompatible));
        assert_eq!(o.preset, Some(ToolPreset::Readwrite));
        assert_eq!(o.allow, ["grep", "glob"]);
        assert_eq!(o.deny, ["bash"]);
        assert_eq!(o.max_token_budget, Some(100));
        assert!(Cli::try_parse_from(["paddock", "exec", "--preset", "all", "x"]).is_err());
    }
}
