//! The one way Paddock opens a file it reads on the user's or a repository's behalf: the
//! settings, instructions, prompts, ignore files and MCP configs a project carries, and the
//! files a user names (`--image`, `--output-schema`, their own config files).
//!
//! Such a path may be anything a stranger could plant: a FIFO (whose plain open waits for a
//! writer forever), a socket, a device (`/dev/zero` never ends; opening a tape or a modem
//! line acts on it), a folder, a link to any of these, or a huge file. So the file is
//! checked before it is opened (a device is never opened at all), opened without blocking
//! (`O_NONBLOCK | O_CLOEXEC | O_NOCTTY`, and `O_NOFOLLOW` where a link is refused), checked
//! again on the descriptor (what was opened is what is read, whatever was swapped in since
//! the first look), bounded in size, and only then put back in blocking mode for reading.
//! Every refusal names the path and what it is.

use std::fmt;
use std::fs::File;
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
    #[error("{path} is not a regular file ({kind}); Paddock will not read it")]
    NotRegular { path: String, kind: FileKind },
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

/// Whether a link at the path itself is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// The user's own file, which may well be a link (dotfiles, a screenshot folder): the
    /// link is followed and the file it leads to checked.
    Follow,
    /// A file a repository carries: a link is refused (it could lead anywhere on the
    /// user's machine).
    Refuse,
}

/// What a path that is not a regular file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Folder,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    /// A kind this platform does not name.
    Other,
}

impl FileKind {
    /// The kind of a file type that is not a regular file (`None` for a regular file).
    pub fn of(file_type: std::fs::FileType) -> Option<Self> {
        if file_type.is_file() {
            return None;
        }
        if file_type.is_dir() {
            return Some(Self::Folder);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if file_type.is_fifo() {
                return Some(Self::Fifo);
            }
            if file_type.is_socket() {
                return Some(Self::Socket);
            }
            if file_type.is_char_device() {
                return Some(Self::CharDevice);
            }
            if file_type.is_block_device() {
                return Some(Self::BlockDevice);
            }
        }
        Some(Self::Other)
    }
}

#[cfg(unix)]
impl FileKind {
    /// The kind of a raw file type that is not a regular file or a link (a link is the
    /// caller's to judge; here it counts as [`FileKind::Other`]).
    pub(crate) fn of_raw(file_type: rustix::fs::FileType) -> Self {
        use rustix::fs::FileType;
        match file_type {
            FileType::Directory => Self::Folder,
            FileType::Fifo => Self::Fifo,
            FileType::Socket => Self::Socket,
            FileType::CharacterDevice => Self::CharDevice,
            FileType::BlockDevice => Self::BlockDevice,
            _ => Self::Other,
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Folder => "a folder",
            Self::Fifo => "a FIFO",
            Self::Socket => "a socket",
            Self::CharDevice => "a character device",
            Self::BlockDevice => "a block device",
            Self::Other => "a special file",
        })
    }
}

/// A regular file opened by [`open_regular`]: its size when opened and the bound its
/// reads keep to.
#[derive(Debug)]
pub struct RegularFile {
    file: File,
    size: u64,
    max: u64,
    shown: String,
}

impl RegularFile {
    /// Its size when it was opened (it may grow since: the reads below keep to the bound).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The open file, in blocking mode, for a reader that bounds itself (at most
    /// [`RegularFile::max`] bytes).
    pub fn into_file(self) -> File {
        self.file
    }

    /// The bound it was opened with.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// All of it, refused when it grew past the bound since the open.
    pub fn read_all(self) -> Result<Vec<u8>, UntrustedFileError> {
        let (bytes, size, shown, max) = self.read_up_to_bound()?;
        if size > max {
            return Err(UntrustedFileError::TooBig {
                path: shown,
                size,
                max,
            });
        }
        Ok(bytes)
    }

    /// All of it as UTF-8 text (same bound).
    pub fn read_text(self) -> Result<String, UntrustedFileError> {
        let shown = self.shown.clone();
        String::from_utf8(self.read_all()?).map_err(|_| UntrustedFileError::NotText { path: shown })
    }

    /// Its first [`RegularFile::max`] bytes, and its size (at least what was seen).
    pub(crate) fn read_head(self) -> Result<(Vec<u8>, u64), UntrustedFileError> {
        let (mut bytes, size, _, max) = self.read_up_to_bound()?;
        bytes.truncate(usize::try_from(max).unwrap_or(usize::MAX));
        Ok((bytes, size))
    }

    /// At most `max + 1` bytes (one more to notice growth), the size seen, the name, the
    /// bound.
    fn read_up_to_bound(self) -> Result<(Vec<u8>, u64, String, u64), UntrustedFileError> {
        let Self {
            file,
            size,
            max,
            shown,
        } = self;
        let mut bytes = Vec::new();
        file.take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|source| UntrustedFileError::Io {
                path: shown.clone(),
                source,
            })?;
        let seen = size.max(bytes.len() as u64);
        Ok((bytes, seen, shown, max))
    }
}

/// Opens the regular file at `path` for reading, at most `max` bytes of it: anything else
/// (missing, a link where `links` refuses one, a FIFO, a socket, a device, a folder, over
/// `max` bytes) is an error naming the path and what it is. Never blocks.
pub fn open_regular(
    path: &Path,
    max: u64,
    links: Links,
) -> Result<RegularFile, UntrustedFileError> {
    let opened = open_unbounded(path, links, max)?;
    if opened.size > max {
        return Err(UntrustedFileError::TooBig {
            path: opened.shown,
            size: opened.size,
            max,
        });
    }
    Ok(opened)
}

/// The bytes of the regular file at `path` (as [`open_regular`]).
pub fn read_regular(path: &Path, max: u64, links: Links) -> Result<Vec<u8>, UntrustedFileError> {
    open_regular(path, max, links)?.read_all()
}

/// The UTF-8 text of the regular file at `path` (as [`open_regular`]).
pub fn read_regular_text(
    path: &Path,
    max: u64,
    links: Links,
) -> Result<String, UntrustedFileError> {
    open_regular(path, max, links)?.read_text()
}

/// As [`open_regular`], a file of any size, its reads kept to `max`.
pub(crate) fn open_unbounded(
    path: &Path,
    links: Links,
    max: u64,
) -> Result<RegularFile, UntrustedFileError> {
    let shown = path.display().to_string();
    // A first look, so that a device is refused without being opened at all (opening one
    // can act on it). What is read is judged again on the descriptor below.
    let looked = match links {
        Links::Follow => std::fs::metadata(path),
        Links::Refuse => std::fs::symlink_metadata(path),
    };
    match looked {
        Err(e) => return Err(look_error(path, &shown, links, e)),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(UntrustedFileError::Symlink { path: shown });
        }
        Ok(meta) => {
            if let Some(kind) = FileKind::of(meta.file_type()) {
                return Err(UntrustedFileError::NotRegular { path: shown, kind });
            }
        }
    }
    let file = open_nonblocking(path, links).map_err(|e| look_error(path, &shown, links, e))?;
    let meta = file.metadata().map_err(|source| UntrustedFileError::Io {
        path: shown.clone(),
        source,
    })?;
    if let Some(kind) = FileKind::of(meta.file_type()) {
        return Err(UntrustedFileError::NotRegular { path: shown, kind });
    }
    blocking(&file).map_err(|source| UntrustedFileError::Io {
        path: shown.clone(),
        source,
    })?;
    Ok(RegularFile {
        file,
        size: meta.len(),
        max,
        shown,
    })
}

/// The error for a failed look or open of `path`: missing, a link (refused), or the
/// system's own words.
fn look_error(path: &Path, shown: &str, links: Links, e: io::Error) -> UntrustedFileError {
    let is_link = || std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => UntrustedFileError::Missing {
            path: shown.to_owned(),
        },
        _ if links == Links::Refuse && is_link() => UntrustedFileError::Symlink {
            path: shown.to_owned(),
        },
        _ => {
            // Swapped for something else between the look and the open (a FIFO or socket
            // refuses a non-blocking open with ENXIO): say what it is now.
            let now = match links {
                Links::Follow => std::fs::metadata(path),
                Links::Refuse => std::fs::symlink_metadata(path),
            };
            match now.ok().and_then(|m| FileKind::of(m.file_type())) {
                Some(kind) => UntrustedFileError::NotRegular {
                    path: shown.to_owned(),
                    kind,
                },
                None => UntrustedFileError::Io {
                    path: shown.to_owned(),
                    source: e,
                },
            }
        }
    }
}

#[cfg(unix)]
fn open_nonblocking(path: &Path, links: Links) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    // O_NONBLOCK: a FIFO swapped in after the look cannot hold the open; O_NOCTTY: a
    // terminal never becomes ours; O_CLOEXEC: no program Paddock starts inherits it.
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if links == Links::Refuse {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path, _links: Links) -> io::Result<File> {
    File::open(path)
}

/// Back to blocking reads: a regular file on a network or FUSE file system may otherwise
/// answer a read with "try again".
#[cfg(unix)]
fn blocking(file: &File) -> io::Result<()> {
    use rustix::fs::OFlags;
    let flags = rustix::fs::fcntl_getfl(file)?;
    rustix::fs::fcntl_setfl(file, flags - OFlags::NONBLOCK)?;
    Ok(())
}

#[cfg(not(unix))]
fn blocking(_file: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
#[path = "regular_tests.rs"]
mod tests;
