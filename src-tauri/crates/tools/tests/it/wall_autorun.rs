//! Nothing the agent writes may make a program run outside the wall unseen (issue 40,
//! class 4): git metadata of every repository in the workspace (top, nested, new, bare, a
//! `.git` link) and files other programs run (`.envrc`, editor tasks). The proof of each
//! attack is the user's own `git status` run afterwards, plainly, as the user would: it
//! must not run the agent's program (which would create `PWNED`).
//!
//! Shown able to fail: against main before these changes (a worktree of 88f306a with this
//! file copied in), `git init` + `core.fsmonitor`, the bare-looking folder, the `.envrc`
//! and the file tools' `.envrc` all got through and `git status` created PWNED.
#![cfg(target_os = "linux")]

use std::process::Command;
use std::sync::{Arc, Mutex};

use paddock_core::approval::{Approvals, AskPolicy};
use paddock_core::{EventSink, ToolRegistry};
use paddock_protocol::{AgentEvent, ApprovalDecision, CallPreview};
use paddock_sandbox::Engine;
use paddock_tools::{ToolEnv, register_builtin_tools};
use serde_json::{Value, json};

use crate::tools_support::{Seen, call, context};
use crate::wall::{Wall, wall};

/// The user's later `git status` in `dir`, plainly: did it run the agent's program?
fn users_git_runs_it(w: &Wall, dir: &str) -> bool {
    let marker = w.ws.join("PWNED");
    let _ = std::fs::remove_file(&marker);
    let _ = Command::new("git")
        .args(["status", "--short"])
        .current_dir(w.ws.join(dir))
        .env("GIT_CEILING_DIRECTORIES", w.ws.parent().unwrap())
        .output()
        .unwrap();
    let ran = marker.exists();
    let _ = std::fs::remove_file(&marker);
    ran
}

/// A program git would run: it leaves `PWNED` in the workspace (`#` drops the arguments
/// git adds).
fn payload(w: &Wall) -> String {
    format!("touch {}/PWNED #", w.ws.display())
}

#[tokio::test]
async fn a_new_repository_with_a_program_in_its_config_is_not_kept() {
    let Some(w) = wall() else { return };
    // The attack works plainly: the user's git runs the program.
    let control = format!(
        "git init -q ctl && git -C ctl config core.fsmonitor '{}'",
        payload(&w)
    );
    w.plain(&control);
    assert!(
        users_git_runs_it(&w, "ctl"),
        "the payload does not run plainly"
    );
    let attack = format!(
        "git init -q repo && git -C repo config core.fsmonitor '{}' && echo DONE",
        payload(&w)
    );
    let seen = w.confined(&attack).await;
    assert!(seen.text.contains("DONE"), "{}", seen.text);
    assert!(!users_git_runs_it(&w, "repo"), "{}", seen.text);
    assert!(seen.text.contains("not kept"), "{}", seen.text);
    // A plain new repository is ordinary work: it stays, and commits across calls.
    let seen = w
        .confined(
            "git init -q plain && cd plain && echo a > a && git add a && \
                   git -c user.name=t -c user.email=t@t commit -qm one && echo ONE",
        )
        .await;
    assert!(
        seen.text.contains("ONE") && !seen.text.contains("not kept"),
        "{}",
        seen.text
    );
    let seen = w
        .confined("cd plain && echo b > b && git add b && \
                   git -c user.name=t -c user.email=t@t commit -qm two && git log --oneline | wc -l")
        .await;
    assert!(seen.text.starts_with("2\n"), "{}", seen.text);
}

#[tokio::test]
async fn existing_repositories_keep_their_config_and_hooks() {
    let Some(w) = wall() else { return };
    let git = |args: &[&str]| {
        assert!(
            Command::new("git")
                .args(args)
                .current_dir(&w.ws)
                .status()
                .unwrap()
                .success()
        );
    };
    git(&["init", "-q", "nested"]);
    std::fs::create_dir_all(w.ws.join("nested/.git/hooks")).unwrap();
    let config_before = std::fs::read_to_string(w.ws.join("nested/.git/config")).unwrap();
    let hook = format!(
        "printf '#!/bin/sh\\n{}\\n' > nested/.git/hooks/pre-commit; chmod +x nested/.git/hooks/pre-commit",
        payload(&w)
    );
    let mut ns = ToolEnv::clone(&w.env);
    ns.sandbox.strongest = Some(Engine::Namespaces);
    for env in [&w.env, &ns] {
        for attack in [
            format!("git -C nested config core.fsmonitor '{}'", payload(&w)),
            format!(
                "echo '[core]\n\tfsmonitor = {}' >> nested/.git/config",
                payload(&w)
            ),
            hook.clone(),
        ] {
            let seen = call(env, "bash", json!({"command": attack})).await;
            assert!(!users_git_runs_it(&w, "nested"), "{attack}: {}", seen.text);
            assert!(
                !w.ws.join("nested/.git/hooks/pre-commit").exists(),
                "{attack}"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(w.ws.join("nested/.git/config")).unwrap(),
        config_before
    );
    // Where no mount can keep it read-only (the Landlock-only wall), the change is put back.
    let mut ll = ToolEnv::clone(&w.env);
    ll.sandbox.strongest = Some(Engine::Landlock);
    let attack = format!("git -C nested config core.fsmonitor '{}'", payload(&w));
    let seen = call(&ll, "bash", json!({"command": attack})).await;
    assert!(seen.text.contains("not kept"), "{}", seen.text);
    assert!(!users_git_runs_it(&w, "nested"), "{}", seen.text);
    assert_eq!(
        std::fs::read_to_string(w.ws.join("nested/.git/config")).unwrap(),
        config_before
    );
}

#[tokio::test]
async fn a_repository_in_disguise_or_behind_a_link_is_not_kept() {
    let Some(w) = wall() else { return };
    // A folder git takes for a repository, and a `.git` file pointing at it.
    let attack = format!(
        "mkdir -p store/objects store/refs app && echo 'ref: refs/heads/main' > store/HEAD && \
         printf '[core]\\n\\tfsmonitor = {}\\n' > store/config && echo 'gitdir: ../store' > app/.git",
        payload(&w)
    );
    let seen = w.confined(&attack).await;
    assert!(!users_git_runs_it(&w, "app"), "{}", seen.text);
    assert!(seen.text.contains("not kept"), "{}", seen.text);
    // A `.git` link out of the workspace (where the agent's TMPDIR could hold a repository).
    let seen = w
        .confined("mkdir -p out && echo 'gitdir: /tmp/x' > out/.git")
        .await;
    assert!(seen.text.contains("not kept"), "{}", seen.text);
    assert!(!w.ws.join("out/.git").exists());
}

#[tokio::test]
async fn files_other_programs_run_are_not_kept() {
    let Some(w) = wall() else { return };
    let seen = w
        .confined(
            "echo 'touch PWNED' > .envrc && mkdir -p .vscode && echo '{}' > .vscode/tasks.json",
        )
        .await;
    assert!(!w.ws.join(".envrc").exists() && !w.ws.join(".vscode/tasks.json").exists());
    assert!(seen.text.contains("not kept"), "{}", seen.text);
    // An existing one is read-only to bash.
    std::fs::write(w.ws.join(".envrc"), "export A=1\n").unwrap();
    w.confined("echo 'touch PWNED' >> .envrc").await;
    assert_eq!(
        std::fs::read_to_string(w.ws.join(".envrc")).unwrap(),
        "export A=1\n"
    );
    // The file tools ask first; nobody can answer headless, so nothing is written.
    let seen = call(
        &w.env,
        "file_write",
        json!({"path": "sub/.envrc", "content": "touch PWNED"}),
    )
    .await;
    assert!(
        seen.is_error && seen.text.contains("not written"),
        "{}",
        seen.text
    );
    assert!(!w.ws.join("sub/.envrc").exists());
    let seen = call(
        &w.env,
        "file_edit",
        json!({"path": ".envrc", "old_string": "A=1", "new_string": "A=1; touch PWNED"}),
    )
    .await;
    assert!(seen.is_error, "{}", seen.text);
    assert_eq!(
        std::fs::read_to_string(w.ws.join(".envrc")).unwrap(),
        "export A=1\n"
    );
    // Completing a repository folder with the file tools is asked about too.
    for (path, content) in [
        ("bare/objects/k", "x"),
        ("bare/HEAD", "ref: refs/heads/main\n"),
    ] {
        call(
            &w.env,
            "file_write",
            json!({"path": path, "content": content}),
        )
        .await;
    }
    let seen = call(
        &w.env,
        "file_write",
        json!({"path": "bare/refs/k", "content": "x"}),
    )
    .await;
    assert!(
        seen.is_error && seen.text.contains("not written"),
        "{}",
        seen.text
    );
}

/// Answers every approval request with `decision`, remembering the previews.
pub(crate) struct Answer {
    approvals: Arc<Approvals>,
    decision: ApprovalDecision,
    previews: Mutex<Vec<Option<CallPreview>>>,
}

impl EventSink for Answer {
    fn emit(&self, event: AgentEvent) {
        if let AgentEvent::ApprovalRequested {
            request_id,
            preview,
            ..
        } = event
        {
            self.previews.lock().unwrap().push(preview);
            let _ = self.approvals.resolve(&request_id, self.decision);
        }
    }
}

pub(crate) async fn bash_answered(
    env: &ToolEnv,
    command: &str,
    decision: ApprovalDecision,
) -> (Seen, Vec<Option<CallPreview>>) {
    let mut kit = context(env.clone(), Default::default());
    let approvals = Arc::new(Approvals::new(AskPolicy::Interactive));
    let sink = Arc::new(Answer {
        approvals: approvals.clone(),
        decision,
        previews: Mutex::default(),
    });
    kit.ctx.approvals = approvals;
    kit.ctx.events = sink.clone();
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, &Arc::new(env.clone())).unwrap();
    let tool = registry.get("bash").unwrap().clone();
    let input: Value = json!({"command": command});
    let seen = match tool.call(&input, &kit.ctx).await {
        Ok(out) => Seen {
            is_error: out.is_error(),
            text: out.content.to_string(),
        },
        Err(e) => Seen {
            is_error: true,
            text: e.to_string(),
        },
    };
    let previews = sink.previews.lock().unwrap().clone();
    (seen, previews)
}

/// In the app the user is asked with the diff: yes keeps it, no removes it.
#[tokio::test]
async fn the_user_decides_with_the_diff_in_front_of_them() {
    let Some(w) = wall() else { return };
    let (seen, previews) =
        bash_answered(&w.env, "echo 'use flake' > .envrc", ApprovalDecision::Once).await;
    assert!(
        seen.text.contains("kept with the user's approval"),
        "{}",
        seen.text
    );
    assert_eq!(
        std::fs::read_to_string(w.ws.join(".envrc")).unwrap(),
        "use flake\n"
    );
    match previews.as_slice() {
        [Some(CallPreview::Held { reasons, changes })] => {
            assert!(reasons[0].contains(".envrc"), "{reasons:?}");
            assert_eq!(changes[0].path, ".envrc");
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_file(w.ws.join(".envrc")).unwrap();
    let (seen, _) = bash_answered(&w.env, "echo 'x' > .envrc", ApprovalDecision::Deny).await;
    assert!(seen.text.contains("not kept"), "{}", seen.text);
    assert!(!w.ws.join(".envrc").exists());
    // No leftovers of the setting aside.
    let names: Vec<String> = std::fs::read_dir(&w.ws)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.contains("paddock-held")),
        "{names:?}"
    );
}

/// Issue 50, class 9: a `.git` file at the workspace root (`gitdir: g`), `g` holding only
/// `HEAD` and a `commondir` naming `c`, whose `config` sets `core.fsmonitor`. No folder
/// looked like a repository (HEAD, objects and refs together), so on main (d242b3a) nothing
/// was held and the next `git status` (a rule may allow it) ran the agent's program.
#[tokio::test]
async fn a_repository_made_of_a_root_git_file_and_a_commondir_is_held() {
    let Some(w) = wall() else { return };
    let layout = |c: &str| {
        format!(
            "printf 'gitdir: g\\n' > .git && mkdir -p g {c}/objects {c}/refs && \
             echo 'ref: refs/heads/main' > g/HEAD && echo '../{c}' > g/commondir && \
             printf '[core]\\n\\tfsmonitor = \"{}\"\\n' > {c}/config",
            payload(&w)
        )
    };
    // Plainly (a copy of the layout in a folder of its own): the user's git runs it.
    std::fs::create_dir_all(w.ws.join("ctl")).unwrap();
    w.plain(&format!("cd ctl && {}", layout("cc")));
    assert!(
        users_git_runs_it(&w, "ctl"),
        "the payload does not run plainly"
    );
    std::fs::remove_dir_all(w.ws.join("ctl")).unwrap();
    let seen = w.confined(&format!("{} && echo DONE", layout("c"))).await;
    assert!(seen.text.contains("DONE"), "{}", seen.text);
    assert!(seen.text.contains("not kept"), "{}", seen.text);
    assert!(!users_git_runs_it(&w, "."), "{}", seen.text);
}

/// Issue 50, class 9: a call nobody looked at (a rule allowed it) that makes a repository,
/// names a program in its configuration and runs git there, in one command. The hold comes
/// after the call; on main (d242b3a) the `git status` inside it ran the program.
#[tokio::test]
async fn an_unattended_call_runs_no_program_a_repositorys_config_names() {
    let Some(w) = wall() else { return };
    let marker = w.ws.join("PWNED");
    let attack = format!(
        "git init -q r && git -C r config core.fsmonitor '{}' && git -C r config core.pager \
         '{}' && git -C r status --short && git -C r -p log 2>/dev/null; echo DONE",
        payload(&w),
        payload(&w)
    );
    w.plain(&attack.replace(" r ", " ctl ").replace("-C r", "-C ctl"));
    assert!(marker.exists(), "the payload does not run plainly");
    std::fs::remove_file(&marker).unwrap();
    let seen = w.confined(&attack).await;
    assert!(seen.text.contains("DONE"), "{}", seen.text);
    assert!(!marker.exists(), "{}", seen.text);
}
