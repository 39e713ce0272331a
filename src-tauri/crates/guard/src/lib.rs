//! File access confined to a workspace: the path guard (every path resolved with its links
//! and kept beneath the root), atomic writes and the guarded operations a rewind uses
//! (opened beneath the root, never through a swapped-in link, `.git` and `.paddock` left
//! alone), and reading a file a stranger may have planted without blocking or filling
//! memory ([`open_regular`]: the one opening of every file Paddock reads on the user's or a
//! repository's behalf). The bash wall is another crate (`paddock-sandbox`).

mod error;
mod path_guard;
mod regular;
mod resolve;
mod untrusted;

pub use path_guard::{PathError, PathGuard, READ_ONLY_DIRS, Root};
pub use regular::{FileKind, Links, RegularFile, open_regular, read_regular, read_regular_text};
pub use resolve::{MAX_SYMLINK_HOPS, Resolved, display_rel};
pub use untrusted::{UntrustedFileError, read_untrusted, read_untrusted_head};
