//! Issue 50, class 9, third review: what a git command names besides its own repository
//! must be found as git finds it (a merge strategy, the repository the other end of a push
//! uses, a file the user's configuration includes). Each attack was shown to run its program
//! behind the strongest wall before the change (review tests on b37b02d), and runs plainly
//! here (the control inside `blocked`).
#![cfg(target_os = "linux")]

use paddock_sandbox::Engine;

use crate::wall::wall;
use crate::wall_git_gate::{COMMIT, behind, blocked, driver, two_commits};

/// `git rebase -s x/../evil.sh`: git runs `git-merge-<strategy>`, a path here. The front
/// refuses a git command that names a program by its path (the rules ask for such a
/// strategy too).
#[tokio::test]
async fn a_strategy_named_by_its_path_does_not_run() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    let (code, text) = w.plain(&format!(
        "mkdir -p src/git-merge-x && printf '#!/bin/sh\\ntouch {}/HOOKED\\nexit 2\\n' > src/evil.sh \
         && chmod +x src/evil.sh",
        w.ws.display()
    ));
    assert_eq!(code, 0, "{text}");
    let attack = "git -C src -c user.name=a -c user.email=a@example.org rebase -q -f -s \
                  x/../evil.sh HEAD~1";
    let text = blocked(&w, attack, "git -C src rebase --abort").await;
    assert!(text.contains("names a program by its path"), "{text}");
}

/// Pushing to `x` with both `x` and `x.git` there: git's receive-pack uses `x` (tried
/// before `x.git`), whose configuration names a program; the front checked `x.git`.
#[tokio::test]
async fn the_repository_a_push_uses_is_the_one_checked() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    w.plain("git init -q --bare alt.git");
    let attack = format!(
        "mkdir -p x/objects/info && echo {ws}/alt.git/objects > x/objects/info/alternates && \
         printf '[core]\\n\\talternateRefsCommand = touch {ws}/HOOKED; true\\n' > x/config && \
         git init -q --bare x && git init -q --bare x.git && \
         git -C src push -q ../x HEAD:refs/heads/y",
        ws = w.ws.display()
    );
    blocked(&w, &attack, "rm -rf x x.git").await;
}

/// A pushed-to path written with `~`: git expands it; the front now does too (and refuses
/// a repository it cannot name, where it used to let git run).
#[tokio::test]
async fn a_pushed_to_path_with_a_tilde_is_checked() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    w.plain("git init -q --bare alt.git");
    let attack = format!(
        "git init -q --bare x && echo {ws}/alt.git/objects > x/objects/info/alternates && \
         printf '[core]\\n\\talternateRefsCommand = touch {ws}/HOOKED; true\\n' >> x/config && \
         HOME={ws} git -C src push -q '~/x' HEAD:refs/heads/y",
        ws = w.ws.display()
    );
    blocked(&w, &attack, "rm -rf x").await;
}

/// The user's configuration includes a shared file in the work tree; the call writes a
/// diff driver there. The front reads what the user's configuration includes.
#[tokio::test]
async fn a_file_the_users_configuration_includes_is_checked() {
    let Some(w) = wall() else { return };
    let (code, text) = w.plain(&format!(
        "git init -q inc && git -C inc config include.path ../shared.gitconfig && \
         echo '* diff=x' > inc/.gitattributes && echo a > inc/f && git -C inc add -A && \
         git -C inc {COMMIT} && echo b > inc/f"
    ));
    assert_eq!(code, 0, "{text}");
    let attack = format!(
        "printf '[diff \"x\"]\\n\\ttextconv = {}\\n' > inc/shared.gitconfig && \
         git -C inc diff --no-ext-diff",
        driver(&w, "HOOKED")
    );
    let text = blocked(&w, &attack, "rm -f inc/shared.gitconfig").await;
    assert!(text.contains("included by"), "{text}");
}

/// The included file as it was before the call is the user's: its driver runs.
#[tokio::test]
async fn an_include_that_was_there_before_still_works() {
    let Some(w) = wall() else { return };
    let (code, text) = w.plain(&format!(
        "git init -q inc2 && git -C inc2 config include.path ../shared2.gitconfig && \
         printf '[alias]\\n\\tst = status --short\\n' > inc2/shared2.gitconfig && \
         echo a > inc2/f && git -C inc2 add f && git -C inc2 {COMMIT}"
    ));
    assert_eq!(code, 0, "{text}");
    let text = behind(&w, None, "git -C inc2 st && echo DONE").await;
    assert!(text.contains("DONE"), "{text}");
}

/// An unattended `git diff` of a changed file shows the change (an empty `diff.external`
/// once made every such diff fail: "external diff died").
#[tokio::test]
async fn git_diff_still_works_unattended() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    w.plain("echo changed > src/f");
    for engine in [None, Some(Engine::Namespaces), Some(Engine::Landlock)] {
        let text = behind(&w, engine, "git -C src diff").await;
        assert!(text.contains("+changed"), "{text}");
        assert!(!text.contains("external diff died"), "{text}");
    }
}

/// The other end of a local push starts without the call's git settings (git clears
/// them), so a hook written into the pushed-to repository during the call ran there; the
/// front gives them back, and the hook goes through the gate.
#[tokio::test]
async fn the_other_end_of_a_local_push_runs_no_hook_the_call_wrote() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    let attack = format!(
        "git init -q --bare x && printf '#!/bin/sh\\ntouch {}/HOOKED\\n' > x/hooks/post-receive && \
         chmod +x x/hooks/post-receive && git -C src push -q ../x HEAD:refs/heads/y",
        w.ws.display()
    );
    blocked(&w, &attack, "rm -rf x").await;
}
