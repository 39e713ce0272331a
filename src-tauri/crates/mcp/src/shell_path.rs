//! The user's login-shell PATH. An app started from a desktop launcher inherits a bare PATH
//! (no Homebrew, nvm, ~/.local/bin), so `npx` and friends would not be found.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// How long a login shell gets to print its PATH (slow rc files are common).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

// Markers keep rc-file chatter on stdout out of the answer.
const MARK: &str = "__PADDOCK_PATH__";

/// The PATH of `$SHELL -l`, or this process's PATH when that does not work.
pub async fn login_shell_path_or_current(timeout: Duration) -> Option<String> {
    match std::env::var_os("SHELL") {
        Some(shell) if !shell.is_empty() => {
            if let Some(path) = login_shell_path(Path::new(&shell), timeout).await {
                return Some(path);
            }
        }
        _ => {}
    }
    std::env::var("PATH").ok()
}

/// Runs `shell -l -c 'printf ... "$PATH"'`; `None` if it fails, times out or prints nothing.
pub async fn login_shell_path(shell: &Path, timeout: Duration) -> Option<String> {
    let script = format!("printf '{MARK}%s{MARK}' \"$PATH\"");
    let child = Command::new(shell)
        .arg("-l")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            tracing::debug!("login shell {} did not start: {e}", shell.display());
            return None;
        }
    };
    let output = match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            tracing::debug!("login shell {} failed: {e}", shell.display());
            return None;
        }
        Err(_) => {
            tracing::warn!(
                "login shell {} did not print PATH within {timeout:?}; using the current PATH",
                shell.display()
            );
            return None;
        }
    };
    extract(&String::from_utf8_lossy(&output.stdout))
}

fn extract(stdout: &str) -> Option<String> {
    let start = stdout.find(MARK)? + MARK.len();
    let len = stdout[start..].find(MARK)?;
    let path = stdout[start..start + len].trim();
    (!path.is_empty()).then(|| path.to_owned())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[allow(clippy::unwrap_used)]
    fn fake_shell(dir: &Path, body: &str) -> std::path::PathBuf {
        let path = dir.join("fake-shell");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn chatter_around_the_markers_is_ignored() {
        assert_eq!(
            extract(&format!("Welcome!\n{MARK}/a:/b{MARK}bye")).as_deref(),
            Some("/a:/b")
        );
        assert_eq!(extract("no markers"), None);
        assert_eq!(extract(&format!("{MARK}{MARK}")), None);
    }

    #[tokio::test]
    async fn a_real_login_shell_reports_a_path() {
        let path = login_shell_path(Path::new("/bin/sh"), DEFAULT_TIMEOUT).await;
        assert!(path.is_some_and(|p| p.contains('/')));
    }

    #[tokio::test]
    async fn a_noisy_shell_still_gives_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let shell = fake_shell(
            dir.path(),
            "echo 'motd: have a nice day'\nPATH=/opt/tools/bin:/usr/bin\nexport PATH\nshift\nexec /bin/sh \"$@\"",
        );
        let path = login_shell_path(&shell, DEFAULT_TIMEOUT).await;
        assert_eq!(path.as_deref(), Some("/opt/tools/bin:/usr/bin"));
    }

    #[tokio::test]
    async fn a_hanging_or_broken_shell_gives_none_in_time() {
        let dir = tempfile::tempdir().unwrap();
        let shell = fake_shell(dir.path(), "sleep 30");
        let started = std::time::Instant::now();
        assert_eq!(
            login_shell_path(&shell, Duration::from_millis(300)).await,
            None
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            login_shell_path(Path::new("/nonexistent/shell"), DEFAULT_TIMEOUT).await,
            None
        );
    }
}
