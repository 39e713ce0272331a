//! paddock-host: settings, flags and keys into a runnable agent; the run service.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]

/// `git ARGS` in `dir` with a test identity; its output, trimmed. Fails the test on an error.
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

mod blocking_open;
mod checkpoints;
mod edit;
mod hook_pins;
mod keychain;
mod landing_trust;
mod mcp_import;
mod network;
mod own_git;
mod rule_links;
mod rules;
mod runtime;
mod settings;
mod worktree_trust;
mod worktree_wall;
