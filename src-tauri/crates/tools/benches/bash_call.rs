//! The cost of one `bash -c true` call through the bash tool, behind each wall this host can
//! build, and bare. Run: `cargo build -p paddock-sandbox && cargo bench -p paddock-tools
//! --bench bash_call`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use paddock_core::approval::{Approvals, AskPolicy};
use paddock_core::{NullSink, ToolContext, ToolRegistry};
use paddock_sandbox::Engine;
use paddock_tools::{ToolEnv, register_builtin_tools};
use serde_json::json;

fn context() -> ToolContext {
    ToolContext {
        call: None,
        agent: "bench".into(),
        chain: Arc::from(vec!["bench".to_owned()]),
        cancel: Default::default(),
        events: Arc::new(NullSink),
        approvals: Arc::new(Approvals::new(AskPolicy::HeadlessDeny)),
        grants: Arc::default(),
        writes: Arc::default(),
        approved: None,
        told: Arc::default(),
        hooks: std::sync::Arc::new(paddock_core::hooks::NoHooks),
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let mut group = c.benchmark_group("bash_true");
    group.sample_size(30);
    let walls: [(&str, Option<Engine>, bool); 4] = [
        ("bubblewrap", Some(Engine::Bubblewrap), true),
        ("namespaces", Some(Engine::Namespaces), true),
        ("landlock", Some(Engine::Landlock), true),
        ("bare", None, false),
    ];
    for (name, engine, enabled) in walls {
        let mut env = ToolEnv::at(&ws);
        env.sandbox.strongest = engine;
        env.sandbox.enabled = enabled;
        env.sandbox.allow_unconfined = !enabled;
        let status = env.sandbox_status();
        let wanted = match engine {
            Some(Engine::Bubblewrap) => matches!(
                status.engine,
                paddock_protocol::SandboxEngine::Bubblewrap { .. }
            ),
            Some(Engine::Namespaces) => {
                status.engine == paddock_protocol::SandboxEngine::Namespaces
            }
            Some(Engine::Landlock) => matches!(
                status.engine,
                paddock_protocol::SandboxEngine::Landlock { .. }
            ),
            None => true,
        };
        if !wanted {
            eprintln!("{name}: not on this host ({})", status.summary);
            continue;
        }
        let mut registry = ToolRegistry::new();
        register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
        let bash = registry.get("bash").unwrap().clone();
        let ctx = context();
        let out = rt
            .block_on(bash.call(&json!({"command": "true"}), &ctx))
            .unwrap();
        assert!(!out.is_error(), "{name}: {}", out.content);
        group.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(bash.call(&json!({"command": "true"}), &ctx))
                    .unwrap()
            });
        });
    }
    group.finish();
}

/// The same call behind bubblewrap with the network an allow-list: what the call's own
/// proxy listener and the helper's bridge add.
fn bench_allow_list(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let mut env = ToolEnv::at(&ws);
    if !matches!(
        env.sandbox_status().engine,
        paddock_protocol::SandboxEngine::Bubblewrap { .. }
    ) {
        eprintln!("bubblewrap_allow_list: no bubblewrap here");
        return;
    }
    let policy =
        paddock_net::NetworkPolicy::from_lists(&["example.com".to_owned()], &[], &[]).unwrap();
    let fence = paddock_tools::NetworkFence::new(
        paddock_net::Proxy::builder(policy),
        paddock_net::CallLimits::default(),
    );
    env.sandbox.network_rules = Some(fence.rule_count());
    env.network = Some(fence);
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
    let bash = registry.get("bash").unwrap().clone();
    let ctx = context();
    let out = rt
        .block_on(bash.call(&json!({"command": "test -n \"$HTTPS_PROXY\""}), &ctx))
        .unwrap();
    assert!(!out.is_error(), "the proxy is set up: {}", out.content);
    let mut group = c.benchmark_group("bash_true");
    group.sample_size(30);
    group.bench_function("bubblewrap_allow_list", |b| {
        b.iter(|| {
            rt.block_on(bash.call(&json!({"command": "true"}), &ctx))
                .unwrap()
        });
    });
    group.finish();
}

/// The same call in a workspace of 10,000 files with three nested repositories: what
/// scanning it before and after the call (for files other programs run) and pinning their
/// config and hooks costs.
fn bench_large(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    for d in 0..100 {
        let folder = ws.join(format!("src/m{d:03}"));
        std::fs::create_dir_all(&folder).unwrap();
        for f in 0..100 {
            std::fs::write(folder.join(format!("f{f:03}.rs")), "fn x() {}\n").unwrap();
        }
    }
    for r in 0..3 {
        let git = ws.join(format!("vendor/r{r}/.git"));
        for sub in ["objects", "refs/heads", "hooks"] {
            std::fs::create_dir_all(git.join(sub)).unwrap();
        }
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(git.join("config"), "[core]\n\tbare = false\n").unwrap();
    }
    let env = ToolEnv::at(&ws);
    if !matches!(
        env.sandbox_status().engine,
        paddock_protocol::SandboxEngine::Bubblewrap { .. }
    ) {
        eprintln!("bubblewrap_10k_files: no bubblewrap here");
        return;
    }
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
    let bash = registry.get("bash").unwrap().clone();
    let ctx = context();
    let mut group = c.benchmark_group("bash_true");
    group.sample_size(20);
    group.bench_function("bubblewrap_10k_files", |b| {
        b.iter(|| {
            rt.block_on(bash.call(&json!({"command": "true"}), &ctx))
                .unwrap()
        });
    });
    group.finish();
}

/// What the git gate of a call nobody looked at costs (issue 50, class 9): `true` and
/// `git status` in a repository, unattended (the per-call folder, the front, its check)
/// and approved (neither), behind bubblewrap.
fn bench_git_gate(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let git = |args: &[&str]| {
        assert!(
            std::process::Command::new("git")
                .args(args)
                .current_dir(&ws)
                .status()
                .unwrap()
                .success()
        );
    };
    git(&["init", "-q"]);
    std::fs::write(ws.join("f"), "a\n").unwrap();
    git(&["add", "f"]);
    let mut env = ToolEnv::at(&ws);
    env.sandbox.strongest = Some(Engine::Bubblewrap);
    if !matches!(
        env.sandbox_status().engine,
        paddock_protocol::SandboxEngine::Bubblewrap { .. }
    ) {
        eprintln!("git gate: bubblewrap is not on this host");
        return;
    }
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
    let bash = registry.get("bash").unwrap().clone();
    let unattended = context();
    let approved = ToolContext {
        approved: Some(Arc::new(paddock_protocol::CallPreview::WouldFail {
            message: String::new(),
        })),
        ..context()
    };
    let mut group = c.benchmark_group("git_gate");
    group.sample_size(30);
    for (command, label) in [("true", "true"), ("git status --short", "git_status")] {
        for (ctx, who) in [(&unattended, "unattended"), (&approved, "approved")] {
            let out = rt
                .block_on(bash.call(&json!({"command": command}), ctx))
                .unwrap();
            assert!(!out.is_error(), "{label} {who}: {}", out.content);
            group.bench_function(format!("{label}_{who}"), |b| {
                b.iter(|| {
                    rt.block_on(bash.call(&json!({"command": command}), ctx))
                        .unwrap()
                });
            });
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    bench,
    bench_allow_list,
    bench_large,
    bench_git_gate
);
criterion_main!(benches);
