//! What bash can read and reach behind the wall (issue 40): people's files hidden by
//! default with only what work needs shown read-only, no host socket anywhere outside the
//! workspace, no kernel keyring, masks that hold inside the workspace, no workspace that
//! holds the home, a private TMPDIR. Each attack is first run plainly, where it must work.
//!
//! Shown able to fail: run against main before these changes (a worktree of 88f306a with
//! this file copied in), every test here failed at its first attack: the home's
//! `.bash_history` and `.codex/auth.json` were read, the socket under the target folder
//! connected, `keyctl` read the planted key, the masked `secrets/` in the workspace was
//! read, the home was accepted as a workspace, and the TMPDIR was 755.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};

use paddock_protocol::ProtectionKind;
use paddock_sandbox::Engine;
use paddock_tools::ToolEnv;
use serde_json::json;

use crate::tools_support::call;
use crate::wall::{Wall, connect_py, connected, unix_listener, wall};

/// The wall under each engine that hides files: bubblewrap, then the helper's namespaces.
fn engines(w: &Wall) -> Vec<(&'static str, ToolEnv)> {
    let mut ns = ToolEnv::clone(&w.env);
    ns.sandbox.strongest = Some(Engine::Namespaces);
    vec![("bubblewrap", ToolEnv::clone(&w.env)), ("namespaces", ns)]
}

async fn run(env: &ToolEnv, command: &str) -> String {
    call(env, "bash", json!({"command": command})).await.text
}

fn plant(base: &Path, rel: &str, text: &str) -> PathBuf {
    let path = base.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// Class 1: the home is hidden whole, so files on no list stay out of reach too.
#[tokio::test]
async fn the_home_is_hidden_by_default() {
    let Some(w) = wall() else { return };
    let planted = [
        (".bash_history", "PLANTED-HISTORY"),
        (".config/git/credentials", "PLANTED-GIT-XDG"),
        (
            "snap/firefox/common/.mozilla/firefox/p/logins.json",
            "PLANTED-SNAP-FIREFOX",
        ),
        (
            ".var/app/org.chromium.Chromium/config/chromium/Default/Cookies",
            "PLANTED-FLATPAK-CHROMIUM",
        ),
        (
            ".config/BraveSoftware/Brave-Browser/Default/Login Data",
            "PLANTED-BRAVE",
        ),
        (".claude/.credentials.json", "PLANTED-CLAUDE"),
        (".codex/auth.json", "PLANTED-CODEX"),
        (".config/containers/auth.json", "PLANTED-PODMAN"),
        (".vault-token", "PLANTED-VAULT"),
        (".terraform.d/credentials.tfrc.json", "PLANTED-TERRAFORM"),
        (".pgpass", "PLANTED-PGPASS"),
        (".config/rclone/rclone.conf", "PLANTED-RCLONE"),
        ("Documents/taxes.txt", "PLANTED-DOCUMENT"),
        (".config/tool-nobody-listed/token", "PLANTED-UNLISTED"),
    ];
    for (rel, proof) in planted {
        let path = plant(&w.home, rel, proof);
        w.blocks(&format!("cat '{}'", path.display()), proof).await;
        for (engine, env) in engines(&w) {
            let seen = run(&env, &format!("cat '{}'", path.display())).await;
            assert!(!seen.contains(proof), "{engine} let {rel} through: {seen}");
        }
    }
    // Not even the names show.
    let list = format!("ls -A '{}'", w.home.display());
    for (engine, env) in engines(&w) {
        let seen = run(&env, &list).await;
        assert!(!seen.contains("Documents"), "{engine}: {seen}");
    }
    // Another person's home, where this user can write one (CI runs as root).
    let other = PathBuf::from(format!("/home/paddock-wall-other-{}", std::process::id()));
    if std::fs::create_dir_all(&other).is_ok() {
        let path = plant(&other, "notes.txt", "PLANTED-OTHER-HOME");
        w.blocks(&format!("cat '{}'", path.display()), "PLANTED-OTHER-HOME")
            .await;
        let _ = std::fs::remove_dir_all(&other);
    }
}

/// Class 1, the other half: toolchain caches, `readablePaths` and git's configuration (its
/// credentials gone) stay readable, read-only; the status lists them.
#[tokio::test]
async fn what_work_needs_stays_readable() {
    let Some(mut w) = wall() else { return };
    let cache = plant(&w.home, ".npm/_cacache/index", "NPM-CACHE");
    let notes = plant(&w.home, "notes/todo.txt", "USER-NOTES");
    plant(
        &w.home,
        ".gitconfig",
        "[user]\n\tname = Wall Tester\n[credential]\n\thelper = store\n\
         [http]\n\textraHeader = AUTHORIZATION: basic PLANTED-HEADER\n",
    );
    w.env.sandbox.readable = vec![w.home.join("notes")];
    for (engine, env) in engines(&w) {
        let seen = run(
            &env,
            &format!("cat '{}' '{}'", cache.display(), notes.display()),
        )
        .await;
        assert!(
            seen.contains("NPM-CACHE") && seen.contains("USER-NOTES"),
            "{engine}: {seen}"
        );
        let seen = run(
            &env,
            &format!("echo x >> '{}' && echo WROTE", cache.display()),
        )
        .await;
        assert!(!seen.contains("WROTE"), "{engine} wrote a cache: {seen}");
        let seen = run(&env, "git config --global --list").await;
        assert!(seen.contains("user.name=Wall Tester"), "{engine}: {seen}");
        assert!(
            !seen.contains("PLANTED-HEADER") && !seen.contains("helper"),
            "{engine} showed git's credentials: {seen}"
        );
    }
    let status = w.env.sandbox_status();
    let shown = |p: &Path| status.readable_roots.contains(&p.display().to_string());
    assert!(
        shown(&w.home.join(".npm")) && shown(&w.home.join("notes")),
        "{status:?}"
    );
    let secrets = &status.protection(ProtectionKind::Secrets).unwrap().detail;
    assert!(secrets.contains("git's config"), "{secrets}");
}

/// Class 2: a Unix socket anywhere outside the workspace (the home, a readable folder, the
/// system's emptied folders, a folder the wall leaves visible) is out of reach; the
/// command's own sockets in the workspace still work.
#[tokio::test]
async fn no_unix_socket_outside_the_workspace_is_reachable() {
    let Some(mut w) = wall() else { return };
    let readable = w.home.join("notes");
    std::fs::create_dir_all(&readable).unwrap();
    w.env.sandbox.readable = vec![readable.clone()];
    let pid = std::process::id();
    let mut places = vec![
        w.home.join("agent.sock"),
        readable.join("editor.sock"),
        w.outside.join("visible.sock"),
        PathBuf::from(format!("/var/tmp/paddock-reach-{pid}.sock")),
        PathBuf::from(format!("/dev/shm/paddock-reach-{pid}.sock")),
        PathBuf::from(format!("/tmp/paddock-reach-{pid}.sock")),
    ];
    // Places only root can write, where the tests run as root: the wall must not rely on
    // sockets living where users usually put them.
    for dir in ["/var/lib", "/opt", "/etc"] {
        let probe = Path::new(dir).join(format!(".paddock-reach-probe-{pid}"));
        if std::fs::write(&probe, "").is_ok() {
            let _ = std::fs::remove_file(&probe);
            places.push(Path::new(dir).join(format!("paddock-reach-{pid}.sock")));
        }
    }
    for path in &places {
        let listener = unix_listener(path);
        w.blocks(&connect_py(path), "CONNECTED").await;
        assert!(connected(&listener), "the plain run should have connected");
        for (engine, env) in engines(&w) {
            run(&env, &connect_py(path)).await;
            assert!(!connected(&listener), "{engine} reached {}", path.display());
        }
        let _ = std::fs::remove_file(path);
    }
    // The workspace's own socket, made by the command itself, works.
    let own = format!(
        "{py} -c \"import socket,os; p='own.sock'; s=socket.socket(socket.AF_UNIX); s.bind(p); \
         s.listen(); c=socket.socket(socket.AF_UNIX); c.connect(p); print('OWN-OK')\"",
        py = crate::wall::PY
    );
    for (engine, env) in engines(&w) {
        let _ = std::fs::remove_file(w.ws.join("own.sock"));
        let seen = run(&env, &own).await;
        assert!(seen.contains("OWN-OK"), "{engine}: {seen}");
    }
    let status = w.env.sandbox_status();
    let sockets = &status.protection(ProtectionKind::Sockets).unwrap().detail;
    assert!(sockets.contains("emptied"), "{sockets}");
}

/// Joins a new session keyring, as a desktop login does, so a key added to `@s` is in
/// this process's session (inherited by what it starts).
fn join_session_keyring() {
    #[allow(unsafe_code)]
    // SAFETY: keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL) takes no memory from us.
    let rc = unsafe { libc::syscall(libc::SYS_keyctl, 1 as libc::c_long, std::ptr::null::<u8>()) };
    assert!(rc >= 0, "could not join a session keyring");
}

/// Class 3: a secret in the user's session keyring is out of reach of `keyctl`.
#[tokio::test]
async fn the_kernel_keyring_is_out_of_reach() {
    let Some(w) = wall() else { return };
    if std::process::Command::new("keyctl")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("PADDOCK_REQUIRE_SANDBOX").as_deref() != Ok("1"),
            "keyctl (keyutils) is needed for this test"
        );
        return;
    }
    join_session_keyring();
    let name = format!("paddock-wall-{}", std::process::id());
    let added = std::process::Command::new("keyctl")
        .args(["add", "user", &name, "PLANTED-KEYRING-SECRET", "@s"])
        .output()
        .unwrap();
    assert!(added.status.success(), "{added:?}");
    let attack = format!("keyctl pipe $(keyctl search @s user {name}); echo");
    w.blocks(&attack, "PLANTED-KEYRING-SECRET").await;
    for (engine, env) in engines(&w) {
        let seen = run(&env, &attack).await;
        assert!(!seen.contains("PLANTED-KEYRING-SECRET"), "{engine}: {seen}");
        let seen = run(&env, "keyctl show @s").await;
        assert!(!seen.contains(&name), "{engine} listed the key: {seen}");
    }
    let mut ll = ToolEnv::clone(&w.env);
    ll.sandbox.strongest = Some(Engine::Landlock);
    let seen = run(&ll, &attack).await;
    assert!(!seen.contains("PLANTED-KEYRING-SECRET"), "landlock: {seen}");
}

/// Class 6: masks are mounted after the workspace, so what the project hides and
/// Paddock's own folders stay hidden when they are inside the workspace.
#[tokio::test]
async fn masks_hold_inside_the_workspace() {
    let Some(mut w) = wall() else { return };
    let secret = plant(&w.ws, "secrets/key.txt", "PLANTED-PROJECT-SECRET");
    let own = plant(&w.ws, "paddock-data/trust.json", "PLANTED-TRUST");
    w.env.sandbox.hidden = vec![w.ws.join("secrets")];
    w.env.sandbox.own = vec![w.ws.join("paddock-data")];
    w.blocks("cat secrets/key.txt", "PLANTED-PROJECT-SECRET")
        .await;
    for (engine, env) in engines(&w) {
        let seen = run(&env, "cat secrets/key.txt paddock-data/trust.json").await;
        assert!(
            !seen.contains("PLANTED-PROJECT-SECRET") && !seen.contains("PLANTED-TRUST"),
            "{engine}: {seen}"
        );
        let seen = run(&env, "echo '{}' > paddock-data/trust.json && echo WROTE").await;
        assert!(
            !seen.contains("WROTE"),
            "{engine} edited Paddock's trust: {seen}"
        );
    }
    assert_eq!(std::fs::read_to_string(&own).unwrap(), "PLANTED-TRUST");
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "PLANTED-PROJECT-SECRET"
    );
}

/// Class 6: a workspace that holds the home (or its config folder) is refused, for bash and
/// the file tools alike; a project inside the home is fine.
#[tokio::test]
async fn a_workspace_holding_the_home_is_refused() {
    let Some(w) = wall() else { return };
    plant(&w.home, ".config/gh/hosts.yml", "PLANTED-GH-TOKEN");
    plant(&w.home, "code/app/main.rs", "fn main() {}");
    for root in [w.home.clone(), w.home.join(".config")] {
        let mut env = ToolEnv::clone(&w.env);
        env.workspace_root = root.clone();
        let seen = call(
            &env,
            "bash",
            json!({"command": "cat gh/hosts.yml .config/gh/hosts.yml"}),
        )
        .await;
        assert!(
            seen.is_error && !seen.text.contains("PLANTED-GH-TOKEN"),
            "{}: {}",
            root.display(),
            seen.text
        );
        assert!(
            seen.text.contains("will not let an agent work there"),
            "{}",
            seen.text
        );
        let read = call(&env, "file_read", json!({"path": ".config/gh/hosts.yml"})).await;
        assert!(
            read.is_error && !read.text.contains("PLANTED"),
            "{}",
            read.text
        );
    }
    let mut env = ToolEnv::clone(&w.env);
    env.workspace_root = w.home.join("code/app");
    let seen = call(&env, "bash", json!({"command": "cat main.rs"})).await;
    assert!(seen.text.contains("fn main"), "{}", seen.text);
}

/// Class 10: the command's TMPDIR is the user's alone.
#[tokio::test]
async fn the_tmpdir_is_private() {
    let Some(w) = wall() else { return };
    let seen = w.confined("stat -c %a \"$TMPDIR\"").await;
    assert!(seen.text.starts_with("700\n"), "{}", seen.text);
}

/// A host socket that closes between the wall's plan and bubblewrap's mounts (a CI run saw
/// another test's socket go) leaves nothing to mask: bubblewrap refuses to mount over
/// nothing in a read-only folder, the wall sees that the command never ran, drops the mask
/// and starts it again. Without that, the command failed with bubblewrap's error.
#[tokio::test]
async fn a_socket_gone_before_the_mounts_is_not_an_error() {
    let Some(mut w) = wall() else { return };
    let readable = w.home.join("notes");
    std::fs::create_dir_all(&readable).unwrap();
    w.env.sandbox.readable = vec![readable.clone()];
    let socket = readable.join("gone.sock");
    let _listener = unix_listener(&socket);
    let mut confinement = paddock_sandbox::Confinement::prepare(
        &w.env.sandbox,
        w.env.workspace_mode,
        &w.ws,
        std::slice::from_ref(&w.ws),
    )
    .unwrap();
    let mut cmd = confinement.command("/bin/sh".as_ref(), &["-c".as_ref(), "echo RAN".as_ref()]);
    // Gone after the plan, still listed by the kernel (its listener is open).
    std::fs::remove_file(&socket).unwrap();
    let out = cmd.current_dir(&w.ws).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "bubblewrap mounted over nothing?");
    assert!(stderr.contains("gone.sock"), "{stderr}");
    assert!(
        confinement.lost_a_mask(out.stdout.len() as u64, &stderr),
        "not seen as a vanished mask: {stderr}"
    );
    // A command that ran and failed alike is not started again.
    assert!(!confinement.lost_a_mask(4, &stderr));
    let again = confinement
        .command("/bin/sh".as_ref(), &["-c".as_ref(), "echo RAN".as_ref()])
        .current_dir(&w.ws)
        .output()
        .await
        .unwrap();
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("RAN"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    // And the bash tool, which plans anew, runs as ever with the socket gone.
    let seen = run(&w.env, "echo TOOL-RAN").await;
    assert!(seen.contains("TOOL-RAN"), "{seen}");
}
