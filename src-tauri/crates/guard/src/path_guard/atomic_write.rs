//! How file_write and file_edit change a file: the new contents go to a temporary file beside
//! it, reach the disk, and are renamed over the old one. A crash, a kill or a full disk
//! mid-write leaves the old file or the new one, never a truncated mix.

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::PathError;
use crate::path_guard::Root;
use crate::path_guard::io_error;
use crate::resolve::Resolved;

/// Tells apart the temporary files of concurrent writes in one process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// `.name.paddock-<pid>-<n>.tmp`: hidden, and plainly ours if a crash leaves one behind.
fn temp_name(name: &OsStr) -> OsString {
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(
        ".paddock-{}-{}.tmp",
        std::process::id(),
        NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
    ));
    temp
}

impl Root {
    /// Replaces the whole contents of the file at `input`, keeping its permissions. With
    /// `create`, a missing file and its missing parents are created. Returns where the file
    /// is and whether it is new.
    pub fn write_file(
        &self,
        input: &str,
        create: bool,
        content: &[u8],
    ) -> Result<(Resolved, bool), PathError> {
        let resolved = self.resolve(input)?;
        resolved.check_writable()?;
        let name = match resolved.rel.file_name() {
            Some(name) if !resolved.is_dir => name.to_owned(),
            _ => {
                return Err(PathError::IsDir {
                    path: resolved.display(),
                });
            }
        };
        if !create && !resolved.exists {
            return Err(PathError::NotFound {
                path: input.to_owned(),
            });
        }
        let created = self.replace(&resolved.rel, &name, create, content)?;
        Ok((resolved, created))
    }
}

#[cfg(target_os = "linux")]
impl Root {
    fn replace(
        &self,
        rel: &Path,
        name: &OsStr,
        create: bool,
        content: &[u8],
    ) -> Result<bool, PathError> {
        use rustix::fs::{AtFlags, FileType, Mode};
        use rustix::io::Errno;

        use crate::path_guard::{Access, open_beneath};

        // Everything below happens in this directory, opened beneath the root: swapping a
        // parent for a symlink now cannot move the write elsewhere.
        let dir = self.parent_dir(rel, create)?;
        let path = crate::display_rel(rel);
        let mode = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => Some(Mode::from_raw_mode(st.st_mode & 0o7777)),
                FileType::Directory => return Err(PathError::IsDir { path }),
                // The path resolved symlink-free: a link here now is a swap.
                FileType::Symlink => return Err(PathError::Raced { path }),
                other => {
                    return Err(PathError::NotRegular {
                        path,
                        kind: crate::FileKind::of_raw(other),
                    });
                }
            },
            Err(Errno::NOENT) if create => None,
            Err(e) => return Err(self.open_error(rel, e)),
        };
        let temp = temp_name(name);
        let fd = open_beneath(&dir, Path::new(&temp), Access::CreateNew)
            .map_err(|e| self.open_error(rel, e))?;
        let mut file = std::fs::File::from(fd);
        let written = (|| -> io::Result<()> {
            if let Some(mode) = mode {
                rustix::fs::fchmod(&file, mode)?;
            }
            file.write_all(content)?;
            file.sync_all()?;
            rustix::fs::renameat(&dir, &temp, &dir, name)?;
            Ok(())
        })();
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(&dir, &temp, AtFlags::empty());
            return Err(io_error(rel, e));
        }
        Ok(mode.is_none())
    }
}

#[cfg(not(target_os = "linux"))]
impl Root {
    fn replace(
        &self,
        rel: &Path,
        name: &OsStr,
        create: bool,
        content: &[u8],
    ) -> Result<bool, PathError> {
        let parent = rel.parent().unwrap_or(Path::new(""));
        if create {
            std::fs::create_dir_all(self.real.join(parent)).map_err(|e| io_error(rel, e))?;
        }
        // Re-check after creating the parents: they must still resolve inside.
        match crate::resolve::resolve_beneath(&self.real, &[self.configured.as_path()], rel) {
            Ok(r) if r.rel == rel => {}
            _ => {
                return Err(PathError::Raced {
                    path: crate::display_rel(rel),
                });
            }
        }
        let target = self.real.join(rel);
        let path = crate::display_rel(rel);
        let permissions = match std::fs::symlink_metadata(&target) {
            Ok(m) if m.is_file() => Some(m.permissions()),
            Ok(m) if m.is_dir() => return Err(PathError::IsDir { path }),
            Ok(m) => {
                return Err(PathError::NotRegular {
                    path,
                    kind: crate::FileKind::of(m.file_type()).unwrap_or(crate::FileKind::Other),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => None,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(PathError::NotFound { path });
            }
            Err(e) => return Err(io_error(rel, e)),
        };
        let temp = self.real.join(parent).join(temp_name(name));
        let written = (|| -> io::Result<()> {
            let mut file = std::fs::File::create_new(&temp)?;
            if let Some(permissions) = permissions.clone() {
                file.set_permissions(permissions)?;
            }
            file.write_all(content)?;
            file.sync_all()?;
            std::fs::rename(&temp, &target)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(io_error(rel, e));
        }
        Ok(permissions.is_none())
    }
}
