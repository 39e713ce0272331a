//! Session files and folders readable by the user only.

use std::fs::{File, OpenOptions};
use std::path::Path;

/// Mode of the folders sessions live in: only the user may list them.
const DIR_MODE: u32 = 0o700;
/// Mode of session files: only the user may read them.
const FILE_MODE: u32 = 0o600;

/// Creates `dir` (and missing parents) private to the user, and makes it so if it exists.
pub(crate) fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Options that create a file only the user can read.
pub(crate) fn private_file() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
}

/// Narrows an existing session file and its folders to the user.
pub(crate) fn make_private(
    path: &Path,
    file: &File,
    root: &Path,
    dir: &Path,
) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = path;
        file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        private_dir(root)?;
        private_dir(dir)
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file, root, dir);
        Ok(())
    }
}
