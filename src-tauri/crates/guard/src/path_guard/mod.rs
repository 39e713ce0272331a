//! The path guard every file tool goes through. A path is resolved beneath the workspace
//! root with every symlink followed (see [`resolve_beneath`]); on Linux the file is then
//! opened with `openat2(RESOLVE_BENEATH)` from a descriptor of the root, so a symlink swapped
//! in between the check and the open cannot lead outside. Elsewhere it is resolve-then-open.

use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

pub use crate::error::{PathError, READ_ONLY_DIRS};
use crate::resolve::{ResolveError, Resolved, display_rel, resolve_beneath};

mod atomic_write;
mod restore;

/// Mode of directories file_write creates.
const DIR_MODE: u32 = 0o755;
/// Mode of files file_write creates.
const FILE_MODE: u32 = 0o644;

/// The workspace root as configured. Cheap; touches the disk only when opened.
#[derive(Debug, Clone)]
pub struct PathGuard {
    root: PathBuf,
    /// The project folder the root must be a real folder inside of, when known.
    project: Option<PathBuf>,
    /// Folders the root may not hold (homes, config folders, credentials, Paddock's data).
    private: Vec<PathBuf>,
    /// Folders the root may not be inside of (Paddock's own).
    own: Vec<PathBuf>,
}

impl PathGuard {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            project: None,
            private: Vec::new(),
            own: Vec::new(),
        }
    }

    /// The root may not hold any of `private` (nor be `/`), nor be inside any of `own`.
    pub fn protecting(mut self, private: Vec<PathBuf>, own: Vec<PathBuf>) -> Self {
        self.private = private;
        self.own = own;
        self
    }

    /// The root must be a real folder inside `project`: not a symlink (a repository could
    /// commit `.agent-workspace -> ..`), and not resolving outside it.
    pub fn inside(mut self, project: impl Into<PathBuf>) -> Self {
        self.project = Some(project.into());
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Opens the root, which must exist (read tools, file_edit, grep, glob, bash).
    pub fn open_root(&self) -> Result<Root, PathError> {
        if self.root.as_os_str().is_empty() {
            return Err(PathError::NoWorkspace);
        }
        let configured = absolute(&self.root)?;
        self.check_not_link(&configured)?;
        let real = match configured.canonicalize() {
            Ok(real) => real,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(PathError::RootMissing {
                    root: configured.display().to_string(),
                });
            }
            Err(e) => return Err(io_error(&configured, e)),
        };
        if !real.is_dir() {
            return Err(PathError::RootNotDir {
                root: configured.display().to_string(),
            });
        }
        let held = self
            .private
            .iter()
            .find(|p| p.starts_with(&real))
            .map(|p| format!("holds {}", p.display()));
        let inside = self
            .own
            .iter()
            .find(|o| real.starts_with(o))
            .map(|o| format!("is inside Paddock's own folder {}", o.display()));
        if let Some(what) = held.or(inside) {
            return Err(PathError::RootHoldsPrivate {
                root: configured.display().to_string(),
                what,
            });
        }
        if let Some(project) = &self.project {
            let project = project.canonicalize().map_err(|e| io_error(project, e))?;
            if !real.starts_with(&project) {
                return Err(PathError::RootOutside {
                    root: configured.display().to_string(),
                    project: project.display().to_string(),
                });
            }
        }
        Root::open(configured, real)
    }

    /// Inside a project, the root itself may not be a symlink (dangling or not): checked
    /// before it is resolved or created, so nothing is made through it.
    fn check_not_link(&self, configured: &Path) -> Result<(), PathError> {
        if self.project.is_some()
            && std::fs::symlink_metadata(configured).is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err(PathError::RootIsLink {
                root: configured.display().to_string(),
            });
        }
        Ok(())
    }

    /// Creates the root when missing, then opens it. Only file_write does this.
    pub fn create_root(&self) -> Result<Root, PathError> {
        match self.open_root() {
            Err(PathError::RootMissing { root }) => {
                std::fs::create_dir_all(&root).map_err(|e| PathError::Io {
                    path: root.clone(),
                    source: e,
                })?;
                self.open_root()
            }
            other => other,
        }
    }
}

/// An opened workspace root: its configured and real location (and, on Linux, a descriptor).
#[derive(Debug)]
pub struct Root {
    pub(super) configured: PathBuf,
    pub(super) real: PathBuf,
    #[cfg(target_os = "linux")]
    dir: std::os::fd::OwnedFd,
}

impl Root {
    #[cfg(target_os = "linux")]
    fn open(configured: PathBuf, real: PathBuf) -> Result<Self, PathError> {
        use rustix::fs::{Mode, OFlags};
        let dir = rustix::fs::open(
            &real,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_error(&real, e.into()))?;
        Ok(Self {
            configured,
            real,
            dir,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn open(configured: PathBuf, real: PathBuf) -> Result<Self, PathError> {
        Ok(Self { configured, real })
    }

    /// The root's real location (symlinks resolved).
    pub fn real_path(&self) -> &Path {
        &self.real
    }

    /// The root as configured, made absolute.
    pub fn configured_path(&self) -> &Path {
        &self.configured
    }

    /// Resolves a path the model gave (relative to the root, or absolute) to a place inside
    /// the workspace, or refuses it.
    pub fn resolve(&self, input: &str) -> Result<Resolved, PathError> {
        if input.is_empty() {
            return Err(PathError::Empty);
        }
        let given = Path::new(input);
        let relative = if given.is_absolute() {
            self.strip_absolute(given)
                .ok_or_else(|| PathError::Outside {
                    path: input.to_owned(),
                })?
        } else {
            given.to_path_buf()
        };
        let aliases = [self.configured.as_path()];
        resolve_beneath(&self.real, &aliases, &relative).map_err(|e| match e {
            ResolveError::ClimbsOut => PathError::Outside {
                path: input.to_owned(),
            },
            ResolveError::LinkOutside(link) => PathError::LinkOutside {
                path: input.to_owned(),
                link,
            },
            ResolveError::Loop => PathError::Loop {
                path: input.to_owned(),
            },
            ResolveError::Io(source) => PathError::Io {
                path: input.to_owned(),
                source,
            },
        })
    }

    /// An absolute path as a path relative to the root, if it names a place under the root
    /// by the configured path, the real path, or through some other symlinked prefix.
    fn strip_absolute(&self, given: &Path) -> Option<PathBuf> {
        for root in [&self.configured, &self.real] {
            if let Ok(rest) = given.strip_prefix(root) {
                return Some(rest.to_path_buf());
            }
        }
        // Another spelling, e.g. through a symlink to the root: canonicalize the longest
        // existing prefix (no `..` allowed, so the prefix means what it says).
        if given.components().any(|c| c == Component::ParentDir) {
            return None;
        }
        let mut prefix = given.to_path_buf();
        let mut rest = Vec::new();
        loop {
            if let Ok(real) = prefix.canonicalize() {
                let inside = real.strip_prefix(&self.real).ok()?;
                let mut rel = inside.to_path_buf();
                rel.extend(rest.iter().rev());
                return Some(rel);
            }
            rest.push(prefix.file_name()?.to_os_string());
            if !prefix.pop() {
                return None;
            }
        }
    }

    /// Opens an existing regular file for reading.
    pub fn open_read(&self, input: &str) -> Result<(Resolved, File), PathError> {
        let resolved = self.resolve(input)?;
        if !resolved.exists {
            return Err(PathError::NotFound {
                path: input.to_owned(),
            });
        }
        if resolved.is_dir {
            return Err(PathError::IsDir {
                path: resolved.display(),
            });
        }
        let file = self.open_rel_read(&resolved.rel)?;
        Ok((resolved, file))
    }

    /// Opens a file found by walking the workspace (grep), relative to the real root.
    pub fn open_rel_read(&self, rel: &Path) -> Result<File, PathError> {
        let file = self.open_file(rel, Access::Read)?;
        check_regular(&file, rel)?;
        Ok(file)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    CreateNew,
}

#[cfg(target_os = "linux")]
impl Root {
    fn open_file(&self, rel: &Path, access: Access) -> Result<File, PathError> {
        let fd = open_beneath(&self.dir, rel, access).map_err(|e| self.open_error(rel, e))?;
        Ok(File::from(fd))
    }

    /// A descriptor of `rel`'s parent, opened beneath the root; with `create`, missing
    /// parents are made one directory at a time, each opened beneath the last.
    pub(super) fn parent_dir(
        &self,
        rel: &Path,
        create: bool,
    ) -> Result<std::os::fd::OwnedFd, PathError> {
        use rustix::fs::{Mode, OFlags};
        let mut dir =
            rustix::io::fcntl_dupfd_cloexec(&self.dir, 0).map_err(|e| io_error(rel, e.into()))?;
        let Some(parent) = rel.parent() else {
            return Ok(dir);
        };
        if !create {
            if parent.as_os_str().is_empty() {
                return Ok(dir);
            }
            return openat2_beneath(&dir, parent, OFlags::PATH | OFlags::DIRECTORY)
                .map_err(|e| self.open_error(rel, e));
        }
        for part in parent.components() {
            let Component::Normal(part) = part else {
                return Err(PathError::Outside {
                    path: display_rel(rel),
                });
            };
            match rustix::fs::mkdirat(&dir, part, Mode::from_raw_mode(DIR_MODE)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(io_error(rel, e.into())),
            }
            dir = openat2_beneath(&dir, part.as_ref(), OFlags::PATH | OFlags::DIRECTORY)
                .map_err(|e| self.open_error(rel, e))?;
        }
        Ok(dir)
    }

    pub(super) fn open_error(&self, rel: &Path, e: rustix::io::Errno) -> PathError {
        use rustix::io::Errno;
        let path = display_rel(rel);
        match e {
            // The path was symlink-free when resolved: leaving the root now means a swap.
            Errno::XDEV | Errno::LOOP => PathError::Raced { path },
            Errno::NOENT => PathError::NotFound { path },
            Errno::ISDIR => PathError::IsDir { path },
            // A socket (or a device with nothing behind it) refuses to be opened: say what
            // it is rather than "no such device or address".
            Errno::NXIO => {
                match rustix::fs::statat(&self.dir, rel, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) => PathError::NotRegular {
                        path,
                        kind: crate::FileKind::of_raw(rustix::fs::FileType::from_raw_mode(
                            st.st_mode,
                        )),
                    },
                    Err(_) => PathError::Io {
                        path,
                        source: e.into(),
                    },
                }
            }
            other => PathError::Io {
                path,
                source: other.into(),
            },
        }
    }
}

#[cfg(target_os = "linux")]
pub(super) fn open_beneath(
    dir: &std::os::fd::OwnedFd,
    rel: &Path,
    access: Access,
) -> rustix::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::OFlags;
    // Non-blocking so a FIFO cannot hang the open; regular files ignore the flag.
    let base = OFlags::NOCTTY | OFlags::NONBLOCK;
    let flags = match access {
        Access::Read => base | OFlags::RDONLY,
        Access::CreateNew => base | OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL,
    };
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    openat2_beneath(dir, rel, flags)
}

#[cfg(target_os = "linux")]
fn openat2_beneath(
    dir: &std::os::fd::OwnedFd,
    rel: &Path,
    flags: rustix::fs::OFlags,
) -> rustix::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    // openat2 insists on a zero mode unless it creates.
    let mode = if flags.contains(OFlags::CREATE) {
        Mode::from_raw_mode(FILE_MODE)
    } else {
        Mode::empty()
    };
    // Every path opened here was resolved to its real, symlink-free form first, so a link
    // met now was swapped in since: refused, even one that stays inside the root (it could
    // lead a write into .git).
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
    match rustix::fs::openat2(dir, rel, flags | OFlags::CLOEXEC, mode, resolve) {
        // Kernels before 5.6 (or seccomp filters) lack openat2: refuse every symlink
        // instead, which still cannot escape because the path was resolved symlink-free.
        Err(rustix::io::Errno::NOSYS) => {
            let mut fd = rustix::io::fcntl_dupfd_cloexec(dir, 0)?;
            let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
            for (i, part) in parts.iter().enumerate() {
                let last = i + 1 == parts.len();
                let f = if last {
                    flags | OFlags::NOFOLLOW
                } else {
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW
                };
                if *part == ".." {
                    return Err(rustix::io::Errno::XDEV);
                }
                fd = rustix::fs::openat(&fd, *part, f | OFlags::CLOEXEC, mode)?;
            }
            Ok(fd)
        }
        other => other,
    }
}

#[cfg(not(target_os = "linux"))]
impl Root {
    fn open_file(&self, rel: &Path, access: Access) -> Result<File, PathError> {
        let path = self.real.join(rel);
        let mut options = std::fs::OpenOptions::new();
        match access {
            Access::Read => options.read(true),
            Access::CreateNew => options.write(true).create_new(true),
        };
        options.open(&path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => PathError::NotFound {
                path: display_rel(rel),
            },
            _ => io_error(rel, e),
        })
    }
}

fn check_regular(file: &File, rel: &Path) -> Result<(), PathError> {
    let meta = file.metadata().map_err(|e| io_error(rel, e))?;
    if meta.is_dir() {
        return Err(PathError::IsDir {
            path: display_rel(rel),
        });
    }
    if let Some(kind) = crate::FileKind::of(meta.file_type()) {
        return Err(PathError::NotRegular {
            path: display_rel(rel),
            kind,
        });
    }
    Ok(())
}

fn absolute(path: &Path) -> Result<PathBuf, PathError> {
    std::path::absolute(path).map_err(|e| io_error(path, e))
}

pub(crate) fn io_error(path: &Path, source: io::Error) -> PathError {
    PathError::Io {
        path: display_rel(path),
        source,
    }
}
