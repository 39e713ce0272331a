//! What grep and glob share: the workspace walker (ripgrep's `ignore`, in parallel) and the
//! path filter (`globset`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use globset::{GlobBuilder, GlobMatcher};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use paddock_core::CallRules;
use paddock_guard::display_rel;
use paddock_protocol::Grant;

mod ignores;

use ignores::Ignores;

/// Folders never walked into: version control, dependencies, caches.
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    "node_modules",
    "__pycache__",
    ".venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];
/// Walker threads at most (the walk is mostly system calls; more rarely helps).
const MAX_THREADS: usize = 8;

/// A walk over a folder with .gitignore / .ignore honoured (git repo or not), hidden files
/// included, symlinks not followed and [`SKIPPED_DIRS`] skipped. Each folder's ignore files
/// are read by Paddock's opener ([`ignores`]), never by the walker, so a folder whose ignore
/// file is not a small regular file (a FIFO would block, a link to `/dev/zero` never end)
/// is not entered, even when it became one after a look; it is listed in [`Walk::skipped`].
pub struct Walk {
    builder: WalkBuilder,
    skipped: Arc<Mutex<Vec<String>>>,
    screen: Option<Arc<Screen>>,
}

/// The project's rules as a search tool's walk meets them: a file or folder the rules deny
/// the tool (or would ask about) is left out, so searching a folder never reads what
/// naming the file would not.
pub struct Screen {
    rules: Arc<dyn CallRules>,
    tool: &'static str,
    /// The workspace root (rules are relative to it).
    root: PathBuf,
    left_out: AtomicUsize,
}

impl Screen {
    /// The screen for `tool` under `rules` (the project's, if it has any), in a workspace
    /// whose real root is `root`.
    pub fn for_tool(
        rules: Option<Arc<dyn CallRules>>,
        tool: &'static str,
        root: &Path,
    ) -> Option<Arc<Self>> {
        rules.map(|rules| {
            Arc::new(Self {
                rules,
                tool,
                root: root.to_path_buf(),
                left_out: AtomicUsize::new(0),
            })
        })
    }

    /// Whether the rules keep `path` from the tool (deny, or ask: a search cannot ask).
    fn keeps_out(&self, path: &Path) -> bool {
        let rel = display_rel(&relative_to(path, &self.root));
        let out = matches!(
            self.rules.decide_found(self.tool, &rel).action,
            Some(Grant::Deny | Grant::Ask)
        );
        if out {
            self.left_out.fetch_add(1, Ordering::Relaxed);
        }
        out
    }
}

impl Walk {
    /// Refuses, with the reason, a folder whose own ignore files cannot be read safely.
    /// `screen` leaves out what the rules keep from the tool.
    pub fn new(dir: &Path, screen: Option<Arc<Screen>>) -> Result<Self, String> {
        let ignores = Ignores::new(dir).map_err(|why| format!("{why}; the search was not run"))?;
        let threads = std::thread::available_parallelism()
            .map_or(2, usize::from)
            .min(MAX_THREADS);
        let skipped = Arc::new(Mutex::new(Vec::new()));
        let noted = skipped.clone();
        let base = dir.to_path_buf();
        let screening = screen.clone();
        let mut builder = WalkBuilder::new(dir);
        builder
            .hidden(false)
            .parents(false)
            .ignore(false)
            .git_ignore(false)
            .git_exclude(false)
            .git_global(false)
            .require_git(false)
            .follow_links(false)
            .threads(threads)
            .filter_entry(move |entry| {
                if screening
                    .as_ref()
                    .is_some_and(|s| s.keeps_out(entry.path()))
                {
                    return false;
                }
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if ignores.ignored(entry.path(), is_dir) {
                    return false;
                }
                if !is_dir {
                    return true;
                }
                if entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n))
                {
                    return false;
                }
                match ignores.enter(entry.path()) {
                    Ok(()) => true,
                    Err(why) => {
                        let rel = display_rel(&relative_to(entry.path(), &base));
                        noted
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(format!("{rel} ({why})"));
                        false
                    }
                }
            });
        Ok(Self {
            builder,
            skipped,
            screen,
        })
    }

    /// Runs `visit` on every regular file of the walk, in parallel, each thread gathering
    /// into its own `Vec<T>`; returns everything gathered. `visit` returns false to stop.
    pub fn collect<T, F>(&self, make: impl Fn() -> F) -> Vec<T>
    where
        T: Send,
        F: FnMut(&DirEntry, &mut Vec<T>) -> bool + Send,
    {
        let gathered = Mutex::new(Vec::new());
        let mut factory = Factory {
            make,
            gathered: &gathered,
        };
        self.builder.build_parallel().visit(&mut factory);
        let mut all = Vec::new();
        if let Ok(parts) = gathered.into_inner() {
            for mut part in parts {
                all.append(&mut part);
            }
        }
        all
    }

    /// Folders not entered, with why; sorted.
    pub fn skipped(&self) -> Vec<String> {
        let mut skipped = self
            .skipped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        skipped.sort();
        skipped
    }

    /// A line for the result when folders were skipped or left out by the rules.
    pub fn skipped_note(&self) -> Option<String> {
        let skipped = self.skipped();
        let mut lines = Vec::new();
        if !skipped.is_empty() {
            lines.push(format!(
                "[not searched, their ignore files are not plain files: {}]",
                skipped.join(", ")
            ));
        }
        let left_out = self
            .screen
            .as_ref()
            .map_or(0, |s| s.left_out.load(Ordering::Relaxed));
        if left_out > 0 {
            lines.push(format!(
                "[{left_out} file(s) or folder(s) left out: the project's rules deny them to \
                 this tool or ask first]"
            ));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// Every file of the workspace whose real root is `root`, as the search tools see it
/// (ignore files honoured, [`SKIPPED_DIRS`] skipped, links not followed), relative with
/// `/`, sorted; at most `max` (the flag says when there were more).
pub fn workspace_files(root: &Path, max: usize) -> Result<(Vec<String>, bool), String> {
    let walk = Walk::new(root, None)?;
    let found = AtomicUsize::new(0);
    let mut paths: Vec<String> = walk.collect(|| {
        let found = &found;
        move |entry, paths: &mut Vec<String>| {
            if found.fetch_add(1, Ordering::Relaxed) >= max {
                return false;
            }
            paths.push(display_rel(&relative_to(entry.path(), root)));
            true
        }
    });
    paths.sort_unstable();
    Ok((paths, found.load(Ordering::Relaxed) > max))
}

struct Factory<'a, M, T> {
    make: M,
    gathered: &'a Mutex<Vec<Vec<T>>>,
}

impl<'s, 'a: 's, M, F, T> ParallelVisitorBuilder<'s> for Factory<'a, M, T>
where
    M: Fn() -> F,
    F: FnMut(&DirEntry, &mut Vec<T>) -> bool + Send + 's,
    T: Send + 's,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            visit: (self.make)(),
            items: Vec::new(),
            gathered: self.gathered,
        })
    }
}

struct Visitor<'a, F, T> {
    visit: F,
    items: Vec<T>,
    gathered: &'a Mutex<Vec<Vec<T>>>,
}

impl<F, T> ParallelVisitor for Visitor<'_, F, T>
where
    F: FnMut(&DirEntry, &mut Vec<T>) -> bool + Send,
    T: Send,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        // Unreadable entries are skipped, as ripgrep does.
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        if (self.visit)(&entry, &mut self.items) {
            WalkState::Continue
        } else {
            WalkState::Quit
        }
    }
}

impl<F, T> Drop for Visitor<'_, F, T> {
    fn drop(&mut self) {
        if let Ok(mut all) = self.gathered.lock() {
            all.push(std::mem::take(&mut self.items));
        }
    }
}

/// A glob over paths: without `/` it matches the file name anywhere (`*.rs`); with `/` it
/// matches the whole path relative to the search folder (`src/**/*.rs`), `*` not crossing `/`.
#[derive(Debug, Clone)]
pub struct PathMatcher {
    glob: GlobMatcher,
    whole_path: bool,
}

impl PathMatcher {
    pub fn new(pattern: &str) -> Result<Self, String> {
        let pattern = pattern.trim();
        let trimmed = pattern.strip_prefix("./").unwrap_or(pattern);
        if trimmed.is_empty() {
            return Err("the glob pattern is empty".to_owned());
        }
        let whole_path = trimmed.contains('/');
        let glob = GlobBuilder::new(trimmed)
            .literal_separator(whole_path)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("invalid glob pattern '{pattern}': {}", e.kind()))?;
        Ok(Self {
            glob: glob.compile_matcher(),
            whole_path,
        })
    }

    /// `rel` is relative to the search folder.
    pub fn is_match(&self, rel: &Path, name: &OsStr) -> bool {
        if self.whole_path {
            self.glob.is_match(rel)
        } else {
            self.glob.is_match(name)
        }
    }
}

/// `path` relative to `base`, or the path itself when it is not under it.
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    path.strip_prefix(base).unwrap_or(path).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        let p = Path::new(path);
        PathMatcher::new(pattern)
            .unwrap()
            .is_match(p, p.file_name().unwrap_or_default())
    }

    #[test]
    fn name_globs_match_anywhere_and_path_globs_match_the_path() {
        assert!(m("*.rs", "a/b/c.rs"));
        assert!(m("src/**/*.rs", "src/a/b.rs"));
        assert!(m("src/**/*.rs", "src/b.rs"));
        assert!(!m("src/*.rs", "src/a/b.rs"));
        assert!(!m("src/**/*.rs", "lib/src/a.rs"));
        assert!(m("./src/*.rs", "src/a.rs"));
        assert!(m("*.{rs,toml}", "Cargo.toml"));
    }

    #[test]
    fn bad_globs_are_errors() {
        assert!(PathMatcher::new("a[").unwrap_err().contains("invalid glob"));
        assert!(PathMatcher::new(" ").is_err());
    }
}
