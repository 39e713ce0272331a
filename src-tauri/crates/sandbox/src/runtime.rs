//! Paddock's private runtime folder (`<temp>/paddock-<uid>`, 0700, owned by the user, never
//! a link) for files the wall shows to commands: another local user cannot plant or read
//! them.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder, made when missing; `None` when what is there is not safely ours.
pub fn runtime_dir() -> Option<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let dir = std::env::temp_dir().join(format!("paddock-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    let ours = meta.is_dir() && meta.uid() == uid && meta.permissions().mode() & 0o077 == 0;
    ours.then_some(dir)
}

/// Writes `bytes` to `path` whole (a temporary file beside it, then a rename), 0600.
pub fn write_private_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let temp = path.with_extension(format!(
        "tmp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if let Err(e) = written.and_then(|()| std::fs::rename(&temp, path)) {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_private() {
        let dir = runtime_dir().unwrap();
        let meta = std::fs::symlink_metadata(&dir).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        let file = dir.join(format!("test-{}", std::process::id()));
        write_private_file(&file, b"x").unwrap();
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::remove_file(file).unwrap();
    }
}
