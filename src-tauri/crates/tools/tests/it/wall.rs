//! bash's wall, attacked the way a prompt-injected model would. Every case runs the attack
//! twice: with plain `bash -c` in the same workspace, where it must work (so the check can
//! fail), then through the bash tool, where the wall must stop it. Needs the full sandbox;
//! with `PADDOCK_REQUIRE_SANDBOX=1` (CI) a host without one fails instead of skipping.
#![cfg(target_os = "linux")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use paddock_protocol::{ProtectionKind, ProtectionState, SandboxEngine};
use paddock_sandbox::Engine;
use paddock_tools::ToolEnv;
use serde_json::json;

use crate::tools_support::{Seen, call, env_at};

pub(crate) const PY: &str = "/usr/bin/python3";

/// A workspace, a folder outside it, and a home with planted credentials, all under the
/// target's tmp folder (not /tmp, which the wall empties for reasons of its own).
pub(crate) struct Wall {
    pub _dir: tempfile::TempDir,
    pub ws: PathBuf,
    pub outside: PathBuf,
    pub home: PathBuf,
    pub env: ToolEnv,
}

pub(crate) fn wall() -> Option<Wall> {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (ws, outside, home) = (base.join("ws"), base.join("outside"), base.join("home"));
    for d in [&ws, &outside, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    for (rel, text) in [
        (".ssh/id_ed25519", "PLANTED-SSH-KEY"),
        (".aws/credentials", "PLANTED-AWS-KEY"),
        (".config/gcloud/credentials.db", "PLANTED-GCLOUD"),
        (".kube/config", "PLANTED-KUBE"),
        (".gnupg/private-keys-v1.d/k.key", "PLANTED-GPG"),
        (".docker/config.json", "PLANTED-DOCKER"),
        (".local/share/keyrings/login.keyring", "PLANTED-KEYRING"),
        (".netrc", "PLANTED-NETRC"),
        (
            ".local/share/paddock/sessions/other/s.jsonl",
            "PLANTED-OTHER-SESSION",
        ),
    ] {
        let path = home.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::write(outside.join("victim.txt"), "original").unwrap();
    let mut env = env_at(&ws);
    env.sandbox.home = Some(home.clone());
    let status = env.sandbox_status();
    if !status.fully_confined {
        assert!(
            std::env::var("PADDOCK_REQUIRE_SANDBOX").as_deref() != Ok("1"),
            "the full sandbox is required (PADDOCK_REQUIRE_SANDBOX=1): {}",
            status.summary
        );
        eprintln!("SKIPPED: no full sandbox here: {}", status.summary);
        return None;
    }
    Some(Wall {
        _dir: dir,
        ws,
        outside,
        home,
        env,
    })
}

impl Wall {
    /// The attack through the bash tool.
    pub(crate) async fn confined(&self, command: &str) -> Seen {
        call(&self.env, "bash", json!({"command": command})).await
    }

    /// The attack with plain `bash -c` in the workspace: (exit code, stdout + stderr).
    pub(crate) fn plain(&self, command: &str) -> (i32, String) {
        let out = Command::new("/bin/bash")
            .args(["-c", command])
            .current_dir(&self.ws)
            .output()
            .unwrap();
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        (out.status.code().unwrap_or(-1), text)
    }

    /// Runs `command` plainly (it must print `proof`), then confined (it must not).
    pub(crate) async fn blocks(&self, command: &str, proof: &str) {
        let (_, text) = self.plain(command);
        assert!(
            text.contains(proof),
            "the attack does not work even without the wall, so this case proves nothing: \
             {command}\n{text}"
        );
        let seen = self.confined(command).await;
        assert!(
            !seen.text.contains(proof),
            "the wall let it through: {command}\n{}",
            seen.text
        );
    }
}

/// A Unix socket listener at `path` that records whether anyone connected.
pub(crate) fn unix_listener(path: &Path) -> std::os::unix::net::UnixListener {
    let _ = std::fs::remove_file(path);
    let listener = std::os::unix::net::UnixListener::bind(path).unwrap();
    listener.set_nonblocking(true).unwrap();
    listener
}

pub(crate) fn connected(listener: &std::os::unix::net::UnixListener) -> bool {
    let mut any = false;
    while listener.accept().is_ok() {
        any = true;
    }
    any
}

pub(crate) fn connect_py(path: &Path) -> String {
    format!(
        "{PY} -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}'); print('CONNECTED')\"",
        path.display()
    )
}

/// Host sockets by path: /tmp (X11, ssh-agent), /run (D-Bus system bus, docker, the user's
/// runtime folder), /dev/shm.
#[tokio::test]
async fn host_unix_sockets_are_out_of_reach() {
    let Some(w) = wall() else { return };
    for dir in ["/tmp", "/run", "/dev/shm"] {
        let path = Path::new(dir).join(format!("paddock-wall-{}.sock", std::process::id()));
        let listener = unix_listener(&path);
        w.blocks(&connect_py(&path), "CONNECTED").await;
        assert!(connected(&listener), "the plain run should have connected");
        assert!(!connected(&listener), "the confined run connected to {dir}");
        let _ = std::fs::remove_file(&path);
    }
}

/// An abstract socket (X11 listens on one) lives in the network namespace.
#[tokio::test]
async fn abstract_sockets_are_out_of_reach() {
    let Some(w) = wall() else { return };
    let name = format!("paddock-wall-abstract-{}", std::process::id());
    let listener = Command::new(PY)
        .args([
            "-c",
            &format!(
                "import socket,time; s=socket.socket(socket.AF_UNIX); s.bind('\\0{name}'); s.listen(); time.sleep(30)"
            ),
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let attack = format!(
        "{PY} -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0{name}'); print('CONNECTED')\""
    );
    w.blocks(&attack, "CONNECTED").await;
    let mut listener = listener;
    let _ = listener.kill();
    let _ = listener.wait();
}

/// The keychain: the Secret Service on the session bus holds Paddock's own keys. With the
/// bus address in hand (the environment is scrubbed, but the path is guessable), the lookup
/// must still fail. Runs where the tests have a session bus (scripts/test.sh).
#[tokio::test]
async fn the_keychain_on_the_session_bus_is_out_of_reach() {
    let Some(w) = wall() else { return };
    let Some(bus) = std::env::var_os("DBUS_SESSION_BUS_ADDRESS") else {
        assert!(
            std::env::var("PADDOCK_REQUIRE_KEYCHAIN").as_deref() != Ok("1"),
            "a session bus is required (PADDOCK_REQUIRE_KEYCHAIN=1)"
        );
        return;
    };
    let bus = bus.to_string_lossy().into_owned();
    let stored = Command::new("sh")
        .args([
            "-c",
            "printf PLANTED-KEYCHAIN-SECRET | secret-tool store --label=paddock-wall service paddock-wall",
        ])
        .status()
        .unwrap();
    assert!(stored.success(), "could not plant the key");
    let attack =
        format!("DBUS_SESSION_BUS_ADDRESS='{bus}' secret-tool lookup service paddock-wall; echo");
    w.blocks(&attack, "PLANTED-KEYCHAIN-SECRET").await;
}

/// Credentials are not readable at all (not merely redacted: base64 would walk past that).
#[tokio::test]
async fn credentials_and_other_sessions_are_not_readable() {
    let Some(w) = wall() else { return };
    for (rel, proof) in [
        (".ssh/id_ed25519", "PLANTED-SSH-KEY"),
        (".aws/credentials", "PLANTED-AWS-KEY"),
        (".config/gcloud/credentials.db", "PLANTED-GCLOUD"),
        (".kube/config", "PLANTED-KUBE"),
        (".gnupg/private-keys-v1.d/k.key", "PLANTED-GPG"),
        (".docker/config.json", "PLANTED-DOCKER"),
        (".local/share/keyrings/login.keyring", "PLANTED-KEYRING"),
        (".netrc", "PLANTED-NETRC"),
        (
            ".local/share/paddock/sessions/other/s.jsonl",
            "PLANTED-OTHER-SESSION",
        ),
    ] {
        let path = w.home.join(rel);
        w.blocks(&format!("cat '{}'", path.display()), proof).await;
        // Encoded, the redaction would not know it: the file must be unreadable.
        let encoded = format!("base64 -w0 '{}' | rev", path.display());
        let (_, plain) = w.plain(&encoded);
        let seen = w.confined(&encoded).await;
        assert!(!plain.trim().is_empty());
        assert!(!seen.text.contains(plain.trim()), "{rel} leaked encoded");
    }
}

/// Outside the workspace nothing changes: contents, permissions, timestamps, names.
#[tokio::test]
async fn nothing_outside_the_workspace_changes() {
    let Some(w) = wall() else { return };
    let victim = w.outside.join("victim.txt");
    let v = victim.display();
    let o = w.outside.display();
    let cases = [
        format!("echo pwned > '{v}'"),
        format!("echo pwned >> '{v}'"),
        format!("chmod 777 '{v}'"),
        format!("touch -d '2001-01-01' '{v}'"),
        format!("mv '{v}' '{o}/moved.txt'"),
        format!("rm -f '{v}'"),
        format!("mkdir '{o}/made'"),
        format!("ln -s / '{o}/link'"),
    ];
    for attack in cases {
        let before = snapshot(&w.outside);
        let seen = w.confined(&attack).await;
        assert_eq!(
            snapshot(&w.outside),
            before,
            "'{attack}' changed something outside:\n{}",
            seen.text
        );
        // Plainly, the same command does change it (then it is put back).
        w.plain(&attack);
        assert_ne!(snapshot(&w.outside), before, "'{attack}' changes nothing");
        reset(&w.outside);
    }
}

/// What a folder looks like: names, contents, modes, modification times.
fn snapshot(dir: &Path) -> Vec<(String, String, u32, i64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            (
                e.file_name().to_string_lossy().into_owned(),
                text,
                meta.mode(),
                meta.mtime(),
            )
        })
        .collect();
    out.sort();
    out
}

fn reset(outside: &Path) {
    let _ = std::fs::remove_dir_all(outside);
    std::fs::create_dir_all(outside).unwrap();
    let victim = outside.join("victim.txt");
    std::fs::write(&victim, "original").unwrap();
    let mtime = filetime_of(&victim);
    let _ = mtime;
}

fn filetime_of(path: &Path) -> i64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap().mtime()
}

/// A hard link already in the workspace is the outside file: appending through it must not
/// reach it (bubblewrap keeps such files read-only).
#[tokio::test]
async fn a_hard_link_into_the_workspace_does_not_carry_writes_out() {
    let Some(w) = wall() else { return };
    let victim = w.outside.join("linked.txt");
    std::fs::write(&victim, "original").unwrap();
    std::fs::hard_link(&victim, w.ws.join("linked.txt")).unwrap();
    let seen = w
        .confined("echo pwned >> linked.txt; chmod 777 linked.txt")
        .await;
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "original",
        "{}",
        seen.text
    );
    assert_ne!(
        std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777,
        0o777
    );
    w.plain("echo pwned >> linked.txt");
    assert!(std::fs::read_to_string(&victim).unwrap().contains("pwned"));
}

/// In project mode the workspace is the project: its .git and .paddock stay read-only for
/// bash too, and a repository of the agent's own still commits.
#[tokio::test]
async fn git_and_paddock_stay_read_only_and_git_still_works() {
    let Some(mut w) = wall() else { return };
    for d in [".git/hooks", ".paddock"] {
        std::fs::create_dir_all(w.ws.join(d)).unwrap();
    }
    std::fs::write(w.ws.join(".paddock/settings.json"), "{\"version\": 1}").unwrap();
    w.env.sandbox.read_only = vec![w.ws.join(".git"), w.ws.join(".paddock")];
    for attack in [
        "echo '#!/bin/sh' > .git/hooks/pre-commit && echo PLANTED",
        "echo '{\"mcpServers\":{}}' > .paddock/settings.json && echo PLANTED",
        "rm -rf .paddock && echo PLANTED",
    ] {
        let seen = w.confined(attack).await;
        assert!(!seen.text.contains("PLANTED"), "{attack}: {}", seen.text);
    }
    assert!(!w.ws.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(w.ws.join(".paddock/settings.json")).unwrap(),
        "{\"version\": 1}"
    );
    // The agent's own repository (in its workspace) works as usual.
    w.env.sandbox.read_only.clear();
    let sub = "mkdir -p repo && cd repo && git init -q && echo hi > a && git add a && \
               git -c user.name=t -c user.email=t@t commit -qm first && git log --oneline | wc -l";
    let seen = w.confined(sub).await;
    assert!(!seen.is_error, "{}", seen.text);
    assert!(seen.text.starts_with("1\n"), "{}", seen.text);
}

/// Keystrokes pushed into the terminal run after Paddock exits. Under a real pty (script),
/// plain bash can inject; behind the wall it has no terminal and TIOCSTI is denied.
#[tokio::test]
async fn no_keystrokes_reach_the_terminal() {
    let Some(w) = wall() else { return };
    let inject = format!(
        "{PY} -c \"import fcntl,termios; f=open('/dev/tty','w'); fcntl.ioctl(f, termios.TIOCSTI, b'x'); print('INJECTED')\""
    );
    let stdin_inject = format!(
        "{PY} -c \"import fcntl,termios,sys; fcntl.ioctl(0, termios.TIOCSTI, b'x'); print('INJECTED')\""
    );
    for attack in [&inject, &stdin_inject] {
        let plain = Command::new("script")
            .args(["-qec", attack, "/dev/null"])
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&plain.stdout).contains("INJECTED"),
            "plain bash under a pty could not inject: {}",
            String::from_utf8_lossy(&plain.stderr)
        );
        // The tool under a pty too: a wall command line run by `script`.
        let seen = w.confined(attack).await;
        assert!(!seen.text.contains("INJECTED"), "{}", seen.text);
        let under_pty = confined_under_pty(&w, attack);
        assert!(!under_pty.contains("INJECTED"), "{under_pty}");
    }
    let seen = w.confined("echo hi > /dev/tty && echo WROTE").await;
    assert!(!seen.text.contains("WROTE"), "{}", seen.text);
}

/// The wall's own command line for `command`, run under `script` so a controlling terminal
/// exists around it.
fn confined_under_pty(w: &Wall, command: &str) -> String {
    let writable = [w.ws.clone(), w.ws.clone()];
    let confinement = paddock_sandbox::Confinement::prepare(
        &w.env.sandbox,
        w.env.workspace_mode,
        &w.ws,
        &writable[..1],
    )
    .unwrap();
    let cmd = confinement.command("/bin/bash".as_ref(), &["-c".as_ref(), command.as_ref()]);
    let std_cmd = cmd.as_std();
    let mut line = vec![std_cmd.get_program().to_string_lossy().into_owned()];
    line.extend(std_cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    let quoted: Vec<String> = line
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let out = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .current_dir(&w.ws)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// However a process detaches (setsid, double fork, nohup), it ends with the call.
#[tokio::test]
async fn nothing_outlives_the_call() {
    let Some(w) = wall() else { return };
    for (i, shape) in [
        "setsid {s} > /dev/null 2>&1 &",
        "( ( {s} > /dev/null 2>&1 & ) & )",
        "nohup {s} > /dev/null 2>&1 & disown",
    ]
    .into_iter()
    .enumerate()
    {
        let sleep = format!("sleep 2{i:04}.5");
        // A leftover of an earlier, failed run would count as a survivor.
        Command::new("pkill").args(["-f", &sleep]).status().unwrap();
        let attack = shape.replace("{s}", &sleep);
        let seen = w.confined(&format!("{attack}\necho started")).await;
        assert!(!seen.is_error, "{}", seen.text);
        assert!(
            crate::bash::gone(&sleep).await,
            "'{attack}' survived the call"
        );
        // Plainly it survives (and is then ended here).
        w.plain(&attack);
        assert!(
            crate::bash::appears(&sleep).await,
            "'{attack}' did not detach plainly"
        );
        Command::new("pkill").args(["-f", &sleep]).status().unwrap();
    }
}

/// Paddock's own process is invisible: its environment (keys) cannot be read through /proc.
#[tokio::test]
async fn the_host_processes_are_invisible() {
    let Some(w) = wall() else { return };
    let me = std::process::id();
    w.blocks(
        &format!("test -r /proc/{me}/environ && echo VISIBLE"),
        "VISIBLE",
    )
    .await;
    w.blocks(&format!("kill -0 {me} && echo SIGNALLED"), "SIGNALLED")
        .await;
}

/// TCP, UDP and IPv6 are refused without the network; with `bashNetwork` TCP works.
#[tokio::test]
async fn the_network_is_off_unless_granted() {
    let Some(w) = wall() else { return };
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    let tcp_attack = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED");
    w.blocks(&tcp_attack, "CONNECTED").await;

    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let uport = udp.local_addr().unwrap().port();
    let udp_attack = format!("echo PING > /dev/udp/127.0.0.1/{uport}; echo sent");
    w.plain(&udp_attack);
    let mut buf = [0u8; 16];
    assert!(udp.recv(&mut buf).is_ok(), "plain UDP did not arrive");
    w.confined(&udp_attack).await;
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(udp.recv(&mut buf).is_err(), "UDP left the wall");

    if let Ok(v6) = std::net::TcpListener::bind("[::1]:0") {
        let p6 = v6.local_addr().unwrap().port();
        let v6_attack = format!(
            "{PY} -c \"import socket; socket.create_connection(('::1', {p6})); print('CONNECTED')\""
        );
        w.blocks(&v6_attack, "CONNECTED").await;
    }

    let mut granted = ToolEnv::clone(&w.env);
    granted.sandbox.bash_network = true;
    let seen = call(&granted, "bash", json!({"command": tcp_attack})).await;
    assert!(seen.text.contains("CONNECTED"), "{}", seen.text);
}

/// The fallbacks, forced: each runs bash, says exactly what it lacks, and keeps what it
/// claims.
#[tokio::test]
async fn each_fallback_reports_what_it_lacks() {
    let Some(w) = wall() else { return };
    let key = w.home.join(".ssh/id_ed25519");
    let read_key = format!("cat '{}'", key.display());
    let socket = Path::new("/tmp").join(format!("paddock-fallback-{}.sock", std::process::id()));
    let listener = unix_listener(&socket);

    let mut ns = ToolEnv::clone(&w.env);
    ns.sandbox.strongest = Some(Engine::Namespaces);
    let status = ns.sandbox_status();
    assert_eq!(status.engine, SandboxEngine::Namespaces);
    let state = |s: &paddock_protocol::SandboxStatus, k| s.protection(k).unwrap().state;
    assert_eq!(
        state(&status, ProtectionKind::Writes),
        ProtectionState::Partial
    );
    assert_eq!(
        state(&status, ProtectionKind::Secrets),
        ProtectionState::Enforced
    );
    let seen = call(&ns, "bash", json!({"command": read_key})).await;
    assert!(!seen.text.contains("PLANTED-SSH-KEY"), "{}", seen.text);
    call(&ns, "bash", json!({"command": connect_py(&socket)})).await;
    assert!(
        !connected(&listener),
        "the namespaces engine reached /tmp's socket"
    );
    // Undoing the wall from inside: the command holds no capability to unmount it.
    let undo = format!("umount -l /tmp; {}", connect_py(&socket));
    let seen = call(&ns, "bash", json!({"command": undo})).await;
    assert!(
        !connected(&listener),
        "unmounting /tmp revealed its socket: {}",
        seen.text
    );
    let seen = call(
        &ns,
        "bash",
        json!({"command": "grep CapEff /proc/self/status"}),
    )
    .await;
    assert!(
        seen.text.contains("CapEff:\t0000000000000000"),
        "{}",
        seen.text
    );
    let seen = call(
        &ns,
        "bash",
        json!({"command": "echo ok > inside.txt && cat inside.txt"}),
    )
    .await;
    assert!(seen.text.starts_with("ok\n"), "{}", seen.text);

    let mut ll = ToolEnv::clone(&w.env);
    ll.sandbox.strongest = Some(Engine::Landlock);
    let status = ll.sandbox_status();
    assert!(matches!(status.engine, SandboxEngine::Landlock { .. }));
    assert_eq!(
        state(&status, ProtectionKind::Secrets),
        ProtectionState::Absent
    );
    assert_eq!(
        state(&status, ProtectionKind::Network),
        ProtectionState::Enforced
    );
    assert!(!status.fully_confined && status.bash_runs);
    let seen = call(
        &ll,
        "bash",
        json!({"command": "grep CapEff /proc/self/status"}),
    )
    .await;
    assert!(
        seen.text.contains("CapEff:\t0000000000000000"),
        "{}",
        seen.text
    );
    // What it says it lacks, it lacks: the key is readable here.
    let seen = call(&ll, "bash", json!({"command": read_key})).await;
    assert!(seen.text.contains("PLANTED-SSH-KEY") || seen.text.contains("[REDACTED]"));
    // What it claims, it keeps: no UDP, no writes outside, nothing left behind.
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let uport = udp.local_addr().unwrap().port();
    call(
        &ll,
        "bash",
        json!({"command": format!("echo PING > /dev/udp/127.0.0.1/{uport}")}),
    )
    .await;
    let mut buf = [0u8; 8];
    assert!(udp.recv(&mut buf).is_err(), "UDP left the Landlock wall");
    let victim = w.outside.join("victim.txt");
    call(
        &ll,
        "bash",
        json!({"command": format!("echo pwned > '{}'", victim.display())}),
    )
    .await;
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "original");
    let sleep = "sleep 30001.5";
    call(
        &ll,
        "bash",
        json!({"command": format!("setsid {sleep} > /dev/null 2>&1 & echo started")}),
    )
    .await;
    assert!(
        crate::bash::gone(sleep).await,
        "the reaper missed a detached child"
    );
    let _ = std::fs::remove_file(&socket);
}

/// Ordinary work inside the wall: version control, a virtualenv, a C compiler, node, npm,
/// cargo (its toolchain under the home folder), temporary files. What this machine lacks
/// plainly is skipped and said.
#[tokio::test]
async fn ordinary_work_still_works_inside() {
    let Some(w) = wall() else { return };
    let cases = [
        (
            "git",
            "git init -q r && cd r && echo a > a && git add a && \
             git -c user.name=t -c user.email=t@t commit -qm m && git status --short && echo GIT-OK",
            "GIT-OK",
        ),
        (
            "python venv",
            "/usr/bin/python3 -m venv v && v/bin/python -c 'print(\"VENV-OK\")'",
            "VENV-OK",
        ),
        (
            "C compiler",
            "printf 'int main(void){return 0;}' > a.c && cc a.c -o a && ./a && echo CC-OK",
            "CC-OK",
        ),
        ("node", "node -e 'console.log(\"NODE-OK\")'", "NODE-OK"),
        ("npm", "npm --version > /dev/null && echo NPM-OK", "NPM-OK"),
        (
            "cargo",
            "cargo --version > /dev/null && rustc --version > /dev/null && echo CARGO-OK",
            "CARGO-OK",
        ),
        (
            "cargo build and test",
            "mkdir -p hello/src && cd hello && printf '[package]\\nname = \"hello\"\\nversion = \
             \"0.1.0\"\\nedition = \"2021\"\\n[workspace]\\n' > Cargo.toml && printf 'fn main() \
             { println!(\"Hello, world!\"); }\\n#[test]\\nfn t() {}\\n' > src/main.rs && \
             cargo test -q --offline 2>&1 && cargo run -q --offline",
            "Hello, world!",
        ),
        (
            "npm project",
            "npm init -y > /dev/null && npm pkg set scripts.hi='echo NPM-RUN-OK' && npm run -s hi",
            "NPM-RUN-OK",
        ),
        (
            "temporary files",
            "f=$(mktemp) && echo x > $f && cat $f && echo TMP-OK",
            "TMP-OK",
        ),
    ];
    let mut tried = Vec::new();
    for (i, (what, command, proof)) in cases.into_iter().enumerate() {
        // Each run in a folder of its own: the plain one must not leave work for the other.
        let (_, plain) = w.plain(&format!("mkdir -p plain{i} && cd plain{i} && {command}"));
        if !plain.contains(proof) {
            eprintln!("not on this machine, not tried: {what}");
            continue;
        }
        let seen = w
            .confined(&format!("mkdir -p walled{i} && cd walled{i} && {command}"))
            .await;
        assert!(
            seen.text.contains(proof),
            "{what} fails inside the wall:\n{}",
            seen.text
        );
        tried.push(what);
    }
    eprintln!("works inside the wall: {}", tried.join(", "));
    assert!(tried.contains(&"git") && tried.contains(&"temporary files"));
}
