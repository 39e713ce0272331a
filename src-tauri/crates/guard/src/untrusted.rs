//! Reading a file a stranger may have planted (settings, ignore files): a regular file only,
//! its final symlink not followed, opened without blocking (a FIFO), size-capped (a link to
//! `/dev/zero`, a huge file). Always answers at once.

use std::io::{self, Read};
use std::path::Path;

/// Why such a file was not read. The text names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum UntrustedFileError {
    #[error("{path} does not exist")]
    Missing { path: String },
    #[error(
        "{path} is a symlink; Paddock reads it only as a regular file (replace the link with the file)"
    )]
    Symlink { path: String },
    #[error(
        "{path} is not a regular file (a FIFO, a device or a folder); Paddock will not read it"
    )]
    NotRegular { path: String },
    #[error("{path} is {size} bytes, over the {max}-byte limit for this file")]
    TooBig { path: String, size: u64, max: u64 },
    #[error("{path} is not UTF-8 text")]
    NotText { path: String },
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: io::Error },
}

impl UntrustedFileError {
    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Missing { .. })
    }
}

/// The text of the regular file at `path`, at most `max` bytes.
pub fn read_untrusted(path: &Path, max: u64) -> Result<String, UntrustedFileError> {
    let shown = path.display().to_string();
    let (bytes, size) = read_untrusted_head(path, max)?;
    if size > max || bytes.len() as u64 > max {
        return Err(UntrustedFileError::TooBig {
            path: shown,
            size: size.max(bytes.len() as u64),
            max,
        });
    }
    String::from_utf8(bytes).map_err(|_| UntrustedFileError::NotText { path: shown })
}

/// The first `max` bytes of the regular file at `path` (same rules as [`read_untrusted`]),
/// and its size: for files a long one is still useful from (instructions), cut with a notice.
pub fn read_untrusted_head(path: &Path, max: u64) -> Result<(Vec<u8>, u64), UntrustedFileError> {
    let shown = path.display().to_string();
    let io_err = |source: io::Error| UntrustedFileError::Io {
        path: shown.clone(),
        source,
    };
    let mut file = open_nofollow(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => UntrustedFileError::Missing {
            path: shown.clone(),
        },
        _ if is_symlink(path) => UntrustedFileError::Symlink {
            path: shown.clone(),
        },
        _ => io_err(e),
    })?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(UntrustedFileError::NotRegular { path: shown });
    }
    let mut bytes = Vec::new();
    // The size can grow between the stat and the read: never read more than the cap (and one
    // byte to notice).
    file.by_ref()
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    let size = meta.len().max(bytes.len() as u64);
    bytes.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Ok((bytes, size))
}

/// Whether a file a walker would read (an ignore file) is safe to hand to it: absent, or a
/// regular file (through links, which the walker follows) of at most `max` bytes. `Err`
/// says why not.
pub fn check_readable(path: &Path, max: u64) -> Result<(), UntrustedFileError> {
    let shown = path.display().to_string();
    match std::fs::metadata(path) {
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(())
        }
        Err(source) => Err(UntrustedFileError::Io {
            path: shown,
            source,
        }),
        Ok(meta) if !meta.is_file() => Err(UntrustedFileError::NotRegular { path: shown }),
        Ok(meta) if meta.len() > max => Err(UntrustedFileError::TooBig {
            path: shown,
            size: meta.len(),
            max,
        }),
        Ok(_) => Ok(()),
    }
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(unix)]
fn open_nofollow(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
}

#[cfg(not(unix))]
fn open_nofollow(path: &Path) -> io::Result<std::fs::File> {
    if is_symlink(path) {
        return Err(io::Error::other("a symlink"));
    }
    std::fs::File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_everything_else_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(read_untrusted(&file, 10).unwrap(), "{}");
        assert!(
            read_untrusted(&dir.path().join("none"), 10)
                .unwrap_err()
                .is_missing()
        );
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(matches!(
            read_untrusted(&link, 10),
            Err(UntrustedFileError::Symlink { .. })
        ));
        assert!(matches!(
            read_untrusted(dir.path(), 10),
            Err(UntrustedFileError::NotRegular { .. })
        ));
        std::fs::write(&file, "x".repeat(11)).unwrap();
        assert!(matches!(
            read_untrusted(&file, 10),
            Err(UntrustedFileError::TooBig { .. })
        ));
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Without O_NONBLOCK the open itself would wait for a writer forever.
        assert!(matches!(
            read_untrusted(&fifo, 10),
            Err(UntrustedFileError::NotRegular { .. })
        ));
        assert!(matches!(
            check_readable(&fifo, 10),
            Err(UntrustedFileError::NotRegular { .. })
        ));
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(check_readable(&zero, 10).is_err());
        assert!(check_readable(&dir.path().join("absent"), 10).is_ok());
    }
}
