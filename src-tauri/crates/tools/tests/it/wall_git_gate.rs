//! Issue 50, class 9: a call nobody looked at (a rule allowed every part of it) may write a
//! hook or a driver into a repository and run a rule-allowed git command in the same call;
//! git must then run only the hooks and configured programs that were the user's before the
//! call began. The after-call hold comes too late for these.
//!
//! Shown able to fail: on main before this change (1f64ef0), every attack below ran its
//! program inside the call (the control lines prove each works plainly).
#![cfg(target_os = "linux")]

use paddock_sandbox::Engine;
use paddock_tools::ToolEnv;
use serde_json::json;

use crate::tools_support::call;
use crate::wall::{Wall, wall};

/// git arguments for a commit anywhere behind the wall (no user configuration there).
pub(crate) const COMMIT: &str =
    "-c user.name=a -c user.email=a@example.org commit -q --allow-empty -m x";

/// An executable hook at `path` (relative to the workspace) that leaves `marker`.
fn hook_line(path: &str, w: &Wall, marker: &str) -> String {
    format!(
        "mkdir -p \"$(dirname {path})\" && printf '#!/bin/sh\\ntouch {}/{marker}\\n' > {path} && \
         chmod +x {path}",
        w.ws.display()
    )
}

/// Behind which walls each attack is tried: the strongest this host has, the helper's own
/// namespaces, and Landlock alone (no mounts: the front is found on `PATH` only).
const EVERY_WALL: &[Option<Engine>] = &[None, Some(Engine::Namespaces), Some(Engine::Landlock)];

/// Runs `attack` plainly (its program must run), then, behind each of `walls`, resets with
/// `reset` and runs it as an unattended call: the program must not run, and the command
/// must still finish. Returns what the calls showed.
pub(crate) async fn blocked_behind(
    w: &Wall,
    attack: &str,
    reset: &str,
    walls: &[Option<Engine>],
) -> String {
    let marker = w.ws.join("HOOKED");
    let (_, text) = w.plain(&format!("{attack}; echo DONE"));
    assert!(marker.exists(), "the attack does not run plainly: {text}");
    std::fs::remove_file(&marker).unwrap();
    let mut shown = String::new();
    for engine in walls {
        w.plain(reset);
        let text = behind(w, *engine, &format!("{attack}; echo DONE")).await;
        assert!(text.contains("DONE"), "{text}");
        assert!(!marker.exists(), "the program ran: {text}");
        shown.push_str(&text);
    }
    shown
}

pub(crate) async fn blocked(w: &Wall, attack: &str, reset: &str) -> String {
    blocked_behind(w, attack, reset, EVERY_WALL).await
}

/// With a trusted `pre-commit` elsewhere in the workspace, git finds Paddock's script for
/// that name, which names the hook it did not run.
#[tokio::test]
async fn a_hook_written_into_a_new_repository_does_not_run_in_the_same_call() {
    let Some(w) = wall() else { return };
    w.plain(&format!(
        "git init -q own && {}",
        hook_line("own/.git/hooks/pre-commit", &w, "OWN-RAN")
    ));
    let attack = format!(
        "git init -q r && {} && git -C r {COMMIT}",
        hook_line("r/.git/hooks/pre-commit", &w, "HOOKED")
    );
    let text = blocked(&w, &attack, "rm -rf r").await;
    assert!(text.contains("git's pre-commit hook was not run"), "{text}");
    assert!(
        !w.ws.join("OWN-RAN").exists(),
        "another repository's hook ran: {text}"
    );
}

/// An existing repository without a hooks folder: the call adds one.
#[tokio::test]
async fn a_hooks_folder_added_to_an_existing_repository_does_not_run() {
    let Some(w) = wall() else { return };
    w.plain("git init -q top && rm -rf top/.git/hooks");
    let attack = format!(
        "{} && git -C top {COMMIT}",
        hook_line("top/.git/hooks/post-commit", &w, "HOOKED")
    );
    blocked(&w, &attack, "rm -rf top/.git/hooks").await;
}

/// A new repository whose `core.hooksPath` names a folder of executables that were in the
/// workspace before the call (written plainly by an earlier call): not hooks of any
/// repository then, so not trusted now.
#[tokio::test]
async fn a_hooks_path_set_during_the_call_is_not_followed() {
    let Some(w) = wall() else { return };
    let (_, text) = w.plain(&hook_line("tools/pre-commit", &w, "HOOKED"));
    assert!(w.ws.join("tools/pre-commit").exists(), "{text}");
    let attack =
        format!("git init -q r && git -C r config core.hooksPath ../tools && git -C r {COMMIT}");
    blocked(&w, &attack, "rm -rf r").await;
}

/// The repository's own hooks, in `.git/hooks` and in its `core.hooksPath` folder, still run
/// under a rule: the user wrote them.
#[tokio::test]
async fn the_repositorys_own_hooks_still_run_in_an_unattended_call() {
    let Some(w) = wall() else { return };
    let setup = format!(
        "git init -q own && {} && git init -q husky && git -C husky config core.hooksPath \
         .husky && {}",
        hook_line("own/.git/hooks/pre-commit", &w, "OWN-RAN"),
        hook_line("husky/.husky/pre-commit", &w, "HUSKY-RAN")
    );
    let (code, text) = w.plain(&setup);
    assert_eq!(code, 0, "{text}");
    let command = format!("git -C own {COMMIT} && git -C husky {COMMIT} && echo DONE");
    for engine in EVERY_WALL {
        let text = behind(&w, *engine, &command).await;
        assert!(text.contains("DONE"), "{text}");
        for marker in ["OWN-RAN", "HUSKY-RAN"] {
            assert!(w.ws.join(marker).exists(), "{marker}: {text}");
            std::fs::remove_file(w.ws.join(marker)).unwrap();
        }
    }
}

/// `command` as an unattended call behind `engine` (`None`: the strongest).
pub(crate) async fn behind(w: &Wall, engine: Option<Engine>, command: &str) -> String {
    let mut env = ToolEnv::clone(&w.env);
    if engine.is_some() {
        env.sandbox.strongest = engine;
    }
    let seen = call(&env, "bash", json!({"command": command})).await;
    format!("behind {engine:?}:\n{}", seen.text)
}

/// A driver program in `ws/MARKER` form: leaves `marker` and passes its input through.
pub(crate) fn driver(w: &Wall, marker: &str) -> String {
    format!("touch {}/{marker}; cat", w.ws.display())
}

/// A new repository whose configuration names a clean filter that `git add` would run: git
/// is not run at all, and says why.
#[tokio::test]
async fn a_driver_configured_during_the_call_does_not_run() {
    let Some(w) = wall() else { return };
    let attack = format!(
        "git init -q r && echo '* filter=x' > r/.gitattributes && echo a > r/f && \
         git -C r config filter.x.clean '{}' && git -C r add f",
        driver(&w, "HOOKED")
    );
    let text = blocked(&w, &attack, "rm -rf r").await;
    assert!(text.contains("git was not run"), "{text}");
    assert!(text.contains("filter.x.clean"), "{text}");
}

/// git by its full path, as a rule matches it (`/usr/bin/git add` is `git add`), goes
/// through the same front behind walls that mount (Landlock alone cannot show a file over
/// another: DESIGN names that gap).
#[tokio::test]
async fn git_by_its_full_path_is_held_to_the_same() {
    let Some(w) = wall() else { return };
    let git = ["/usr/bin/git", "/usr/local/bin/git"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
        .expect("no git at /usr/bin or /usr/local/bin");
    let attack = format!(
        "{git} init -q r && echo '* filter=x' > r/.gitattributes && echo a > r/f && \
         {git} -C r config filter.x.clean '{}' && {git} -C r add f",
        driver(&w, "HOOKED")
    );
    let walls = [None, Some(Engine::Namespaces)];
    let text = blocked_behind(&w, &attack, "rm -rf r", &walls).await;
    assert!(text.contains("git was not run"), "{text}");
}

/// Behind Landlock alone the front is found on `PATH` only: git by its path runs past it,
/// and the wall says so, so that the argument rules ask for such a call
/// (`Rules::with_git_paths_unfronted`, tested in the rules crate). Fails if the wall claims
/// to cover git's own files where it mounts nothing.
#[test]
fn only_walls_that_mount_cover_git_by_its_path() {
    let Some(w) = wall() else { return };
    let mut config = w.env.sandbox.clone();
    config.strongest = Some(Engine::Landlock);
    assert!(!paddock_wall::front_covers_git_paths(&config));
    config.strongest = Some(Engine::Namespaces);
    assert!(paddock_wall::front_covers_git_paths(&config));
    config.enabled = false;
    assert!(!paddock_wall::front_covers_git_paths(&config));
}

/// An existing repository's `.git` stays writable (objects, refs, the index): a
/// `commondir` written there makes git read another folder's configuration.
#[tokio::test]
async fn a_commondir_written_during_the_call_does_not_bring_a_driver() {
    let Some(w) = wall() else { return };
    let (code, text) =
        w.plain("git init -q top && echo '* filter=x' > top/.gitattributes && echo a > top/f");
    assert_eq!(code, 0, "{text}");
    let attack = format!(
        "mkdir -p evil && cp -r top/.git/. evil/ && printf '[filter \"x\"]\\n\\tclean = {}\\n' \
         >> evil/config && echo ../../evil > top/.git/commondir && git -C top add f",
        driver(&w, "HOOKED")
    );
    blocked(&w, &attack, "rm -rf evil top/.git/commondir").await;
}

/// The repository's own drivers, configured before the call, still run under a rule.
#[tokio::test]
async fn the_repositorys_own_driver_still_runs_in_an_unattended_call() {
    let Some(w) = wall() else { return };
    let (code, text) = w.plain(&format!(
        "git init -q own && echo '* filter=x' > own/.gitattributes && echo a > own/f && \
         git -C own config filter.x.clean '{}'",
        driver(&w, "OWN-RAN")
    ));
    assert_eq!(code, 0, "{text}");
    let command = "git -C own rm -q --cached f && git -C own add f && echo DONE";
    w.plain("git -C own add f");
    for engine in EVERY_WALL {
        let text = behind(&w, *engine, command).await;
        assert!(text.contains("DONE"), "{text}");
        assert!(w.ws.join("OWN-RAN").exists(), "{text}");
        std::fs::remove_file(w.ws.join("OWN-RAN")).unwrap();
    }
}

/// The front is shown over the host's git, never written into it: the helper's own
/// namespaces once made the mount point by creating the file, which emptied `/usr/bin/git`
/// (and every hard link of it) where the wall runs as root.
#[tokio::test]
async fn the_hosts_git_is_left_as_it_was() {
    let Some(w) = wall() else { return };
    let gits: Vec<(&str, Vec<u8>)> = ["/usr/bin/git", "/usr/local/bin/git"]
        .into_iter()
        .filter_map(|p| std::fs::read(p).ok().map(|b| (p, b)))
        .collect();
    assert!(!gits.is_empty());
    for engine in EVERY_WALL {
        let text = behind(&w, *engine, "git --version && /usr/bin/git --version").await;
        assert!(text.contains("git version"), "{text}");
        for (path, bytes) in &gits {
            assert!(
                std::fs::read(path).unwrap() == *bytes,
                "a wall changed {path}"
            );
        }
    }
}

/// The gate's own folder (the list of what was found, the scripts) is Paddock's: a call
/// nobody looked at may not add its hook to the list or rewrite the front, behind any wall.
/// Able to fail: the files' modes do not stop root, so only the wall keeps them (with the
/// folder among the writable places, both lines print).
#[tokio::test]
async fn the_call_cannot_change_the_gates_folder() {
    let Some(w) = wall() else { return };
    let attack = "front=$(command -v git); dir=${front%/bin/git}; \
                  echo 1:2:3.000000000 >> \"$dir/.trusted\" && echo LIST-CHANGED; \
                  echo 'exit 0' > \"$front\" && echo FRONT-CHANGED; \
                  case $dir in /tmp/*|/var/tmp/*) echo GATED;; esac";
    for engine in EVERY_WALL {
        let text = behind(&w, *engine, attack).await;
        assert!(
            text.contains("GATED"),
            "the front is not first on PATH: {text}"
        );
        assert!(!text.contains("LIST-CHANGED"), "{text}");
        assert!(!text.contains("FRONT-CHANGED"), "{text}");
    }
}

/// Review finding 2: a hook linked to a program on a read-only mount (or to a trusted
/// script) passed the identity check, which ignored where the hook lies. `make` runs the
/// call's Makefile. The hook must be found at that very path before the call.
#[tokio::test]
async fn a_hook_linked_to_a_system_program_does_not_run() {
    let Some(w) = wall() else { return };
    w.plain(&format!(
        "git init -q own && {}",
        hook_line("own/.git/hooks/pre-commit", &w, "OWN-RAN")
    ));
    let make = ["/usr/bin/make", "/bin/make"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
        .expect("make is installed");
    let attack = format!(
        "git init -q r && ln -s {make} r/.git/hooks/pre-commit && printf 'all:\\n\\ttouch {}/HOOKED\\n' \
         > r/Makefile && git -C r {COMMIT}",
        w.ws.display()
    );
    let walls = [None, Some(Engine::Namespaces)];
    let text = blocked_behind(&w, &attack, "rm -rf r", &walls).await;
    assert!(text.contains("hook was not run"), "{text}");
}

/// Review finding 1: an option the front did not know, before `-C`, hid the repository
/// from it and git ran. Such an option is refused now.
#[tokio::test]
async fn an_unknown_option_before_the_command_does_not_hide_the_repository() {
    let Some(w) = wall() else { return };
    let exec_path = String::from_utf8(
        std::process::Command::new("git")
            .arg("--exec-path")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let attack = format!(
        "git init -q r && echo '* filter=x' > r/.gitattributes && echo a > r/f && \
         git -C r config filter.x.clean '{}' && git --exec-path={} -C r add f",
        driver(&w, "HOOKED"),
        exec_path.trim()
    );
    let text = blocked(&w, &attack, "rm -rf r").await;
    assert!(text.contains("git was not run"), "{text}");
}

/// Review finding 3: git started by git (a submodule's status, a hook's or an alias's git)
/// went to the program itself, found first on the `PATH` git gives what it starts, and never
/// past the front: the submodule's configuration, written during the call, ran its filter.
/// Able to fail: before the gate's exec-path folder, `HOOKED` appeared behind every wall.
#[tokio::test]
async fn git_started_by_git_is_checked_too() {
    let Some(w) = wall() else { return };
    let (code, text) = w.plain(&format!(
        "git init -q src && echo a > src/f && echo '* filter=x' > src/.gitattributes && \
         git -C src add -A && git -C src {COMMIT} && git init -q own && \
         git -C own -c protocol.file.allow=always submodule -q add ../src sub && \
         git -C own {COMMIT}"
    ));
    assert_eq!(code, 0, "{text}");
    let attack = format!(
        "git -C own/sub config filter.x.clean '{}' && sleep 1 && touch own/sub/f && \
         git -C own status --short",
        driver(&w, "HOOKED")
    );
    let text = blocked(&w, &attack, "git -C own/sub config --unset filter.x.clean").await;
    assert!(text.contains("git was not run"), "{text}");
}

/// Review findings 4 and 6: a program given to git on its own command line (a setting that
/// outranks Paddock's, a clone's settings for the new repository, a command for rebase to
/// run) is refused in a command nobody approved; git started by another program the rules
/// allowed never met the rules' question about it. Able to fail: each attack runs plainly.
#[tokio::test]
async fn a_program_named_on_gits_command_line_does_not_run() {
    let Some(w) = wall() else { return };
    let (code, text) = w.plain(&format!(
        "git init -q src && echo a > src/f && echo '* filter=x' > src/.gitattributes && \
         git -C src add -A && git -C src {COMMIT}"
    ));
    assert_eq!(code, 0, "{text}");
    let marker = format!("{}/HOOKED", w.ws.display());
    for attack in [
        format!("git -C src -c alias.x='!touch {marker}' x"),
        format!(
            "git clone -q -c filter.x.smudge='{}' src d",
            driver(&w, "HOOKED")
        ),
        format!(
            "git -C src -c user.name=a -c user.email=a@example.org rebase -q -x 'touch {marker}' --root"
        ),
    ] {
        let text = blocked(&w, &attack, "rm -rf d").await;
        assert!(text.contains("git was not run"), "{attack}: {text}");
    }
}

/// git's own round trips keep working behind the gate: a clone over `file://` (git starts
/// `git-upload-pack` through the gate's exec-path folder), a fetch, a push.
#[tokio::test]
async fn cloning_fetching_and_pushing_still_work_unattended() {
    let Some(w) = wall() else { return };
    let (code, text) = w.plain(&format!(
        "git init -q src && echo a > src/f && git -C src add -A && git -C src {COMMIT} && \
         git init -q --bare bare.git"
    ));
    assert_eq!(code, 0, "{text}");
    let command = format!(
        "git clone -q file://{ws}/src d && git -C d fetch -q origin && \
         git -C d push -q file://{ws}/bare.git HEAD:refs/heads/x && git -C d log --oneline && echo DONE",
        ws = w.ws.display()
    );
    for engine in EVERY_WALL {
        w.plain("rm -rf d");
        let text = behind(&w, *engine, &command).await;
        assert!(text.contains("DONE"), "{engine:?}: {text}");
    }
}

/// A repository with two commits at `src` (made plainly, before any call).
pub(crate) fn two_commits(w: &Wall) {
    let (code, text) = w.plain(&format!(
        "git init -q src && echo a > src/f && git -C src add -A && git -C src {COMMIT} && \
         echo b > src/f && git -C src {COMMIT} -a"
    ));
    assert_eq!(code, 0, "{text}");
}

/// Review 2, finding 1: a rebase's list of steps forged by the call (`exec` lines), then
/// a rule-allowed `git rebase --continue`, ran the list. Able to fail: it runs plainly, and
/// ran behind every wall before the front read the list.
#[tokio::test]
async fn a_forged_rebase_todo_does_not_run() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    let attack = format!(
        "cd src && d=.git/rebase-merge && mkdir -p $d && git rev-parse HEAD > $d/orig-head && \
         git rev-parse HEAD~1 > $d/onto && git symbolic-ref HEAD > $d/head-name && \
         touch $d/interactive && : > $d/done && \
         printf 'exec touch {}/HOOKED\\n' > $d/git-rebase-todo && \
         git -c user.name=a -c user.email=a@example.org rebase --continue; cd ..",
        w.ws.display()
    );
    let text = blocked(&w, &attack, "rm -rf src/.git/rebase-merge").await;
    assert!(text.contains("holds `exec` lines"), "{text}");
}

/// Review 2, finding 5: the repository a push goes to is the one `receive-pack` names, not
/// where it starts; its configuration, written during the call, ran a program while refs
/// were listed. Able to fail: it runs plainly, and ran behind every wall before.
#[tokio::test]
async fn the_repository_a_push_goes_to_is_checked() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    w.plain("git init -q --bare alt.git");
    let attack = format!(
        "git init -q --bare evil.git && echo {ws}/alt.git/objects > \
         evil.git/objects/info/alternates && printf '[core]\\n\\talternateRefsCommand = touch \
         {ws}/HOOKED; true\\n' >> evil.git/config && git -C src push -q ../evil.git HEAD:x",
        ws = w.ws.display()
    );
    let text = blocked(&w, &attack, "rm -rf evil.git").await;
    assert!(text.contains("git was not run"), "{text}");
}

/// Review 2, findings 2–4: settings and programs in forms the first reading missed (an
/// abbreviated `--config`, a cluster, a `--` taken as an option's value, a command that runs
/// its argument). Able to fail: each runs plainly.
#[tokio::test]
async fn programs_in_other_spellings_do_not_run() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    let marker = format!("{}/HOOKED", w.ws.display());
    let (code, text) = w.plain(&format!(
        "printf '#!/bin/sh\\ntouch {marker}\\nexec git-upload-pack \"$@\"\\n' > up && chmod +x up \
         && echo '* filter=x' > src/.gitattributes && git -C src add -A && git -C src {COMMIT}"
    ));
    assert_eq!(code, 0, "{text}");
    for attack in [
        format!("git clone -q --conf=filter.x.smudge='touch {marker}; cat' src d"),
        format!(
            "git clone -q -b -- --upload-pack={}/up file://{}/src d",
            w.ws.display(),
            w.ws.display()
        ),
        format!(
            "printf 'connect git-upload-pack\\n\\n' | git remote-ext origin 'sh -c touch% {marker}'"
        ),
    ] {
        let text = blocked(&w, &attack, "rm -rf d").await;
        assert!(text.contains("git was not run"), "{attack}: {text}");
    }
}

/// Review 2, findings 8–9: a partial clone's lazy fetch (git's own `-c
/// fetch.negotiationAlgorithm=noop`) and a local submodule (`-c protocol.file.allow=always`)
/// still work in a command nobody approved.
#[tokio::test]
async fn partial_clones_and_local_submodules_still_work_unattended() {
    let Some(w) = wall() else { return };
    two_commits(&w);
    w.plain("git -C src config uploadpack.allowFilter true");
    let command = format!(
        "git clone -q --filter=blob:none file://{ws}/src pc && git -C pc log -p -1 >/dev/null \
         && git -C pc -c protocol.file.allow=always submodule -q add ../src sub && echo DONE",
        ws = w.ws.display()
    );
    for engine in EVERY_WALL {
        w.plain("rm -rf pc");
        let text = behind(&w, *engine, &command).await;
        assert!(text.contains("DONE"), "{engine:?}: {text}");
    }
}

/// git where there is no repository at all (`git config --file`, as `--global` in a plain
/// folder) runs: there is nothing a repository could name. Shown able to fail: CI's
/// workspace lay outside any visible repository and `git config --global --list` was refused.
#[tokio::test]
async fn git_outside_any_repository_still_runs() {
    let Some(w) = wall() else { return };
    let command = "d=$(mktemp -d) && cd \"$d\" && git config --file \"$d/c\" a.b x && \
                   git config --file \"$d/c\" --list && git rev-parse --git-dir; echo DONE";
    for engine in EVERY_WALL {
        let text = behind(&w, *engine, command).await;
        assert!(
            text.contains("a.b=x") && text.contains("DONE"),
            "{engine:?}: {text}"
        );
        assert!(text.contains("not a git repository"), "{engine:?}: {text}");
    }
}
