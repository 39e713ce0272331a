// Generated from the paddock-protocol crate by its `bindings` test. Do not edit:
// PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-protocol --test bindings

export type AboutInfo = { 
/**
 * `CARGO_PKG_VERSION` of the workspace: the same as `paddock --version` and the package.
 */
version: string, install: InstallKind, 
/**
 * The program (for an AppImage, the AppImage file the updater would replace).
 */
location: string, 
/**
 * Why this copy does not look for updates (built from source, no key built in).
 */
updates_off?: string, };

export type AgentEvent = { "type": "run_started", agent: string, model: string, 
/**
 * Model calls the run may make (0 in sessions written before it was said).
 */
max_turns: number, 
/**
 * How the model's tokens are priced (absent in sessions written before costs).
 */
pricing?: Pricing, } | { "type": "turn_started", turn: number, } | { "type": "text_delta", text: string, } | { "type": "thinking_delta", text: string, } | { "type": "tool_call_started", call: ToolCall, 
/**
 * One line saying what the call does (a path, a command), from the tool itself.
 */
summary: string, } | { "type": "tool_call_finished", id: string, name: string, summary: string, output: string, is_error: boolean, 
/**
 * Sessions written before statuses existed read as `ok`; the session loader fixes
 * failed ones from `is_error`.
 */
status: ToolStatus, duration_ms: number, 
/**
 * What decided whether the call could run: the rule that matched, or the tool's
 * grant.
 */
why?: string, 
/**
 * What the call changed in the workspace's files (file_write, file_edit).
 */
changes?: Array<FileChange>, } | { "type": "approval_requested", request_id: string, call: ToolCall, summary: string, 
/**
 * Why it asks: the rule that matched, or the tool's grant.
 */
why?: string, 
/**
 * The narrowest rules that would allow calls like this one ("Always allow"); none
 * when no rule could (the call has a construct that always asks).
 */
proposed_rules?: Array<string>, 
/**
 * Where "Always allow" saves those rules when not in the project's settings: an
 * external agent's tools are its own, and its rules go in its entry of the user's
 * `agents.json` (the agent's name).
 */
rules_for_agent?: string, 
/**
 * What the call would do (a diff, a command and where it runs), when the tool can
 * tell without running.
 */
preview?: CallPreview, } | { "type": "approval_resolved", request_id: string, decision: ApprovalDecision, } | { "type": "usage", turn: TokenUsage, total: TokenUsage, 
/**
 * What `turn` and `total` cost (absent in sessions written before costs).
 */
turn_cost?: Cost, total_cost?: Cost, } | { "type": "warning", message: string, 
/**
 * Set when the warning says a model call is being retried: a UI shows one call's
 * retries as one line.
 */
retry?: Retry, } | { "type": "loop_detected", kind: LoopKind, repetitions: number, action: LoopAction, detail: string, } | { "type": "turn_finished", turn: number, stop_reason: StopReason, } | { "type": "error", kind: ErrorKind, message: string, } | { "type": "run_finished", exit: ExitReason, turns: number, usage: TokenUsage, 
/**
 * What the run cost, teammates included (absent in sessions written before costs).
 */
cost?: Cost, } | { "type": "checkpoint_saved" } & CheckpointInfo | { "type": "run_changes", 
/**
 * Checkpoint ids of the workspace before and after the run.
 */
from: string, to: string, files: Array<ChangeSummary>, } | { "type": "rewound" } & RewindInfo | { "type": "context" } & ContextInfo | { "type": "compacted" } & CompactionInfo | { "type": "compaction_undone", id: string, } | { "type": "compaction_edited", id: string, summary: string, } | { "type": "connection" } & NetworkConnection | { "type": "plan" } & Plan | { "type": "hook" } & HookRun | { "type": "delegated", agent: string, depth: number, call_id: string, event: AgentEvent, };

export type AgentKey = { provider?: ProviderKind, 
/**
 * A keychain value's name (as MCP servers' `${NAME}` values are kept).
 */
value?: string, 
/**
 * e.g. `ANTHROPIC_API_KEY`.
 */
env: string, };

export type AppError = { code: AppErrorCode, 
/**
 * A sentence the user can act on.
 */
message: string, };

export type AppErrorCode = "invalid" | "settings" | "provider" | "keychain" | "session" | "not_found" | "path_refused" | "io" | "busy" | "untrusted" | "not_a_repository" | "internal";

export type ApprovalDecision = "once" | "session" | "deny";

export type BashNetwork = "none" | "allow_list" | "whole";

export type Batch<T> = { items: Array<T>, done: boolean, };

export type BranchList = { 
/**
 * The branch the project's checkout is on (none when detached).
 */
current?: string, 
/**
 * Every local branch but the sessions' own (`paddock/…`).
 */
branches: Array<string>, };

export type CallExplanation = { tool: string, 
/**
 * Allow: runs; Ask: waits for the user; Deny: refused.
 */
decision: Grant, 
/**
 * Which rule or grant decided, in plain words.
 */
why: string, 
/**
 * Decided by an argument rule rather than the tool's grant.
 */
byRule: boolean, 
/**
 * The rules "Always allow" would save for this call; empty when none could allow it.
 */
proposedRules: Array<string>, 
/**
 * The hooks that would run before this call (titles): they may still allow, ask,
 * deny or rewrite it when it runs.
 */
hooks: Array<string>, };

export type CallPreview = { "kind": "change", change: FileChange, } | { "kind": "would_fail", message: string, } | { "kind": "command", command: string, 
/**
 * Working directory, as the user knows it (absolute).
 */
cwd: string, 
/**
 * Whether the command may use the network.
 */
network: boolean, 
/**
 * How it is confined, in a few words ("bubblewrap", "not confined").
 */
confinement: string, timeout_secs: number, } | { "kind": "held", 
/**
 * Why each file is held, one line each.
 */
reasons: Array<string>, changes: Array<FileChange>, } | { "kind": "network", 
/**
 * The normalized host and its port.
 */
host: string, port: number, 
/**
 * `CONNECT` (HTTPS, end to end) or the plain-HTTP method.
 */
method: string, 
/**
 * Why it is asked ("no rule names host:443").
 */
why: string, 
/**
 * The narrowest `network.allow` rule that would let it through ("Always for this
 * project" saves it, editable first).
 */
rule: string, };

export type ChangeKind = "created" | "modified" | "deleted";

export type ChangeSummary = { path: string, kind: ChangeKind, added: number, removed: number, 
/**
 * Binary, too large, a link or a folder: no line counts.
 */
lines_counted: boolean, };

export type CheckpointInfo = { 
/**
 * The workspace state's id in the checkpoint store.
 */
checkpoint: string, 
/**
 * The workspace folder it is a state of (absolute): a rewind puts it back only there.
 */
workspace: string, 
/**
 * 0 before the prompt, else the turn whose tools were about to run.
 */
turn: number, 
/**
 * Messages of the conversation kept when rewinding to here.
 */
messages: number, };

export type CheckpointState = "idle" | "recording" | "ready" | "failed";

export type CheckpointStatus = { state: CheckpointState, 
/**
 * Files looked at so far by the first snapshot (once done: the files it kept).
 */
files: number, 
/**
 * Their bytes.
 */
bytes: number, 
/**
 * Files the workspace had last time (0: not known yet).
 */
expected: number, 
/**
 * How long the first snapshot took, once done.
 */
took_ms: number | null, 
/**
 * Why it failed, or why each turn walks the whole workspace.
 */
message: string | null, };

export type CompactionInfo = { id: string, reason: CompactionReason, 
/**
 * Messages at the start of the history that the summary replaced.
 */
replaced: number, 
/**
 * Model turns kept as they were after the summary (the transcript shows the turns
 * before them as summarized).
 */
kept_turns: number, 
/**
 * Estimated tokens of the conversation before and after.
 */
before_tokens: number, after_tokens: number, 
/**
 * What the model wrote (the user may edit it before the next prompt).
 */
summary: string, };

export type CompactionReason = "threshold" | "overflow" | "asked";

export type CompactionSettings = { 
/**
 * Compact by itself when a request would pass the threshold (a context overflow from
 * the provider is still met with one compaction).
 */
auto: boolean, 
/**
 * Percent of the context window (10-95).
 */
thresholdPercent: number, };

export type ConnectionReport = { models: Array<ModelInfo>, latency_ms: number, 
/**
 * Whether the chosen model is offered (`None` when none was given or the server lists
 * nothing, as some local servers do).
 */
model_available?: boolean, };

export type ContentBlock = { "type": "text", text: string, } | { "type": "thinking", thinking: string, signature?: string, } | { "type": "redacted_thinking", data: string, } | { "type": "tool_call" } & ToolCall | { "type": "tool_result" } & ToolResult | { "type": "mention" } & Mention | { "type": "image" } & ImageBlock;

export type ContextInfo = { 
/**
 * The whole request.
 */
used: number, 
/**
 * The model's window, when known.
 */
window?: number, 
/**
 * The system prompt with the project's instructions.
 */
instructions: number, 
/**
 * The tools' descriptions and schemas.
 */
tools: number, 
/**
 * The conversation.
 */
history: number, };

export type CopiedFiles = { 
/**
 * Paths relative to the project, folders with a trailing `/`.
 */
paths: Array<string>, files: bigint, bytes: bigint, 
/**
 * What was not copied, and why (a link, a special file, unreadable).
 */
skipped: Array<string>, };

export type Cost = { 
/**
 * Dollars for the calls whose price is known.
 */
usd: number, 
/**
 * Every call's price was known (false: `usd` is a lower bound, some price unknown).
 */
complete: boolean, 
/**
 * Every call went to a local model (which costs nothing).
 */
local: boolean, };

export type DenyReason = "not_granted" | "no_approver" | "user" | "rule" | "hook";

export type DiffBody = { "kind": "text", hunks: Array<DiffHunk>, } | { "kind": "binary", old_bytes: number, new_bytes: number, } | { "kind": "too_large", old_bytes: number, new_bytes: number, } | { "kind": "link", old: string | null, new: string | null, } | { "kind": "folder" };

export type DiffHunk = { old_start: number, old_lines: number, new_start: number, new_lines: number, lines: Array<DiffLine>, };

export type DiffLine = { op: LineOp, text: string, 
/**
 * How the line ends when not with `\n`.
 */
end?: LineEnd, };

export type EngineCheck = { 
/**
 * `bubblewrap`, `namespaces` (the helper's own) or `landlock`.
 */
engine: string, works: boolean, 
/**
 * Why it does not work here (empty when it does).
 */
why: string, fix?: string, };

export type ErrorKind = "auth" | "rate_limited" | "context_too_long" | "server" | "network" | "invalid_response" | "invalid_request" | "cancelled" | "other";

export type ExitReason = "end_turn" | "max_turns" | "aborted" | "budget_exceeded" | "loop_detected" | "error";

export type ExpandedPrompt = { name: string, source: PromptSource, path: string, 
/**
 * The prompt to send: the file's text after the front-matter, arguments filled in.
 */
text: string, 
/**
 * The file as it is, front-matter included: what the user is shown before a first send.
 */
file_text: string, 
/**
 * SHA-256 of the file's bytes: what a confirmation records.
 */
digest: string, 
/**
 * A project prompt not confirmed with this content: show `file_text`, send only after the
 * user said yes (`confirm_prompt` with `digest`).
 */
needs_confirmation: boolean, };

export type ExportFormat = "markdown" | "json";

export type ExternalAgentConfig = { 
/**
 * The program (a path, or a name on PATH) that speaks ACP on stdin/stdout.
 */
command: string, args?: Array<string>, 
/**
 * Variables it gets on top of the wall's scrubbed environment (its API base URL...).
 */
env?: { [key in string]: string }, 
/**
 * Hosts it may reach besides the project's network allow list (its vendor's API):
 * rules as in `network.allow` (`api.anthropic.com`, `127.0.0.1:8080`).
 */
hosts?: Array<string>, 
/**
 * The API key it gets from the keychain (or the environment), and the variable.
 */
key?: AgentKey, 
/**
 * The ACP mode each session is put in (Claude Code's `default` asks before every edit,
 * so Paddock's approval cards decide); unset keeps the agent's own default.
 */
mode?: string, 
/**
 * Its tools whose permission requests Paddock answers yes without asking ("Always
 * allow" on its approval cards): names as it gives them (`Write`), `*` at the end for a
 * prefix (`mcp__*`).
 */
allow?: Array<string>, };

export type ExternalAgentInfo = { name: string, 
/**
 * The program and its arguments, as one line to show.
 */
command: string, 
/**
 * Hosts it may reach besides the project's network rules.
 */
hosts: Array<string>, 
/**
 * The stored key it is given, in words, if any.
 */
key?: string, 
/**
 * The whole entry, for editing.
 */
config: ExternalAgentConfig, };

export type ExternalAgentWall = { name: string, command: string, 
/**
 * Where it may write: the agent's workspace and its own home folder.
 */
writable: Array<string>, 
/**
 * Its network, in words (none, the proxy with which hosts, or all of it).
 */
network: string, 
/**
 * The key it is given, in words (`anthropic key as ANTHROPIC_API_KEY`).
 */
key?: string, 
/**
 * It can start here: a wall can be built (or the user allowed running unconfined).
 */
runs: boolean, };

export type FileChange = { 
/**
 * Relative to the workspace root, with `/` separators.
 */
path: string, kind: ChangeKind, 
/**
 * Lines added and removed (0 for binary and too-large files).
 */
added: number, removed: number, 
/**
 * Permission bits before and after, when they differ (or when the file was created or
 * deleted: the side that exists).
 */
mode?: ModeChange, diff: DiffBody, };

export type FilePreview = { path: string, size: number, 
/**
 * Binary files are not shown.
 */
binary: boolean, 
/**
 * Only the first part of the file is in `text`.
 */
truncated: boolean, text?: string, };

export type Grant = "allow" | "ask" | "deny";

export type HookInfo = { 
/**
 * `yours` (the config folder's `hooks.json`) or `project` (its settings).
 */
source: string, point: HookPoint, 
/**
 * `pre_tool_use · bash(git push *) · ./check.sh`.
 */
title: string, 
/**
 * The group's tool matcher as written (`Bash`, `Edit|Write`).
 */
matcher?: string, 
/**
 * Paddock's rule narrowing it (`bash(git push *)`).
 */
rule?: string, 
/**
 * The command, with its arguments.
 */
command: string, timeout_secs: number, 
/**
 * A failure refuses what the hook guards (else it is a warning).
 */
fail_closed: boolean, 
/**
 * A project hook waiting for trust: it does not run until it is trusted.
 */
waiting: boolean, 
/**
 * What trust pins it to.
 */
digest: string, };

export type HookOutcome = "continue" | "allow" | "ask" | "deny" | "rewrote" | "context" | "go_on" | "failed";

export type HookPoint = "session_start" | "user_prompt_submit" | "pre_tool_use" | "post_tool_use" | "stop" | "subagent_stop" | "pre_compact";

export type HookRun = { point: HookPoint, 
/**
 * Which hook: where it comes from and its command, shortened.
 */
hook: string, 
/**
 * The tool call it ran for (pre/post tool use).
 */
call_id?: string, outcome: HookOutcome, duration_ms: number, 
/**
 * Its reason, the context it added, or why it failed (bounded).
 */
message?: string, };

export type ImageBlock = { 
/**
 * `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
 */
media_type: string, 
/**
 * Hex SHA-256 of the bytes as sent.
 */
sha256: string, 
/**
 * What the user called it (a file name), for transcripts and summaries.
 */
name?: string, width: number, height: number, 
/**
 * Set when a tool call's result (`file_read` of an image) produced it: the call's id.
 */
tool_call_id?: string, };

export type InstallKind = "app_image" | "deb" | "rpm" | "source";

export type InstructionFile = { 
/**
 * Relative to the project folder.
 */
path: string, 
/**
 * Its size on disk.
 */
bytes: number, 
/**
 * Estimated tokens of what the agent is given.
 */
tokens: number, 
/**
 * Only its beginning is given (it is over the size limit).
 */
truncated: boolean, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type KeyStatus = { provider: ProviderKind, 
/**
 * A key is stored in the OS keychain.
 */
stored: boolean, 
/**
 * The environment variable that would be used, when it is set.
 */
env_var?: string, 
/**
 * Why the keychain could not be asked, and how to fix it.
 */
keychain_error?: string, };

export type KnownAgent = { 
/**
 * The name it is added under (`claude`).
 */
id: string, title: string, 
/**
 * How to install it, when its program is not found.
 */
install: string, config: ExternalAgentConfig, 
/**
 * Its program is on PATH here.
 */
installed: boolean, };

export type LineEnd = "crlf" | "cr" | "missing";

export type LineOp = "context" | "added" | "removed";

export type LoopAction = "warned" | "terminated";

export type LoopKind = "tool_repetition" | "text_repetition";

export type ManagedInfo = { 
/**
 * The policy files read, in order.
 */
files: Array<string>, 
/**
 * Why the policy cannot be used; runs stop until an administrator fixes it.
 */
error?: string, 
/**
 * One phrase per thing it fixes.
 */
summary: Array<string>, 
/**
 * The widest preset a project may use.
 */
max_preset?: ToolPreset, 
/**
 * The deny rules it adds, as `tool: pattern`.
 */
deny_rules: Array<string>, 
/**
 * bash never runs without the wall.
 */
require_wall: boolean, 
/**
 * bash never gets the whole network.
 */
forbid_bash_network: boolean, 
/**
 * The network lists are the policy's only.
 */
network_fixed: boolean, };

export type McpServerConfig = { command?: string, args?: Array<string>, 
/**
 * Extra environment for the server process (not secrets you want in git: prefer
 * variables already in your environment).
 */
env?: { [key in string]: string }, cwd?: string, url?: string, headers?: { [key in string]: string }, 
/**
 * Kept in the file but not started.
 */
disabled?: boolean, 
/**
 * Per-call time limit for this server's tools, in seconds.
 */
timeoutSecs?: bigint, 
/**
 * The transport as other tools write it (`stdio`, `http`, `streamableHttp`, `sse`);
 * optional here: `command` means stdio, `url` means streamable HTTP.
 */
type?: McpServerKind, 
/**
 * Tools of this server that run without asking (Cline's `autoApprove`): each is
 * granted as `mcp__<server>__<tool>` unless `tools` says otherwise.
 */
autoApprove?: Array<string>, 
/**
 * Per-call time limit as Cline (seconds) and Claude Code (milliseconds) write it:
 * below 10,000 it is read as seconds, from 10,000 as milliseconds. `timeoutSecs` wins.
 */
timeout?: bigint, 
/**
 * A file of `NAME=value` lines added to the environment (VS Code's `envFile`), relative
 * to the project folder; `env` wins over it.
 */
envFile?: string, };

export type McpServerKind = "stdio" | "http" | "sse";

export type McpServerState = { "state": "disabled" } | { "state": "starting" } | { "state": "running", tools: Array<string>, } | { "state": "failed", error: string, } | { "state": "exited", reason: string, };

export type McpServerStatus = { 
/**
 * The server's key in the settings' `mcpServers`.
 */
name: string, state: McpServerState, 
/**
 * Things the user should know that did not stop the server, e.g. a tool left out
 * because its name collides with another.
 */
warnings?: Array<string>, 
/**
 * The end of what a stdio server wrote to stderr, for diagnostics.
 */
stderr_tail?: string, };

export type Mention = { 
/**
 * Relative to the workspace, `/`-separated.
 */
path: string, folder: boolean, 
/**
 * The file's text (or the folder's entries, one a line), cut to the attachment limit.
 */
text: string, 
/**
 * Set when `text` is not all of it: what was left out, in words.
 */
cut?: string, };

export type MentionCandidate = { 
/**
 * Relative to the workspace, `/`-separated.
 */
path: string, folder: boolean, };

export type MergeOutcome = { "outcome": "fast_forward", into: string, commit: string, } | { "outcome": "merged", into: string, commit: string, } | { "outcome": "conflicts", into: string, files: Array<string>, } | { "outcome": "up_to_date", into: string, };

export type Message = { role: Role, content: Array<ContentBlock>, };

export type ModeChange = { old: number | null, new: number | null, };

export type ModelInfo = { id: string, 
/**
 * A friendlier name when the vendor has one ("Claude Sonnet 4").
 */
display_name?: string, 
/**
 * How many tokens the model holds, when the server's model list says (vLLM
 * `max_model_len`, OpenRouter `context_length`, Anthropic `max_input_tokens`, ...).
 */
context_window?: number, };

export type NetworkConnection = { call_id: string, 
/**
 * `CONNECT`, or a plain-HTTP method; none when no request was read.
 */
method?: string, host?: string, port?: number, 
/**
 * Let through upstream (it may still have failed: see `error`).
 */
allowed: boolean, 
/**
 * The user was asked about it.
 */
asked: boolean, 
/**
 * The rule that decided (`network.allow[2]`), if one did.
 */
rule?: string, why: string, bytes_up: number, bytes_down: number, duration_ms: number, error?: string, };

export type NetworkPreset = "npm" | "crates" | "pypi" | "go" | "github" | "rubygems";

export type NetworkPresetInfo = { preset: NetworkPreset, description: string, hosts: Array<string>, };

export type NetworkSettings = { allow: Array<string>, ask: Array<string>, deny: Array<string>, 
/**
 * Package ecosystems whose hosts are allowed (npm, crates, pypi, go, github, rubygems).
 */
presets: Array<NetworkPreset>, 
/**
 * Bytes one tool call may send through the proxy, over all its connections; past it
 * the connection ends and the call's new ones are refused. Unset: no cap.
 */
maxUploadBytes?: bigint, 
/**
 * Bytes one tool call may receive through the proxy, the same way.
 */
maxDownloadBytes?: bigint, };

export type NetworkView = { 
/**
 * The `network` setting as the file has it.
 */
written: NetworkSettings, 
/**
 * The rules that wait for the user's trust (a folder's allow entries and presets).
 */
waiting: Array<string>, bash: BashNetwork, presets: Array<NetworkPresetInfo>, };

export type NotificationClick = { 
/**
 * Counts the window's clicks; passed back as `after`, it waits for the next one.
 */
seq: number, 
/**
 * The call to show; empty for a run's end.
 */
call_id: string, };

export type Omitted = { 
/**
 * Prompts (runs) left out whole, before the first one sent.
 */
runs: number, 
/**
 * Turns left out at the start of the first run sent.
 */
turns: number, 
/**
 * Every turn left out: the whole runs' and the first run's.
 */
hidden_turns: number, 
/**
 * Token usage of the runs left out whole.
 */
usage: TokenUsage, 
/**
 * What they cost (absent when none of them said).
 */
cost?: Cost, };

export type Plan = { items: Array<PlanItem>, };

export type PlanItem = { 
/**
 * What the step is, imperative ("Run the tests").
 */
content: string, status: PlanStatus, 
/**
 * How the step reads while it is under way ("Running the tests"), when the model said.
 */
active_form?: string, };

export type PlanStatus = "pending" | "in_progress" | "completed";

export type Price = { 
/**
 * Input tokens not read from or written to the prompt cache.
 */
input: number, output: number, 
/**
 * Input tokens written to the prompt cache (Anthropic; 0 where writing is free).
 */
cacheWrite: number, 
/**
 * Input tokens read from the prompt cache.
 */
cacheRead: number, };

export type Pricing = { "kind": "priced", price: Price, source: string, } | { "kind": "local" } | { "kind": "unknown" };

export type ProjectInfo = { 
/**
 * Absolute path, symlinks resolved.
 */
path: string, 
/**
 * The folder's name.
 */
name: string, 
/**
 * The settings, or `None` when the file is broken (see `settings_error`).
 */
settings?: ProjectSettings, 
/**
 * Why the settings file could not be read; it is left untouched on disk.
 */
settings_error?: string, workspace_root: string, sandbox: SandboxStatus, 
/**
 * What the settings would do that waits for the user's trust.
 */
trust: TrustReport, 
/**
 * What the machine's managed policy fixes (the screens show it locked).
 */
managed: ManagedInfo, };

export type ProjectInstructions = { files: Array<InstructionFile>, 
/**
 * The text added to the system prompt.
 */
text: string, 
/**
 * What the user should know (a file cut or left out, and why).
 */
notices: Array<string>, };

export type ProjectSettings = { 
/**
 * The JSON schema editors validate against (kept, not read).
 */
$schema?: string, 
/**
 * Format version; this Paddock understands 1.
 */
version: number, provider?: ProviderKind, model?: string, 
/**
 * Server address for openai-compatible providers (e.g. http://localhost:11434/v1).
 */
baseUrl?: string, 
/**
 * Text added to Paddock's own system prompt (or put in its place, with
 * `replaceSystemPrompt`).
 */
systemPrompt?: string, 
/**
 * Send `systemPrompt` instead of Paddock's own system prompt, not after it.
 */
replaceSystemPrompt?: boolean, 
/**
 * The model's context window in tokens, when Paddock cannot learn it from the server.
 */
contextWindow?: number, 
/**
 * When the conversation is compacted to make room.
 */
compaction?: CompactionSettings, 
/**
 * Longest reply, in tokens, asked of the model per call. Unset: 4096 for
 * openai-compatible servers (a small model can otherwise stream for minutes), the
 * provider's own limit for the others.
 */
maxOutputTokens?: number, 
/**
 * Whether the model takes images. Unset: Paddock's list of hosted models decides, and
 * an openai-compatible server's model is sent images and may refuse them itself.
 */
images?: boolean, 
/**
 * How an openai-compatible server is told about the tools: `auto` (the `tools`
 * parameter, and the tools described in the prompt when the server refuses it),
 * `native` (the parameter only) or `prompted` (the prompt only).
 */
toolCalling?: ToolCalling, 
/**
 * Tool bundle granted to the agent; none means no built-in tool unless granted below.
 */
preset?: ToolPreset, 
/**
 * Per-tool grants on top of the preset: allow adds a tool, ask adds it behind an
 * approval, deny removes it (MCP tools included, as `mcp__<server>__<tool>`).
 */
tools?: { [key in string]: Grant }, 
/**
 * Rules over a call's arguments, per tool (or `mcp__server__*`): `{"bash": [{"allow":
 * "git status"}, {"deny": "rm -rf *"}], "file_write": [{"allow": "src/**"}]}`. Bash
 * patterns are words (`*` = any further words); file-tool patterns are globs relative
 * to the workspace; other tools take `*`. Deny beats ask beats allow; a call no rule
 * matches gets the tool's grant.
 */
rules?: { [key in string]: Array<RuleEntry> }, 
/**
 * Where the agent may work: its own `.agent-workspace` folder or the whole project.
 */
workspace: WorkspaceMode, 
/**
 * Let bash reach the whole network (`network` then does not apply).
 */
bashNetwork: boolean, 
/**
 * Let bash reach only these hosts, through Paddock's proxy (`npm install` with the npm
 * preset, say); asked about the rest.
 */
network?: NetworkSettings, 
/**
 * Sessions in their own checkout: the branch they start from, a setup command and
 * the untracked files copied in.
 */
worktree?: WorktreeSettings, 
/**
 * Run bash even where the OS sandbox is unavailable (the result says so).
 */
allowUnconfinedBash: boolean, 
/**
 * More folders or files bash may not see, besides the built-in list (SSH and cloud
 * credentials, keyrings, Paddock's data): absolute, or `~/` for the home folder.
 */
hiddenPaths?: Array<string>, 
/**
 * Folders or files bash may read although they are in a folder the wall hides (your
 * home): absolute, or `~/` for the home folder. Read-only; credentials inside stay
 * hidden. Toolchains (cargo, rustup, npm, pip, go...) and the folders on `PATH` are
 * readable without this.
 */
readablePaths?: Array<string>, 
/**
 * More files other programs run on their own (`Taskfile.yml`, `.idea/`), besides
 * Paddock's list (`.envrc`, editor task files, git hook managers' folders): a name or
 * path ending matched at any depth, a trailing `/` for a folder's files. The agent may
 * not change them unseen: bash finds them read-only and what it writes there waits for
 * your approval.
 */
autoRunFiles?: Array<string>, maxTurns?: number, maxTokenBudget?: number, 
/**
 * Agents the main agent may hand work to with `delegate_to_agent`.
 */
teammates?: Array<TeammateSettings>, 
/**
 * MCP servers, in the de-facto `mcpServers` shape.
 */
mcpServers?: { [key in string]: McpServerConfig }, 
/**
 * Prices by model id (US dollars per million tokens), over Paddock's table: for a
 * model it does not list (a hosted OpenAI-compatible service) or a negotiated rate.
 */
pricing?: { [key in string]: Price }, 
/**
 * Hooks: your own commands on the agent's events, in Claude Code's shape (Codex's and
 * Paddock's snake_case event names read too): `{"PreToolUse": [{"matcher": "Bash",
 * "hooks": [{"type": "command", "command": "./scripts/check.sh"}]}]}`. Each runs behind
 * the same wall as bash with the event as JSON on its stdin; exit code 2 or a JSON
 * decision blocks. A folder's hooks wait for your trust, each pinned to its command.
 */
hooks?: Record<string, unknown>, };

export type PromptAttachment = { "kind": "mention", path: string, } | { "kind": "image", media_type: string, data: string, name?: string, };

export type PromptInput = { text: string, attachments: Array<PromptAttachment>, 
/**
 * For a new session: the external agent (by its name in the user's `agents.json`) to
 * give it to instead of Paddock's own. A stored session keeps the agent it began with.
 */
agent?: string, };

export type PromptSource = "project" | "user";

export type PromptStatus = "ready" | "unconfirmed" | "changed" | "broken";

export type Protection = { kind: ProtectionKind, state: ProtectionState, 
/**
 * In plain words, e.g. "/run, /tmp and $XDG_RUNTIME_DIR hidden; abstract sockets cut off".
 */
detail: string, 
/**
 * One line on how to get it, when it is not enforced.
 */
fix?: string, };

export type ProtectionKind = "writes" | "secrets" | "sockets" | "network" | "lifetime" | "terminal";

export type ProtectionState = "enforced" | "partial" | "absent" | "granted";

export type ProviderKind = "anthropic" | "openai" | "openai-compatible";

export type RecentProject = { path: string, name: string, 
/**
 * RFC 3339, in the machine's local offset.
 */
last_opened: string, 
/**
 * False when the folder no longer exists.
 */
exists: boolean, };

export type Retry = { 
/**
 * The attempt about to be made (2 is the first retry).
 */
attempt: number, 
/**
 * How many attempts the call may take in all.
 */
attempts: number, };

export type RewindInfo = { id: string, 
/**
 * Where it went: the prompt (1-based) and turn (0 = before the prompt).
 */
prompt: number, turn: number, 
/**
 * The files were put back to the checkpoint.
 */
files: boolean, 
/**
 * The conversation was cut back to `messages`.
 */
conversation: boolean, 
/**
 * Messages of the conversation after the rewind.
 */
messages: number, 
/**
 * The workspace state just before the rewind: undoing it goes back there (empty when
 * the files were not rewound).
 */
before: string, 
/**
 * The workspace folder the files were rewound in (empty when they were not).
 */
workspace: string, 
/**
 * Set when this rewind undoes another one.
 */
undoes?: string, 
/**
 * What it changed in the files.
 */
changed: Array<ChangeSummary>, };

export type RewindMode = "both" | "files_only" | "conversation_only";

export type RewindPreview = { 
/**
 * The changes the files would undergo (from now to the checkpoint); empty when only the
 * conversation is rewound or nothing differs.
 */
files: Array<FileChange>, 
/**
 * Messages of the conversation that would be set aside (kept in the session, shown as
 * rewound).
 */
messages_dropped: number, };

export type Role = "user" | "assistant";

export type RuleEntry = { "allow": string } | { "ask": string } | { "deny": string };

export type RunStarted = { session_id: string, 
/**
 * Ask `next_run_events` with it for the run's events.
 */
feed: number, };

export type SandboxEngine = { "engine": "bubblewrap", version: string, } | { "engine": "namespaces" } | { "engine": "landlock", abi: number, } | { "engine": "none", reason: string, } | { "engine": "disabled" };

export type SandboxStatus = { workspace_mode: WorkspaceMode, 
/**
 * The workspace root the file tools and bash use.
 */
workspace_root: string, engine: SandboxEngine, 
/**
 * Each protection, in the order of [`ProtectionKind`].
 */
protections: Array<Protection>, 
/**
 * Folders bash may write (the workspace and its private TMPDIR); empty when writes are
 * not confined.
 */
writable_roots: Array<string>, 
/**
 * What bash may read inside the folders the wall hides (the homes): the project,
 * toolchains, the folders on `PATH`, the user's `readablePaths`; empty when the wall
 * hides nothing.
 */
readable_roots: Array<string>, 
/**
 * Every engine as tried on this host, strongest first (the one in use among them).
 */
engines: Array<EngineCheck>, 
/**
 * Everything asked for is enforced.
 */
fully_confined: boolean, 
/**
 * bash will run: fully confined, or the settings accept running it without (full)
 * confinement.
 */
bash_runs: boolean, 
/**
 * One line for people, e.g. "bubblewrap 0.8.0: every protection enforced".
 */
summary: string, };

export type SavedPrompt = { 
/**
 * What follows the `/`: the file's name without `.md`, or `project:<name>` for a project
 * prompt whose name the user's own prompt takes.
 */
name: string, source: PromptSource, 
/**
 * The file, as the user would find it.
 */
path: string, 
/**
 * The front-matter's `description`, else the first line of the text.
 */
description: string, 
/**
 * The front-matter's `argument-hint`, e.g. `[file] [focus]`.
 */
argument_hint?: string, status: PromptStatus, 
/**
 * Why a broken prompt cannot be used.
 */
error?: string, };

export type SearchHit = { session_id: string, title: string, 
/**
 * Index of the message in the session's history.
 */
message_index: number, 
/**
 * The text around the match.
 */
snippet: string, };

export type SessionHeader = { format: number, id: string, 
/**
 * Absolute path of the project folder.
 */
project: string, provider?: string, model: string, 
/**
 * RFC 3339, UTC.
 */
created: string, 
/**
 * The first prompt's first line, shortened.
 */
title: string, };

export type SessionRecord = { "type": "header" } & SessionHeader | { "type": "message", message: Message, } | { "type": "event", event: AgentEvent, };

export type SessionSummary = { id: string, title: string, model: string, created: string, 
/**
 * Last write, RFC 3339: UTC as stored, the local offset from the desktop's
 * `list_sessions`.
 */
updated: string, size_bytes: number, 
/**
 * What its runs cost (absent when it has none).
 */
cost?: Cost, };

export type SessionTranscript = { header: SessionHeader, messages: Array<Message>, events: Array<AgentEvent>, warnings: Array<string>, omitted?: Omitted, };

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "unknown";

export type TeammateSettings = { name: string, systemPrompt?: string, 
/**
 * Model name; defaults to the project's model (same provider).
 */
model?: string, preset?: ToolPreset, tools?: { [key in string]: Grant }, maxTurns?: number, };

export type TokenUsage = { 
/**
 * Every input token, cached ones included.
 */
input_tokens: number, output_tokens: number, 
/**
 * The part of `input_tokens` read from the provider's prompt cache (billed at a
 * fraction). Absent in sessions written before it was counted.
 */
cache_read_tokens: number, 
/**
 * The part of `input_tokens` written to the prompt cache (Anthropic bills it above the
 * input rate). Absent where none was.
 */
cache_write_tokens?: number, };

export type ToolCall = { id: string, name: string, input: unknown, 
/**
 * True when the call was recovered from plain text (local models), not emitted natively.
 */
parsed_from_text?: boolean, };

export type ToolCallMode = "native" | "text_fallback" | "prompted" | "none";

export type ToolCalling = "auto" | "native" | "prompted";

export type ToolGrantInfo = { name: string, grant: Grant, 
/**
 * Plain words, e.g. "denied — not in preset readonly".
 */
reason: string, 
/**
 * Added at run time (MCP): skips preset and allow list, obeys the deny list.
 */
runtime: boolean, 
/**
 * Whether the tool can change files or run programs (what a read-only grant excludes).
 */
mutates: boolean, };

export type ToolPreset = "readonly" | "readwrite" | "full";

export type ToolProbeReport = { 
/**
 * `native`: in the API's tool-call fields; `text_fallback`: written in the text and
 * read by Paddock; `prompted`: the server refused the `tools` parameter (or the
 * settings say so), so the tools were described in the prompt and the call read from
 * the text; `none`: not at all.
 */
mode: ToolCallMode, 
/**
 * Calls with tools stream (false: the server refused, and is asked unstreamed).
 */
streaming: boolean, first_token_ms?: number, total_ms: number, context_window: number, 
/**
 * `server`, `table` or `default`.
 */
window_source: string, 
/**
 * What to change when calls do not come back natively and streamed.
 */
advice: Array<string>, 
/**
 * One line saying what happened.
 */
detail: string, 
/**
 * `auto` tool calling uses the prompted form with this server and model from now on
 * (runs start that way, remembered across runs), and why; `None` when it asks natively.
 */
prompted_from_now_on?: string, };

export type ToolResult = { tool_call_id: string, content: string, is_error: boolean, };

export type ToolSpec = { name: string, description: string, 
/**
 * JSON schema of the input object.
 */
input_schema: unknown, };

export type ToolStatus = { "kind": "ok" } | { "kind": "failed" } | { "kind": "invalid_input" } | { "kind": "unknown_tool" } | { "kind": "denied", reason: DenyReason, } | { "kind": "aborted" } | { "kind": "timed_out" } | { "kind": "panicked" };

export type TrustItem = { 
/**
 * The settings field, e.g. `baseUrl`, `tools.bash`, `mcpServers.github`.
 */
key: string, 
/**
 * What it would do, in plain words (secrets never shown, only their names).
 */
what: string, state: TrustState, };

export type TrustReport = { 
/**
 * The folder's real path, as trust is keyed.
 */
folder: string, 
/**
 * Not applied until trusted.
 */
pending: Array<TrustItem>, trusted: Array<TrustItem>, 
/**
 * The user opened the folder without the pending items, and they have not changed since.
 */
declined: boolean, 
/**
 * Why the trust record could not be read (a damaged file): nothing counts as trusted.
 */
error?: string, };

export type TrustState = { "state": "trusted" } | { "state": "new" } | { "state": "changed", was: string, };

export type UpdateCheck = { "state": "up_to_date", current: string, } | { "state": "available" } & UpdateOffer | { "state": "older", offered: string, current: string, };

export type UpdateOffer = { version: string, current: string, 
/**
 * What changed, from the update manifest (its `notes`); empty when it says nothing.
 */
notes: string, 
/**
 * This copy can install it itself (an AppImage); otherwise `how` says who does.
 */
can_install: boolean, 
/**
 * For a package install: the package manager's part, in a sentence.
 */
how: string, 
/**
 * Why it cannot be installed right now (a run is live), when it cannot.
 */
blocked?: string, };

export type WorkspaceChange = { 
/**
 * Changed paths, relative to the workspace root.
 */
paths: Array<string>, };

export type WorkspaceEntry = { 
/**
 * Relative to the workspace root, '/'-separated.
 */
path: string, is_dir: boolean, size: number, };

export type WorkspaceMode = "agent_workspace" | "project";

export type WorkspaceTree = { root: string, 
/**
 * False when the workspace folder does not exist yet.
 */
exists: boolean, entries: Array<WorkspaceEntry>, 
/**
 * More entries exist than were listed.
 */
truncated: boolean, };

export type WorktreeChanges = { 
/**
 * Commits on the branch that its base does not have.
 */
commits: number, 
/**
 * Files changed in the checkout and not committed (untracked ones included).
 */
uncommitted: Array<string>, 
/**
 * Files that differ between the base and the checkout as it is now.
 */
files: Array<string>, };

export type WorktreeCreated = { worktree: WorktreeInfo, copied: CopiedFiles, 
/**
 * What `worktree.setup` did, when the (trusted) settings have one and it ran.
 */
setup?: WorktreeSetup, };

export type WorktreeInfo = { name: string, 
/**
 * `paddock/<name>`.
 */
branch: string, 
/**
 * What the branch started from, as the user named it.
 */
base_ref: string, 
/**
 * The commit the branch started from.
 */
base_commit: string, 
/**
 * The checkout's folder (the project's own folder inside it, for a project below its
 * repository's top).
 */
path: string, 
/**
 * The session working in it, once its first prompt ran.
 */
session?: string, 
/**
 * RFC 3339, UTC.
 */
created: string, 
/**
 * A copy of a folder outside git (its branch is the copy's own; merging writes the
 * changed files back into the folder).
 */
plain_copy: boolean, } & ({ "state": "active" } | { "state": "merged", into: string, commit: string, } | { "state": "kept" } | { "state": "discarded" });

export type WorktreeLanded = { 
/**
 * The worktree as it now stands; none once discarded.
 */
worktree?: WorktreeInfo, 
/**
 * The commit Paddock made of what was left, if any.
 */
commit?: string, merge?: MergeOutcome, 
/**
 * Discarded: commits not merged and files not committed that went with it.
 */
lost?: WorktreeChanges, };

export type WorktreeLanding = { "action": "commit", message: string | null, } | { "action": "merge", into: string | null, message: string | null, 
/**
 * The user read the trust-covered files it lands and accepts them (the folder then
 * asks for trust again).
 */
accept_trust_changes: boolean, } | { "action": "keep", accept_trust_changes: boolean, } | { "action": "discard" };

export type WorktreeSettings = { 
/**
 * The commit or branch a new session's branch starts from (default: the project's HEAD).
 */
baseRef?: string, 
/**
 * A command run inside the wall in the new checkout before the first prompt
 * (`npm ci`, say); its output is shown and its failure said.
 */
setup?: string, 
/**
 * Files git does not track that the work needs (`.env`, `config/local.json`): globs
 * over the project, copied into each new checkout; a folder is copied whole.
 */
copy: Array<string>, };

export type WorktreeSetup = { command: string, ok: boolean, 
/**
 * bash's result (bounded; the exit code at its end).
 */
output: string, };

export type WorktreeState = { "state": "active" } | { "state": "merged", into: string, commit: string, } | { "state": "kept" } | { "state": "discarded" };
