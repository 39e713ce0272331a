//! Helpers shared by the built-in tool tests: a context around a `ToolEnv` and a call that
//! returns what the model would see.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use paddock_kernel::approval::{Approvals, AskPolicy};
use paddock_kernel::tools::register_builtin_tools;
use paddock_kernel::{NullSink, ToolContext, ToolEnv, ToolError, ToolRegistry};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// An environment whose workspace is `root`, with the default (safe) sandbox settings.
pub fn env_at(root: &Path) -> ToolEnv {
    ToolEnv {
        workspace_root: root.to_path_buf(),
        ..ToolEnv::default()
    }
}

pub fn context(env: ToolEnv, cancel: CancellationToken) -> ToolContext {
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry).unwrap();
    ToolContext {
        call_id: "call-1".to_owned(),
        agent: "tester".to_owned(),
        chain: Arc::from(vec!["tester".to_owned()]),
        cancel,
        events: Arc::new(NullSink),
        env: Arc::new(env),
        registry: Arc::new(registry),
        approvals: Arc::new(Approvals::new(AskPolicy::HeadlessDeny)),
    }
}

/// What the model sees from one call: (is_error, text).
#[derive(Debug, Clone)]
pub struct Seen {
    pub is_error: bool,
    pub text: String,
}

pub async fn call_with(ctx: &ToolContext, tool: &str, input: Value) -> Seen {
    let tool = ctx.registry.get(tool).unwrap().clone();
    match tool.call(input, ctx).await {
        Ok(out) => Seen {
            is_error: out.is_error,
            text: out.content,
        },
        Err(ToolError::InvalidInput(e) | ToolError::Failed(e)) => Seen {
            is_error: true,
            text: e,
        },
    }
}

pub async fn call(env: &ToolEnv, tool: &str, input: Value) -> Seen {
    call_with(&context(env.clone(), CancellationToken::new()), tool, input).await
}
