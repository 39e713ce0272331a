//! bubblewrap as the wall: its command line for a policy, and a probe that runs it once and
//! says why it cannot work here, with the fix.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::policy::Policy;

/// Where bubblewrap is looked for.
const BWRAP_PATHS: &[&str] = &["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/// A bubblewrap that works on this host, and which optional flags it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bwrap {
    pub path: PathBuf,
    pub version: String,
    /// `--disable-userns` (no nested user namespaces) was accepted.
    pub disable_userns: bool,
}

/// The bubblewrap on this host, or why there is none that works, with the fix.
pub fn probe(true_cmd: &[OsString]) -> Result<Bwrap, (String, String)> {
    let Some(path) = BWRAP_PATHS.iter().map(Path::new).find(|p| p.is_file()) else {
        return Err((
            "bubblewrap is not installed".to_owned(),
            "install it (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)"
                .to_owned(),
        ));
    };
    let version = Command::new(path)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
        .trim_start_matches("bubblewrap ")
        .to_owned();
    let mut last = String::new();
    for disable_userns in [true, false] {
        let bwrap = Bwrap {
            path: path.to_path_buf(),
            version: version.clone(),
            disable_userns,
        };
        let mut cmd = Command::new(path);
        cmd.args(base_args(&bwrap, false))
            .args([
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--",
            ])
            .args(true_cmd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        match cmd.output() {
            Ok(out) if out.status.success() => return Ok(bwrap),
            Ok(out) => last = String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            Err(e) => last = e.to_string(),
        }
    }
    Err(classify(&last, path))
}

/// Why bubblewrap failed, and what would fix it, from what it printed.
fn classify(stderr: &str, path: &Path) -> (String, String) {
    let first = stderr.lines().next().unwrap_or(stderr).trim();
    let state = crate::userns::HostState::read(Path::new(""), Some(path));
    let restricted = crate::userns::why_no_bwrap(&state);
    let fix = if let Some(restricted) = &restricted {
        restricted.as_str()
    } else if stderr.contains("proc") {
        "the /proc mount is refused (a container that masks /proc): run Paddock outside the \
         container, or give it a private /proc"
    } else if stderr.contains("namespace") || stderr.contains("uid map") {
        "unprivileged user namespaces are off: set kernel.unprivileged_userns_clone=1 (or \
         user.max_user_namespaces > 0)"
    } else {
        "run `bwrap --ro-bind / / true` to see the error"
    };
    (
        format!("bubblewrap cannot run here ({first})"),
        fix.to_owned(),
    )
}

/// Flags every call shares: every namespace, a new session, no capabilities, gone with us.
fn base_args(bwrap: &Bwrap, network: bool) -> Vec<&'static str> {
    let mut args = vec!["--unshare-all", "--unshare-user"];
    if bwrap.disable_userns {
        args.push("--disable-userns");
    }
    if network {
        args.push("--share-net");
    }
    args.extend(["--die-with-parent", "--new-session", "--cap-drop", "ALL"]);
    args
}

/// The whole command line: bubblewrap, then `inner` (the helper and the command), with the
/// mounts in the order [`Policy`] gives; hard-linked files (`pinned`) stay read-only.
pub fn command_line(
    bwrap: &Bwrap,
    policy: &Policy,
    pinned: &[PathBuf],
    inner: &[OsString],
) -> Vec<OsString> {
    let mut args: Vec<OsString> = base_args(bwrap, policy.network)
        .into_iter()
        .map(OsString::from)
        .collect();
    let mut push = |parts: &[&std::ffi::OsStr]| args.extend(parts.iter().map(|p| p.to_os_string()));
    push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    push(&["--dev".as_ref(), "/dev".as_ref()]);
    push(&["--proc".as_ref(), "/proc".as_ref()]);
    for dir in policy.emptied.iter().chain(&policy.private) {
        push(&["--tmpfs".as_ref(), dir.as_os_str()]);
    }
    // Sources are looked up on the host, so what an emptied folder held can come back.
    let bound = policy.bound_back();
    for (path, writable) in &bound {
        let flag = if *writable { "--bind" } else { "--ro-bind" };
        push(&[flag.as_ref(), path.as_os_str(), path.as_os_str()]);
    }
    for dir in policy
        .writable
        .iter()
        .filter(|d| !bound.iter().any(|(b, _)| b == *d))
    {
        push(&["--bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
    }
    for path in policy.read_only.iter().chain(pinned) {
        push(&["--ro-bind".as_ref(), path.as_os_str(), path.as_os_str()]);
    }
    for o in &policy.overlays {
        push(&[
            "--ro-bind".as_ref(),
            o.source.as_os_str(),
            o.target.as_os_str(),
        ]);
    }
    for dir in &policy.private {
        push(&["--remount-ro".as_ref(), dir.as_os_str()]);
    }
    // The one way out when the network is an allow-list (read-only: a socket is still
    // connected to, and the file cannot be replaced).
    if let Some(socket) = &policy.proxy {
        push(&[
            "--ro-bind".as_ref(),
            socket.as_os_str(),
            crate::PROXY_SOCKET.as_ref(),
        ]);
    }
    // Masks last: no bind after them can uncover one.
    for path in &policy.hidden {
        if path.is_dir() {
            push(&["--tmpfs".as_ref(), path.as_os_str()]);
            push(&["--remount-ro".as_ref(), path.as_os_str()]);
        } else {
            push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), path.as_os_str()]);
        }
    }
    push(&[
        "--chdir".as_ref(),
        policy.workdir.as_os_str(),
        "--".as_ref(),
    ]);
    args.extend(inner.iter().cloned());
    args
}

/// The path bubblewrap could not mount over, when its setup failed on that alone: its
/// whole stderr is one `Can't create file at P: …` or `Can't mkdir P: …` line.
pub fn vanished_mount(stderr: &str) -> Option<PathBuf> {
    let line = stderr.strip_suffix('\n').unwrap_or(stderr);
    if line.contains('\n') {
        return None;
    }
    let rest = line
        .strip_prefix("bwrap: Can't create file at ")
        .or_else(|| line.strip_prefix("bwrap: Can't mkdir "))?;
    // The reason is strerror's text, which has no ": " in it; the path may.
    let (path, _) = rest.rsplit_once(": ")?;
    path.starts_with('/').then(|| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Engine;

    #[test]
    fn later_mounts_shadow_earlier_ones() {
        let bwrap = Bwrap {
            path: "/usr/bin/bwrap".into(),
            version: "0.8.0".into(),
            disable_userns: true,
        };
        let policy = Policy {
            engine: Engine::Bubblewrap,
            writable: vec!["/w".into(), "/tmp/t".into()],
            read_only: vec!["/w/.git".into()],
            emptied: vec!["/tmp".into()],
            private: vec!["/h".into()],
            visible: vec!["/h/p".into()],
            overlays: Vec::new(),
            hidden: vec!["/h/.netrc".into(), "/w/secret".into()],
            network: false,
            proxy: None,
            loopback: Vec::new(),
            landlock_abi: Some(6),
            workdir: "/w".into(),
        };
        let args = command_line(&bwrap, &policy, &[], &["true".into()]);
        let text: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let at = |s: &str| text.iter().position(|a| a == s).unwrap();
        assert!(text.contains(&"--disable-userns".to_owned()));
        assert!(!text.contains(&"--share-net".to_owned()));
        assert!(
            at("/h") < at("/h/p"),
            "a private folder is emptied before its part comes back"
        );
        assert!(at("/dev/null") > at("/w/.git"), "masks after every bind");
        assert!(
            at("/w/secret") > at("/w"),
            "a mask in the workspace comes after its bind"
        );
        assert!(
            at("/w/.git") > at("/tmp/t"),
            "read-only carve-outs after the writable binds"
        );
        assert_eq!(text.last().map(String::as_str), Some("true"));
    }

    #[test]
    fn a_mount_over_nothing_is_told_apart() {
        let seen = |s: &str| vanished_mount(s);
        assert_eq!(
            seen("bwrap: Can't create file at /h/a: b.sock: Read-only file system\n"),
            Some(PathBuf::from("/h/a: b.sock"))
        );
        assert_eq!(
            seen("bwrap: Can't mkdir /h/.aws: Read-only file system"),
            Some(PathBuf::from("/h/.aws"))
        );
        // More than bubblewrap's one line: the command ran and printed it.
        assert_eq!(
            seen("hello\nbwrap: Can't create file at /h/s: Read-only file system\n"),
            None
        );
        assert_eq!(seen("bwrap: Can't find source path /x: No such file"), None);
    }
}
