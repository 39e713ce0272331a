//! Files named on the command line. The path may lead into a cloned repository, so a file
//! read is taken as a stranger's would be (a regular file only, its final link not followed,
//! opened without blocking, size-capped), and a file written is never written through a
//! link: the text goes to a new file in the same folder that then replaces the target, so a
//! link or a hard link swapped in at the last moment is replaced, never followed.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use paddock_host::{FileKind, UntrustedFileError, read_untrusted};

use crate::exit::CliError;

/// The largest `--output-schema` file: a schema is a page of JSON, not megabytes.
pub const MAX_SCHEMA_BYTES: u64 = 1 << 20;
/// The largest prompt read from standard input (`exec -`): more than any model's window.
pub const MAX_STDIN_PROMPT_BYTES: u64 = 4 << 20;

/// Mode of a new `sessions export` file: a transcript can hold what the agent read (keys in a
/// .env, say), so it is the user's only, as the sessions are.
pub const PRIVATE_MODE: u32 = 0o600;
/// Mode of a new `--output-last-message` file before the umask, as any program's new file.
pub const DEFAULT_MODE: u32 = 0o666;

/// "1 MiB", "4 MiB", or the bytes when not a whole MiB.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// The text of the file at `path` given for `what` (e.g. "the output schema"), or a usage
/// error naming the path and why it was not read.
pub fn read_input(what: &str, path: &Path, max: u64) -> Result<String, CliError> {
    read_untrusted(path, max).map_err(|e| {
        let why = match e {
            UntrustedFileError::TooBig { path, .. } => {
                format!("{path} is larger than {}", size(max))
            }
            other => other.to_string(),
        };
        CliError::usage(format!("cannot read {what}: {why}"))
    })
}

/// Standard input as text, at most `max` bytes (a pipe from `/dev/zero` ends with an error,
/// not with all the memory).
pub fn read_stdin(what: &str, max: u64) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::usage(format!("cannot read {what} from stdin: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(CliError::usage(format!(
            "{what} on stdin is larger than {}",
            size(max)
        )));
    }
    String::from_utf8(bytes).map_err(|_| CliError::usage(format!("{what} on stdin is not UTF-8")))
}

/// Why a file was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The target is no place to write (a link, a FIFO, a folder): a usage error.
    Refused(String),
    /// Writing failed (no such folder, no permission, disk full).
    Io(String),
}

impl WriteError {
    pub fn message(&self) -> &str {
        match self {
            Self::Refused(m) | Self::Io(m) => m,
        }
    }
}

impl From<WriteError> for CliError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Refused(m) => CliError::usage(m),
            WriteError::Io(m) => CliError::failure(m),
        }
    }
}

/// Checks that `path` may be written by [`write_output`]: absent, or a regular file (not a
/// link to one). Returns the mode of the file already there, if any. Called before a run
/// too, so a refused target ends it before anything is sent.
pub fn check_output(path: &Path) -> Result<Option<u32>, WriteError> {
    let shown = path.display();
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(WriteError::Io(format!("cannot write {shown}: {e}"))),
        Ok(meta) if meta.file_type().is_symlink() => Err(WriteError::Refused(format!(
            "{shown} is a symlink; Paddock does not write through links (remove it, or give \
             the path of the file itself)"
        ))),
        Ok(meta) if !meta.is_file() => Err(WriteError::Refused(format!(
            "{shown} is not a regular file ({}); Paddock will not write to it",
            FileKind::of(meta.file_type()).unwrap_or(FileKind::Other)
        ))),
        Ok(meta) => Ok(Some(mode_of(&meta))),
    }
}

/// Writes `text` whole to `path`: into a new file in the same folder, then renamed over
/// `path`. A file already there keeps its mode; a new one gets `new_mode` (less the umask).
/// A link at `path` is refused (and one raced in after the check is replaced by the rename,
/// never followed), as is anything but a regular file.
pub fn write_output(path: &Path, text: &str, new_mode: u32) -> Result<(), WriteError> {
    let shown = path.display();
    let old_mode = check_output(path)?;
    let Some(name) = path.file_name() else {
        return Err(WriteError::Refused(format!("{shown} does not name a file")));
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let io = |e: std::io::Error| WriteError::Io(format!("cannot write {shown}: {e}"));
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".paddock-tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(new_mode));
    #[cfg(not(unix))]
    let _ = (new_mode, old_mode);
    // O_CREAT | O_EXCL: the temporary file is always new, never a link someone planted.
    let mut temp = builder.tempfile_in(dir).map_err(io)?;
    #[cfg(unix)]
    if let Some(mode) = old_mode {
        use std::os::unix::fs::PermissionsExt;
        // Not subject to the umask: the file keeps exactly the mode it had.
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io)?;
    }
    temp.write_all(text.as_bytes()).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    // On failure the temporary file is removed when dropped.
    temp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    // Read, write and execute bits only: no set-id bit is carried over.
    meta.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    DEFAULT_MODE
}

/// `--project`, or the current directory: a folder, else a usage error saying what the
/// path is instead (missing, a file, a FIFO, a device...). Nothing at the path is opened.
pub fn project_dir(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    let dir = match flag {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| CliError::failure(format!("cannot read the current directory: {e}")))?,
    };
    let shown = dir.display();
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(dir),
        Ok(meta) => {
            let what = FileKind::of(meta.file_type())
                .map_or_else(|| "a file".to_owned(), |kind| kind.to_string());
            Err(CliError::usage(format!(
                "the project folder {shown} is not a folder (it is {what})"
            )))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CliError::usage(format!(
            "the project folder {shown} does not exist"
        ))),
        Err(e) => Err(CliError::usage(format!(
            "the project folder {shown} cannot be used: {e}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_or_a_fifo_is_never_written_and_a_file_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(matches!(
            write_output(&link, "x", PRIVATE_MODE),
            Err(WriteError::Refused(_))
        ));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(matches!(
            write_output(dir.path(), "x", PRIVATE_MODE),
            Err(WriteError::Refused(_))
        ));

        let out = dir.path().join("sub/out.txt");
        assert!(matches!(
            write_output(&out, "x", PRIVATE_MODE),
            Err(WriteError::Io(_))
        ));
        let out = dir.path().join("out.txt");
        write_output(&out, "one", PRIVATE_MODE).unwrap();
        write_output(&out, "two", PRIVATE_MODE).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 3, "no temporary file is left: {names:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_mode_asked_and_an_old_one_keeps_its_own() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let new = dir.path().join("new");
        write_output(&new, "x", PRIVATE_MODE).unwrap();
        assert_eq!(mode(&new), 0o600);
        std::fs::set_permissions(&new, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_output(&new, "y", PRIVATE_MODE).unwrap();
        assert_eq!(mode(&new), 0o640);
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(size(MAX_SCHEMA_BYTES), "1 MiB");
        assert_eq!(size(MAX_STDIN_PROMPT_BYTES), "4 MiB");
        assert_eq!(size(1000), "1000 bytes");
    }
}
