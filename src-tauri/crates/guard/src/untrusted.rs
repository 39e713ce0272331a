//! Reading a file a stranger may have planted (settings, ignore files): a regular file only,
//! its final symlink not followed, opened without blocking (a FIFO), size-capped (a link to
//! `/dev/zero`, a huge file). Always answers at once. The opening itself is
//! [`open_regular`]'s.

use std::path::Path;

pub use crate::regular::UntrustedFileError;
use crate::regular::{Links, open_regular, open_unbounded};

/// The text of the regular file at `path`, at most `max` bytes, its final link not
/// followed (see [`open_regular`]).
pub fn read_untrusted(path: &Path, max: u64) -> Result<String, UntrustedFileError> {
    open_regular(path, max, Links::Refuse)?.read_text()
}

/// The first `max` bytes of the regular file at `path` (same rules as [`read_untrusted`]),
/// and its size: for files a long one is still useful from (instructions), cut with a notice.
pub fn read_untrusted_head(path: &Path, max: u64) -> Result<(Vec<u8>, u64), UntrustedFileError> {
    open_unbounded(path, Links::Refuse, max)?.read_head()
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
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(read_untrusted(&zero, 10).is_err());
    }
}
