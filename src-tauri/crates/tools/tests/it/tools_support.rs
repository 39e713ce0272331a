//! Helpers shared by the built-in tool tests: a context around a `ToolEnv` and a call that
//! returns what the model would see.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use paddock_core::approval::{Approvals, AskPolicy};
use paddock_core::{NullSink, ToolContext, ToolError, ToolRegistry};
use paddock_tools::{ToolEnv, register_builtin_tools};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// An environment whose workspace is `root`, with the default (safe) sandbox settings.
pub fn env_at(root: &Path) -> ToolEnv {
    ToolEnv::at(root)
}

/// The built-in tools on one environment, and a context to call them with.
pub struct Kit {
    pub ctx: ToolContext,
    pub registry: ToolRegistry,
}

pub fn context(env: ToolEnv, cancel: CancellationToken) -> Kit {
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
    Kit {
        ctx: ToolContext {
            call: Some(Arc::new(paddock_protocol::ToolCall {
                id: "call-1".to_owned(),
                name: "test".to_owned(),
                input: Value::Null,
                parsed_from_text: false,
            })),
            agent: "tester".into(),
            chain: Arc::from(vec!["tester".to_owned()]),
            cancel: cancel.into(),
            events: Arc::new(NullSink),
            approvals: Arc::new(Approvals::new(AskPolicy::HeadlessDeny)),
            grants: Arc::default(),
            writes: Arc::default(),
            approved: None,
            told: Arc::default(),
            hooks: std::sync::Arc::new(paddock_core::hooks::NoHooks),
        },
        registry,
    }
}

/// What the model sees from one call: (is_error, text).
#[derive(Debug, Clone)]
pub struct Seen {
    pub is_error: bool,
    pub text: String,
}

pub async fn call_with(kit: &Kit, tool: &str, input: Value) -> Seen {
    let tool = kit.registry.get(tool).unwrap().clone();
    match tool.call(&input, &kit.ctx).await {
        Ok(out) => Seen {
            is_error: out.is_error(),
            text: out.content.into_string(),
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

/// A fresh workspace folder (its real path) and an environment on it.
pub fn workspace() -> (tempfile::TempDir, ToolEnv) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, env_at(&root))
}
