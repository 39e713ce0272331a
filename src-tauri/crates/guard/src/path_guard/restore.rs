//! What a rewind does to the workspace: create, replace and remove files, folders and
//! symlinks at workspace-relative paths. The workspace is written by the model and the cloned
//! repository, so every operation acts beneath the root without following a symlink (a
//! parent that is a link is refused; a link at the name itself is replaced, never written
//! through), and nothing under `.git` or `.paddock` is touched.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{PathError, READ_ONLY_DIRS};
use crate::path_guard::Root;
use crate::resolve::display_rel;

/// The permission bits the operations set; setuid, setgid and sticky are never restored.
const PERMISSION_BITS: u32 = 0o777;

/// Tells apart the temporary names of concurrent operations in one process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// `.name.paddock-<pid>-r<n>.tmp`: hidden, and plainly ours if a crash leaves one behind
/// (`r` keeps it apart from file_write's temporary names).
fn temp_name(name: &OsStr) -> OsString {
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(
        ".paddock-{}-r{}.tmp",
        std::process::id(),
        NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
    ));
    temp
}

/// The last component of a path the operations may act on: relative, plain names only
/// (no `..`, `.` or root), not empty, and nowhere under a read-only folder.
fn checked(rel: &Path) -> Result<&OsStr, PathError> {
    if rel.as_os_str().is_empty() {
        return Err(PathError::Empty);
    }
    for part in rel.components() {
        let Component::Normal(part) = part else {
            return Err(PathError::Outside {
                path: rel.display().to_string(),
            });
        };
        if let Some(area) = part.to_str().filter(|p| READ_ONLY_DIRS.contains(p)) {
            return Err(PathError::ReadOnly {
                path: display_rel(rel),
                area: area.to_owned(),
            });
        }
    }
    rel.file_name().ok_or_else(|| PathError::Outside {
        path: rel.display().to_string(),
    })
}

/// `rel` must be plain names only; empty names the root itself.
fn checked_dir(rel: &Path) -> Result<(), PathError> {
    if rel.components().all(|c| matches!(c, Component::Normal(_))) {
        Ok(())
    } else {
        Err(PathError::Outside {
            path: rel.display().to_string(),
        })
    }
}

fn not_a_dir(rel: &Path) -> PathError {
    PathError::Io {
        path: display_rel(rel),
        source: io::Error::new(
            io::ErrorKind::NotADirectory,
            "something other than a folder is there",
        ),
    }
}

/// A file that is also linked from elsewhere is the same file there: changing its mode in
/// place would change the other one too (rewriting it makes a new, unshared file instead).
fn shared_file(rel: &Path) -> PathError {
    PathError::Io {
        path: display_rel(rel),
        source: io::Error::other(
            "the file has other hard links (maybe outside the workspace); its mode is not \
             changed in place",
        ),
    }
}

impl Root {
    /// Creates or replaces the file at `rel` (relative to the root) with `content` and
    /// exactly the permission bits `mode & 0o777`, atomically: a temporary file beside it is
    /// written, synced and renamed over it. A symlink, special file or empty folder at that
    /// name is replaced (the link's target is never written); a folder with contents is an
    /// error (`DirectoryNotEmpty`). Missing parent folders are created.
    pub fn put_file(&self, rel: &Path, content: &[u8], mode: u32) -> Result<(), PathError> {
        let name = checked(rel)?;
        self.put_file_at(rel, name, content, mode & PERMISSION_BITS)
    }

    /// Makes the folder at `rel` (and missing parents) with exactly the bits `mode & 0o777`;
    /// an existing folder gets that mode; anything else at that name is an error.
    pub fn make_dir(&self, rel: &Path, mode: u32) -> Result<(), PathError> {
        let name = checked(rel)?;
        self.make_dir_at(rel, name, mode & PERMISSION_BITS)
    }

    /// Removes the file, symlink or special file at `rel` (never following it) or the empty
    /// folder there. Nothing there is fine; a folder with contents is an error whose source
    /// has the kind `DirectoryNotEmpty`.
    pub fn remove(&self, rel: &Path) -> Result<(), PathError> {
        let name = checked(rel)?;
        self.remove_at(rel, name)
    }

    /// Makes `rel` a symlink to `target` (stored as given, never followed here), replacing a
    /// file, symlink or empty folder at that name. Missing parent folders are created.
    pub fn put_symlink(&self, rel: &Path, target: &Path) -> Result<(), PathError> {
        let name = checked(rel)?;
        self.put_symlink_at(rel, name, target)
    }

    /// Sets the permission bits of the file or folder at `rel` to `mode & 0o777`, without
    /// following a symlink (a link there is refused, as is a special file or a file with
    /// other hard links).
    pub fn set_mode(&self, rel: &Path, mode: u32) -> Result<(), PathError> {
        let name = checked(rel)?;
        self.set_mode_at(rel, name, mode & PERMISSION_BITS, false)
    }

    /// Opens the folder at `rel` (empty: the root) for listing, beneath the root and without
    /// following a symlink anywhere on the way, so a walker cannot be led outside by a swap.
    pub fn open_rel_dir(&self, rel: &Path) -> Result<File, PathError> {
        checked_dir(rel)?;
        let dir = self.open_dir_at(rel)?;
        let meta = dir
            .metadata()
            .map_err(|e| crate::path_guard::io_error(rel, e))?;
        if !meta.is_dir() {
            return Err(not_a_dir(rel));
        }
        Ok(dir)
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io::{self, Write};
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::path::Path;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use rustix::io::Errno;

    use super::{not_a_dir, shared_file, temp_name};
    use crate::error::PathError;
    use crate::path_guard::io_error;
    use crate::path_guard::{Access, Root, open_beneath};

    impl Root {
        pub(super) fn put_file_at(
            &self,
            rel: &Path,
            name: &OsStr,
            content: &[u8],
            mode: u32,
        ) -> Result<(), PathError> {
            // Everything happens in this folder, opened beneath the root with no symlink on
            // the way: swapping a parent for a link now cannot move the write elsewhere.
            let dir = self.parent_dir(rel, true)?;
            self.clear_empty_dir(&dir, rel, name)?;
            let temp = temp_name(name);
            let fd = open_beneath(&dir, Path::new(&temp), Access::CreateNew)
                .map_err(|e| self.open_error(rel, e))?;
            let mut file = File::from(fd);
            let written = (|| -> io::Result<()> {
                rustix::fs::fchmod(&file, Mode::from_raw_mode(mode))?;
                file.write_all(content)?;
                file.sync_all()?;
                // rename replaces a symlink or special file itself, never what it points to.
                rustix::fs::renameat(&dir, &temp, &dir, name)?;
                Ok(())
            })();
            if let Err(e) = written {
                let _ = rustix::fs::unlinkat(&dir, &temp, AtFlags::empty());
                return Err(io_error(rel, e));
            }
            Ok(())
        }

        pub(super) fn make_dir_at(
            &self,
            rel: &Path,
            name: &OsStr,
            mode: u32,
        ) -> Result<(), PathError> {
            let dir = self.parent_dir(rel, true)?;
            match rustix::fs::mkdirat(&dir, name, Mode::from_raw_mode(mode)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(self.open_error(rel, e)),
            }
            // The umask narrowed a new folder's mode, and an existing one keeps its own.
            self.chmod_in(&dir, rel, name, mode, true)
        }

        pub(super) fn remove_at(&self, rel: &Path, name: &OsStr) -> Result<(), PathError> {
            let dir = match self.parent_dir(rel, false) {
                Ok(dir) => dir,
                // No parent folder: nothing there to remove.
                Err(PathError::NotFound { .. }) => return Ok(()),
                Err(PathError::Io { source, .. })
                    if source.raw_os_error() == Some(Errno::NOTDIR.raw_os_error()) =>
                {
                    return Ok(());
                }
                Err(e) => return Err(e),
            };
            let flags = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {
                    AtFlags::REMOVEDIR
                }
                Ok(_) => AtFlags::empty(),
                Err(Errno::NOENT) => return Ok(()),
                Err(e) => return Err(self.open_error(rel, e)),
            };
            match rustix::fs::unlinkat(&dir, name, flags) {
                Ok(()) | Err(Errno::NOENT) => Ok(()),
                Err(e) => Err(io_error(rel, e.into())),
            }
        }

        pub(super) fn put_symlink_at(
            &self,
            rel: &Path,
            name: &OsStr,
            target: &Path,
        ) -> Result<(), PathError> {
            let dir = self.parent_dir(rel, true)?;
            self.clear_empty_dir(&dir, rel, name)?;
            let temp = temp_name(name);
            rustix::fs::symlinkat(target, &dir, &temp).map_err(|e| io_error(rel, e.into()))?;
            if let Err(e) = rustix::fs::renameat(&dir, &temp, &dir, name) {
                let _ = rustix::fs::unlinkat(&dir, &temp, AtFlags::empty());
                return Err(io_error(rel, e.into()));
            }
            Ok(())
        }

        pub(super) fn set_mode_at(
            &self,
            rel: &Path,
            name: &OsStr,
            mode: u32,
            dir_only: bool,
        ) -> Result<(), PathError> {
            let dir = self.parent_dir(rel, false)?;
            self.chmod_in(&dir, rel, name, mode, dir_only)
        }

        pub(super) fn open_dir_at(&self, rel: &Path) -> Result<File, PathError> {
            // The root's own descriptor (an O_PATH one) cannot be listed: open it again.
            let root = self.parent_dir(Path::new(""), false)?;
            let fd = open_beneath(&root, rel, Access::Read).map_err(|e| self.open_error(rel, e))?;
            Ok(File::from(fd))
        }

        /// An empty folder at `name` makes way for a file or link; one with contents is an
        /// error.
        fn clear_empty_dir(
            &self,
            dir: &OwnedFd,
            rel: &Path,
            name: &OsStr,
        ) -> Result<(), PathError> {
            match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {
                    match rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR) {
                        Ok(()) | Err(Errno::NOENT) => Ok(()),
                        Err(e) => Err(io_error(rel, e.into())),
                    }
                }
                Ok(_) | Err(Errno::NOENT) => Ok(()),
                Err(e) => Err(self.open_error(rel, e)),
            }
        }

        /// Sets the mode of `name` in `dir` through a descriptor of it opened without
        /// following a link (fchmodat cannot refuse links, and fchmod refuses O_PATH ones).
        fn chmod_in(
            &self,
            dir: &OwnedFd,
            rel: &Path,
            name: &OsStr,
            mode: u32,
            dir_only: bool,
        ) -> Result<(), PathError> {
            // Non-blocking so a FIFO swapped in cannot hang the open.
            let flags = OFlags::RDONLY
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::NOCTTY
                | OFlags::CLOEXEC;
            match rustix::fs::openat(dir, name, flags, Mode::empty()) {
                Ok(fd) => {
                    check_chmod_target(&fd, rel, dir_only)?;
                    rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))
                        .map_err(|e| io_error(rel, e.into()))
                }
                // Without read permission (a 0o000 folder): change it through the
                // descriptor's own /proc link, which names exactly the inode opened.
                Err(Errno::ACCESS) => {
                    let fd = rustix::fs::openat(
                        dir,
                        name,
                        OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                    .map_err(|e| self.open_error(rel, e))?;
                    check_chmod_target(&fd, rel, dir_only)?;
                    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
                    rustix::fs::chmod(link.as_str(), Mode::from_raw_mode(mode))
                        .map_err(|e| io_error(rel, e.into()))
                }
                Err(e) => Err(self.open_error(rel, e)),
            }
        }
    }

    fn check_chmod_target(fd: &OwnedFd, rel: &Path, dir_only: bool) -> Result<(), PathError> {
        let st = rustix::fs::fstat(fd).map_err(|e| io_error(rel, e.into()))?;
        let path = crate::display_rel(rel);
        match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => Ok(()),
            _ if dir_only => Err(not_a_dir(rel)),
            FileType::RegularFile if st.st_nlink > 1 => Err(shared_file(rel)),
            FileType::RegularFile => Ok(()),
            FileType::Symlink => Err(PathError::Raced { path }),
            other => Err(PathError::NotRegular {
                path,
                kind: crate::FileKind::of_raw(other),
            }),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    //! Resolve-then-act (as in replace.rs): each parent is checked to be a real folder, not
    //! a link, beneath the root before the operation, which is as far as portable calls go.

    use std::ffi::OsStr;
    use std::fs::{DirBuilder, File, Permissions};
    use std::io::{self, Write};
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    use std::path::{Path, PathBuf};

    use super::{not_a_dir, shared_file, temp_name};
    use crate::error::PathError;
    use crate::path_guard::Root;
    use crate::path_guard::io_error;

    /// Mode of the missing parent folders the operations create (as on Linux).
    const PARENT_DIR_MODE: u32 = 0o755;

    fn gone(e: &io::Error) -> bool {
        matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        )
    }

    impl Root {
        /// The real path of `rel`'s parent; every folder on the way checked (or, with
        /// `create`, made) as a real folder, not a link.
        fn checked_parent(&self, rel: &Path, create: bool) -> Result<PathBuf, PathError> {
            let mut at = self.real.clone();
            for part in rel.parent().into_iter().flat_map(Path::components) {
                at.push(part);
                if create {
                    match DirBuilder::new().mode(PARENT_DIR_MODE).create(&at) {
                        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                            return Err(io_error(rel, e));
                        }
                        _ => {}
                    }
                }
                let path = crate::display_rel(rel);
                match std::fs::symlink_metadata(&at) {
                    Ok(m) if m.file_type().is_symlink() => return Err(PathError::Raced { path }),
                    Ok(m) if !m.is_dir() => return Err(not_a_dir(rel)),
                    Ok(_) => {}
                    Err(e) if gone(&e) => return Err(PathError::NotFound { path }),
                    Err(e) => return Err(io_error(rel, e)),
                }
            }
            Ok(at)
        }

        fn clear_empty_dir(&self, target: &Path, rel: &Path) -> Result<(), PathError> {
            match std::fs::symlink_metadata(target) {
                Ok(m) if m.is_dir() => std::fs::remove_dir(target).map_err(|e| io_error(rel, e)),
                _ => Ok(()),
            }
        }

        pub(super) fn put_file_at(
            &self,
            rel: &Path,
            name: &OsStr,
            content: &[u8],
            mode: u32,
        ) -> Result<(), PathError> {
            let parent = self.checked_parent(rel, true)?;
            let target = parent.join(name);
            self.clear_empty_dir(&target, rel)?;
            let temp = parent.join(temp_name(name));
            let written = (|| -> io::Result<()> {
                let mut file = File::create_new(&temp)?;
                file.set_permissions(Permissions::from_mode(mode))?;
                file.write_all(content)?;
                file.sync_all()?;
                std::fs::rename(&temp, &target)
            })();
            if let Err(e) = written {
                let _ = std::fs::remove_file(&temp);
                return Err(io_error(rel, e));
            }
            Ok(())
        }

        pub(super) fn make_dir_at(
            &self,
            rel: &Path,
            name: &OsStr,
            mode: u32,
        ) -> Result<(), PathError> {
            let target = self.checked_parent(rel, true)?.join(name);
            match DirBuilder::new().mode(mode).create(&target) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(io_error(rel, e)),
                _ => self.set_mode_at(rel, name, mode, true),
            }
        }

        pub(super) fn remove_at(&self, rel: &Path, name: &OsStr) -> Result<(), PathError> {
            let target = match self.checked_parent(rel, false) {
                Ok(parent) => parent.join(name),
                Err(PathError::NotFound { .. }) => return Ok(()),
                Err(e) => return Err(e),
            };
            let removed = match std::fs::symlink_metadata(&target) {
                Ok(m) if m.is_dir() => std::fs::remove_dir(&target),
                Ok(_) => std::fs::remove_file(&target),
                Err(e) => Err(e),
            };
            match removed {
                Err(e) if !gone(&e) => Err(io_error(rel, e)),
                _ => Ok(()),
            }
        }

        pub(super) fn put_symlink_at(
            &self,
            rel: &Path,
            name: &OsStr,
            target: &Path,
        ) -> Result<(), PathError> {
            let parent = self.checked_parent(rel, true)?;
            let at = parent.join(name);
            self.clear_empty_dir(&at, rel)?;
            let temp = parent.join(temp_name(name));
            let made = std::os::unix::fs::symlink(target, &temp)
                .and_then(|()| std::fs::rename(&temp, &at));
            if let Err(e) = made {
                let _ = std::fs::remove_file(&temp);
                return Err(io_error(rel, e));
            }
            Ok(())
        }

        pub(super) fn set_mode_at(
            &self,
            rel: &Path,
            name: &OsStr,
            mode: u32,
            dir_only: bool,
        ) -> Result<(), PathError> {
            let target = self.checked_parent(rel, false)?.join(name);
            let meta = std::fs::symlink_metadata(&target).map_err(|e| io_error(rel, e))?;
            let path = crate::display_rel(rel);
            if meta.file_type().is_symlink() {
                return Err(PathError::Raced { path });
            }
            if dir_only && !meta.is_dir() {
                return Err(not_a_dir(rel));
            }
            if !meta.is_dir() && !meta.is_file() {
                return Err(PathError::NotRegular {
                    path,
                    kind: crate::FileKind::of(meta.file_type()).unwrap_or(crate::FileKind::Other),
                });
            }
            if meta.is_file() && meta.nlink() > 1 {
                return Err(shared_file(rel));
            }
            std::fs::set_permissions(&target, Permissions::from_mode(mode))
                .map_err(|e| io_error(rel, e))
        }

        pub(super) fn open_dir_at(&self, rel: &Path) -> Result<File, PathError> {
            let dir = match rel.file_name() {
                Some(name) => self.checked_parent(rel, false)?.join(name),
                None => self.real.clone(),
            };
            let meta = std::fs::symlink_metadata(&dir).map_err(|e| io_error(rel, e))?;
            if meta.file_type().is_symlink() {
                return Err(PathError::Raced {
                    path: crate::display_rel(rel),
                });
            }
            File::open(&dir).map_err(|e| io_error(rel, e))
        }
    }
}

#[cfg(test)]
#[path = "restore_tests.rs"]
mod tests;
