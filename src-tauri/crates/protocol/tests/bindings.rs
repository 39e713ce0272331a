//! The UI's TypeScript types are generated from these Rust types; this test fails when the
//! committed `ui/src/lib/bindings.ts` is stale. Regenerate with
//! `PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-protocol --test bindings`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use paddock_protocol::*;
use ts_rs::{Config, TS};

macro_rules! decls {
    ($cfg:expr; $($t:ty),* $(,)?) => {
        vec![$( (<$t as TS>::ident($cfg), <$t as TS>::decl($cfg)) ),*]
    };
}

fn generate() -> String {
    let cfg = &Config::default();
    let mut decls = decls!(cfg;
        serde_json::Value,
        AgentEvent, ApprovalDecision, AppError, Batch<()>, AppErrorCode, ConnectionReport, ContentBlock,
        DenyReason, ToolStatus, TrustItem, TrustReport, TrustState,
        ErrorKind, ExitReason, ExportFormat, FilePreview, Grant, KeyStatus,
        LoopAction, LoopKind, McpServerConfig, McpServerState, McpServerStatus, Message,
        ModelInfo, NotificationClick, Omitted, ProjectInfo, ManagedInfo, Protection, EngineCheck, ProtectionKind, ProtectionState, SandboxEngine, ProjectSettings, ProviderKind,
        RecentProject, Retry, Role, RunStarted, SandboxStatus, SearchHit, SessionHeader, SessionRecord,
        SessionSummary, SessionTranscript, StopReason, TeammateSettings, TokenUsage, ToolCall,
        ToolGrantInfo, ToolPreset, ToolResult, ToolSpec, WorkspaceChange, WorkspaceEntry,
        WorkspaceMode, WorkspaceTree,
        CallPreview, ChangeKind, ChangeSummary, CheckpointInfo, DiffBody, DiffHunk, DiffLine,
        FileChange, LineEnd, LineOp, ModeChange, RewindInfo, RewindMode, RewindPreview,
        CheckpointState, CheckpointStatus, CompactionInfo, CompactionReason, CompactionSettings, ContextInfo, InstructionFile,
        ProjectInstructions, ToolCallMode, ToolProbeReport, RuleEntry, CallExplanation, McpServerKind,
        AboutInfo, InstallKind, UpdateCheck, UpdateOffer, ToolCalling, NetworkSettings, NetworkPreset, NetworkPresetInfo, NetworkView, BashNetwork, NetworkConnection, Plan, PlanItem, PlanStatus, Cost, Price, Pricing, Mention, MentionCandidate, PromptAttachment, PromptInput, ImageBlock, HookPoint, HookOutcome, HookRun, HookInfo, ExternalAgentInfo, ExternalAgentWall, ExternalAgentConfig, AgentKey, KnownAgent,
        BranchList, WorktreeSetup, WorktreeLanded, WorktreeLanding, CopiedFiles, MergeOutcome, WorktreeChanges, WorktreeCreated, WorktreeInfo, WorktreeSettings, WorktreeState,
        ExpandedPrompt, PromptSource, PromptStatus, SavedPrompt,
    );
    decls.sort();
    let mut out = String::from(
        "// Generated from the paddock-protocol crate by its `bindings` test. Do not edit:\n\
         // PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-protocol --test bindings\n",
    );
    for (_, decl) in decls {
        out.push('\n');
        out.push_str("export ");
        out.push_str(decl.trim());
        out.push('\n');
    }
    out
}

#[test]
fn committed_typescript_bindings_are_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../ui/src/lib/bindings.ts");
    let how = "cargo test -p paddock-protocol --test bindings";
    paddock_protocol::generated::check_committed(&path, &generate(), how).unwrap();
}
