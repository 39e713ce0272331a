//! A project folder as the page names it: the folder behind a path the user typed, and its
//! name. What the project holds and every change to its settings are the host's (`edit`).

use std::path::{Path, PathBuf};

use paddock_protocol::AppErrorCode;

use crate::error::{AppResult, app_error, invalid};

/// The folder behind a path the user typed or the UI passed back: `~/` expanded, absolute,
/// symlinks resolved, and a directory.
pub fn canonical(path: &str) -> AppResult<PathBuf> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err(invalid("give the project folder's path"));
    }
    let expanded = match trimmed
        .strip_prefix("~/")
        .or((trimmed == "~").then_some(""))
    {
        Some(rest) => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(rest),
            None => return Err(invalid("cannot expand '~': HOME is not set")),
        },
        None => PathBuf::from(trimmed),
    };
    if !expanded.is_absolute() {
        return Err(invalid(format!(
            "'{trimmed}' is not a full path; give the folder's absolute path (e.g. /home/me/project)"
        )));
    }
    let root = std::fs::canonicalize(&expanded).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            AppErrorCode::NotFound
        } else {
            AppErrorCode::Io
        };
        app_error(code, format!("cannot open {}: {e}", expanded.display()))
    })?;
    // Judged without opening it (a FIFO's open would wait for a writer forever).
    let meta = std::fs::metadata(&root).map_err(|e| {
        app_error(
            AppErrorCode::Io,
            format!("cannot open {}: {e}", root.display()),
        )
    })?;
    if !meta.is_dir() {
        let what = paddock_host::FileKind::of(meta.file_type())
            .map_or_else(|| "a file".to_owned(), |kind| kind.to_string());
        return Err(invalid(format!(
            "{} is not a folder (it is {what})",
            root.display()
        )));
    }
    Ok(root)
}

pub fn name_of(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_be_absolute_existing_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir.path().to_string_lossy()).unwrap();
        assert_eq!(root, dir.path().canonicalize().unwrap());
        assert_eq!(
            canonical("relative/dir").unwrap_err().code,
            AppErrorCode::Invalid
        );
        assert_eq!(canonical("  ").unwrap_err().code, AppErrorCode::Invalid);
        let missing = dir.path().join("nope");
        assert_eq!(
            canonical(&missing.to_string_lossy()).unwrap_err().code,
            AppErrorCode::NotFound
        );
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(
            canonical(&file.to_string_lossy()).unwrap_err().code,
            AppErrorCode::Invalid
        );
    }

    /// The `project` of every IPC command: a FIFO, a socket, a device or a file is refused
    /// at once, saying what it is (on main: "is not a folder" only, saying nothing of what
    /// it is; nothing was opened, so nothing hung).
    #[test]
    fn a_project_that_is_no_folder_is_refused_saying_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let socket = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        for (path, said) in [
            (fifo.as_path(), "a FIFO"),
            (socket.as_path(), "a socket"),
            (Path::new("/dev/zero"), "a character device"),
            (file.as_path(), "a file"),
        ] {
            let e = canonical(&path.to_string_lossy()).unwrap_err();
            assert_eq!(e.code, AppErrorCode::Invalid);
            assert!(e.message.contains(said), "{}", e.message);
        }
    }
}
