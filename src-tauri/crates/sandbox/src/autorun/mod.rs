//! Files other programs run on their own, outside the wall: git's metadata in every
//! repository of the workspace (configuration, hooks, `.git` links; top, nested, bare or
//! new), and files tools such as direnv and editors run (`.envrc`, task files). The user's
//! own `git` or shell prompt would later run what the agent wrote there, unconfined. What
//! exists is kept read-only behind the wall; what appears or changes during a call is found
//! by comparing two scans, and judged: git configuration whose keys are all inert is kept,
//! everything else is held for the user.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

pub use paddock_rules::git::first_active_key;

/// Files other programs run, by name or path ending, matched at any depth; a trailing `/`
/// takes every file in such a folder. The settings' `autoRunFiles` add to these.
pub const DEFAULT_AUTORUN: &[&str] = &[
    ".envrc",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".vscode/launch.json",
    ".devcontainer/devcontainer.json",
    ".zed/tasks.json",
    ".zed/settings.json",
    ".nvim.lua",
    ".nvimrc",
    ".exrc",
    ".dir-locals.el",
    ".husky/",
    ".githooks/",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
];

/// Entries looked at at most in one scan; past it the scan says it is incomplete.
const MAX_ENTRIES: usize = 200_000;
/// Bytes of one file kept to compare and restore; a larger one is compared by its stamp.
const MAX_ITEM_BYTES: u64 = 1024 * 1024;
/// The file of a repository folder naming the folder that holds its objects, refs and
/// configuration.
const COMMONDIR: &str = "commondir";
/// Rounds of following `.git` files and `commondir`s to the folders they name.
const MAX_LINK_ROUNDS: usize = 8;
/// Folders of a git folder that hold no configuration or hooks (and can be huge).
const GIT_DATA_DIRS: &[&str] = &["objects", "refs", "logs", "lfs", "rr-cache"];

/// What a file is to the programs that run it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A repository's `config` or `config.worktree`.
    GitConfig,
    /// A file in a repository's `hooks` folder (not a `.sample`).
    GitHook,
    /// A `.git` file: `gitdir: <path>` makes git use that folder.
    GitLink,
    /// A file on the auto-run list.
    AutoRun,
}

/// A file's content as scanned: its bytes, or (when large) what changes with it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Content {
    Bytes(Vec<u8>),
    Link(PathBuf),
    Stamp {
        len: u64,
        ctime: i64,
        ctime_ns: i64,
        ino: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub kind: Kind,
    content: Content,
}

/// A change that makes something run outside the wall, held for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// Relative to the workspace root.
    pub rel: PathBuf,
    pub kind: Kind,
    /// In plain words, for the user and the model.
    pub why: String,
    /// The content before the call, when it existed and was small enough to keep.
    pub before: Option<Vec<u8>>,
    pub existed: bool,
    /// The content now (text or bytes), for the diff shown to the user.
    pub now: Option<Vec<u8>>,
}

/// The run-by-others files of one workspace at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Surfaces {
    root: PathBuf,
    items: BTreeMap<PathBuf, Item>,
    /// Repository folders found (relative).
    git_dirs: Vec<PathBuf>,
    /// More entries than a scan looks at: some may be missing.
    pub incomplete: bool,
}

impl Surfaces {
    /// Scans `root` (which must be a real folder) with the default list and `extra`.
    pub fn scan(root: &Path, extra: &[String]) -> Self {
        let patterns: Vec<&str> = DEFAULT_AUTORUN
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
            .collect();
        let mut out = Self {
            root: root.to_path_buf(),
            ..Self::default()
        };
        let mut seen = 0usize;
        let mut pending: Vec<PathBuf> = vec![PathBuf::new()];
        while let Some(rel) = pending.pop() {
            let Ok(read) = std::fs::read_dir(root.join(&rel)) else {
                continue;
            };
            let mut entries = Vec::new();
            for entry in read.flatten() {
                seen += 1;
                if seen > MAX_ENTRIES {
                    out.incomplete = true;
                    return out;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                entries.push((entry.file_name(), kind));
            }
            let has = |name: &str, dir: bool| {
                entries
                    .iter()
                    .any(|(n, k)| n == name && if dir { k.is_dir() } else { k.is_file() })
            };
            let named_git = rel.file_name().is_some_and(|n| n == ".git");
            // As git takes a folder for a repository's: objects and refs may be another
            // folder's, named by `commondir`.
            let git_dir = named_git
                || has(COMMONDIR, false)
                || (has("HEAD", false) && has("objects", true) && has("refs", true));
            if git_dir {
                out.add_git_dir(&rel);
            }
            for (name, kind) in &entries {
                if git_dir && name == COMMONDIR && !kind.is_dir() {
                    out.add(rel.join(name), Kind::GitLink);
                    continue;
                }
                let child = rel.join(name);
                if kind.is_dir() {
                    let skip =
                        git_dir && (name == "hooks" || GIT_DATA_DIRS.iter().any(|d| name == *d));
                    if !skip {
                        pending.push(child);
                    }
                } else if name == ".git" {
                    out.add(child, Kind::GitLink);
                } else if matches_any(&child, &patterns) {
                    out.add(child, Kind::AutoRun);
                }
            }
        }
        out.add_link_targets();
        out
    }

    /// A repository folder's configuration and hooks, once.
    fn add_git_dir(&mut self, rel: &Path) {
        if self.git_dirs.iter().any(|g| g == rel) {
            return;
        }
        self.git_dirs.push(rel.to_path_buf());
        for name in ["config", "config.worktree"] {
            let path = rel.join(name);
            if std::fs::symlink_metadata(self.root.join(&path)).is_ok_and(|m| !m.is_dir()) {
                self.add(path, Kind::GitConfig);
            }
        }
        self.add_hooks(&rel.join("hooks"));
    }

    /// Folders inside the workspace that a `.git` file or a `commondir` names are
    /// repository folders to git whatever they hold: their configuration and hooks count
    /// (a `.git` at the root saying `gitdir: g`, with `g/commondir` naming a folder whose
    /// `config` sets `core.fsmonitor`, was read by the next `git status`).
    fn add_link_targets(&mut self) {
        let mut rounds = 0;
        loop {
            let targets: Vec<PathBuf> = self
                .items
                .iter()
                .filter(|(_, item)| item.kind == Kind::GitLink)
                .filter_map(|(rel, item)| match &item.content {
                    Content::Bytes(bytes) => self.link_target(rel, bytes),
                    _ => None,
                })
                .filter(|t| !self.git_dirs.contains(t))
                .collect();
            rounds += 1;
            if targets.is_empty() || rounds > MAX_LINK_ROUNDS {
                return;
            }
            for target in targets {
                if self.root.join(&target).is_dir() {
                    self.add_git_dir(&target);
                    let commondir = target.join(COMMONDIR);
                    if self.root.join(&commondir).is_file() {
                        self.add(commondir, Kind::GitLink);
                    }
                } else {
                    // Not a folder: nothing more to find; never asked again.
                    self.git_dirs.push(target);
                }
            }
        }
    }

    /// Where a `.git` file or a `commondir` (at `rel`) points, relative to the root, when
    /// inside it.
    fn link_target(&self, rel: &Path, bytes: &[u8]) -> Option<PathBuf> {
        let text = String::from_utf8_lossy(bytes);
        let target = link_text(rel, &text)?;
        let base = self.root.join(rel.parent().unwrap_or(Path::new("")));
        let lexical = normalize(&base.join(target));
        let real = std::fs::canonicalize(&lexical).ok()?;
        let real_root = std::fs::canonicalize(&self.root).ok()?;
        real.strip_prefix(&real_root).ok().map(Path::to_path_buf)
    }

    fn add(&mut self, rel: PathBuf, kind: Kind) {
        if let Some(content) = read_content(&self.root.join(&rel)) {
            self.items.insert(rel, Item { kind, content });
        }
    }

    fn add_hooks(&mut self, hooks: &Path) {
        let Ok(read) = std::fs::read_dir(self.root.join(hooks)) else {
            return;
        };
        for entry in read.flatten() {
            let name = entry.file_name();
            let sample = name.to_string_lossy().ends_with(".sample");
            if !sample && entry.file_type().is_ok_and(|k| !k.is_dir()) {
                self.add(hooks.join(name), Kind::GitHook);
            }
        }
    }

    /// The repositories' configuration files found, as full paths.
    pub fn config_files(&self) -> Vec<PathBuf> {
        self.items
            .iter()
            .filter(|(_, item)| item.kind == Kind::GitConfig)
            .map(|(rel, _)| self.root.join(rel))
            .collect()
    }

    /// The files found that git runs as hooks or that sit in a hooks folder on the
    /// auto-run list (`.husky/`, `.githooks/`), as full paths.
    /// A repository's own `core.hooksPath` folder counts too (its configuration is the
    /// user's: it existed, and is held when a call changes it).
    pub fn hook_candidates(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .items
            .iter()
            .filter(|(_, item)| matches!(item.kind, Kind::GitHook | Kind::AutoRun))
            .map(|(rel, _)| self.root.join(rel))
            .collect();
        for dir in self.git_dirs.iter().filter_map(|g| self.hooks_path_of(g)) {
            if let Ok(read) = std::fs::read_dir(&dir) {
                out.extend(read.flatten().map(|e| e.path()));
            }
        }
        out
    }

    /// The folder a repository's configuration names as `core.hooksPath`, relative paths
    /// taken from where git runs hooks (the folder holding `.git`, or a bare repository).
    fn hooks_path_of(&self, git_dir: &Path) -> Option<PathBuf> {
        let Content::Bytes(bytes) = &self.items.get(&git_dir.join("config"))?.content else {
            return None;
        };
        let value = paddock_rules::git::core_hooks_path(&String::from_utf8_lossy(bytes))?;
        let path = Path::new(&value);
        if path.is_absolute() {
            return Some(path.to_path_buf());
        }
        if value.starts_with('~') {
            return None;
        }
        let dir = self.root.join(git_dir);
        let top = if git_dir.file_name().is_some_and(|n| n == ".git") {
            dir.parent()?.to_path_buf()
        } else {
            dir
        };
        Some(top.join(path))
    }

    /// Existing paths to keep read-only behind the wall: every such file, and each
    /// repository's hooks folder (so no hook can be added).
    pub fn read_only(&self) -> Vec<PathBuf> {
        let hooks = self
            .git_dirs
            .iter()
            .map(|g| self.root.join(g).join("hooks"))
            .filter(|h| h.is_dir());
        let mut out: Vec<PathBuf> = self
            .items
            .keys()
            .map(|rel| self.root.join(rel))
            .chain(hooks)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// How many files are watched.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// What appeared or changed since `before` that would make a program run outside the
    /// wall. Inert git configuration (only described keys) is not held.
    pub fn held_since(&self, before: &Surfaces) -> Vec<Held> {
        let mut out = Vec::new();
        for (rel, item) in &self.items {
            let old = before.items.get(rel);
            if old.is_some_and(|o| o.content == item.content) {
                continue;
            }
            let Some(why) = self.judge(rel, item) else {
                continue;
            };
            let bytes = |c: &Content| match c {
                Content::Bytes(b) => Some(b.clone()),
                _ => None,
            };
            out.push(Held {
                rel: rel.clone(),
                kind: item.kind,
                why,
                before: old.and_then(|o| bytes(&o.content)),
                existed: old.is_some(),
                now: bytes(&item.content),
            });
        }
        out
    }

    /// Why `item` runs something, or `None` when it is inert.
    fn judge(&self, rel: &Path, item: &Item) -> Option<String> {
        let shown = rel.display();
        match (&item.kind, &item.content) {
            (_, Content::Link(target)) => Some(format!(
                "{shown} is a link to {}, which {}",
                target.display(),
                runs_it(item.kind)
            )),
            (Kind::GitConfig, Content::Bytes(bytes)) => {
                let text = String::from_utf8_lossy(bytes);
                first_active_key(&text).map(|key| {
                    format!(
                        "{shown} sets {key}: git would run a program or read another file \
                         when you use this repository"
                    )
                })
            }
            (Kind::GitLink, Content::Bytes(bytes)) => self.judge_link(rel, bytes),
            (Kind::GitConfig | Kind::GitLink, Content::Stamp { .. }) => Some(format!(
                "{shown} is too large to check ({} MiB or more)",
                MAX_ITEM_BYTES / 1024 / 1024
            )),
            (kind, _) => Some(format!("{shown}: {}", runs_it(*kind))),
        }
    }

    /// A `.git` file is inert when it points git at a folder inside the workspace (whose
    /// own files are judged where they are).
    fn judge_link(&self, rel: &Path, bytes: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(bytes);
        let target = link_text(rel, &text)?;
        let base = self.root.join(rel.parent().unwrap_or(Path::new("")));
        let lexical = normalize(&base.join(target));
        let real = std::fs::canonicalize(&lexical).unwrap_or_else(|_| lexical.clone());
        let real_root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let inside = lexical.starts_with(&self.root) && real.starts_with(&real_root);
        (!inside).then(|| {
            format!(
                "{} points git at {target}, outside the workspace: your git there would use \
                 that folder's configuration and hooks",
                rel.display()
            )
        })
    }
}

/// Why writing `rel` (relative to `root`) would make a program run outside the wall: an
/// auto-run file, or a file in a folder that is (or with this file becomes) a repository's.
/// `None` for an ordinary file.
pub fn classify(root: &Path, rel: &Path, extra: &[String]) -> Option<String> {
    let patterns: Vec<&str> = DEFAULT_AUTORUN
        .iter()
        .copied()
        .chain(extra.iter().map(String::as_str))
        .collect();
    if matches_any(rel, &patterns) {
        return Some(format!("{}: {}", rel.display(), runs_it(Kind::AutoRun)));
    }
    if rel
        .file_name()
        .is_some_and(|n| n == ".git" || n == COMMONDIR)
    {
        return Some(format!("{}: {}", rel.display(), runs_it(Kind::GitLink)));
    }
    for folder in rel.ancestors().skip(1) {
        let dir = root.join(folder);
        let Ok(rest) = rel.strip_prefix(folder) else {
            continue;
        };
        let first = rest.iter().next();
        let is = |name: &str| first.is_some_and(|f| f == name);
        let objects = dir.join("objects").is_dir() || (is("objects") && rest.iter().count() > 1);
        let refs = dir.join("refs").is_dir() || (is("refs") && rest.iter().count() > 1);
        // Objects and refs (a `.git` file or a `commondir` elsewhere may name this folder,
        // HEAD or not), or a `commondir` of its own.
        let commondir = dir.join(COMMONDIR).is_file();
        if (objects && refs) || commondir {
            let shown = if folder.as_os_str().is_empty() {
                ".".to_owned()
            } else {
                folder.display().to_string()
            };
            return Some(format!(
                "{} is in {shown}, which git takes for a repository folder: its configuration \
                 and hooks run when you use git there",
                rel.display()
            ));
        }
    }
    None
}

/// What runs a file of this kind.
fn runs_it(kind: Kind) -> &'static str {
    match kind {
        Kind::GitConfig => "git reads as this repository's configuration",
        Kind::GitHook => "git runs as a hook (on commit, checkout, merge...)",
        Kind::GitLink => "git follows to find the repository",
        Kind::AutoRun => {
            "other programs run on their own, outside the sandbox (direnv, editors' tasks and \
             settings, git hook managers)"
        }
    }
}

/// Whether `rel` (a file) is on the auto-run list.
fn matches_any(rel: &Path, patterns: &[&str]) -> bool {
    let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
    patterns.iter().any(|pattern| {
        let folder = pattern.ends_with('/');
        let want: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
        if want.is_empty() {
            return false;
        }
        if folder {
            // The folder's components anywhere before the file's name.
            let dirs = &parts[..parts.len().saturating_sub(1)];
            dirs.windows(want.len())
                .any(|w| w.iter().zip(&want).all(|(a, b)| a == b))
        } else {
            parts.len() >= want.len()
                && parts[parts.len() - want.len()..]
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a == b)
        }
    })
}

/// A file's content without following a final link or blocking on a FIFO.
fn read_content(path: &Path) -> Option<Content> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        return std::fs::read_link(path).ok().map(Content::Link);
    }
    if !meta.is_file() {
        // A FIFO or a device where a program expects a file: its stamp says it changed.
        return Some(stamp(&meta));
    }
    match paddock_guard::read_untrusted_head(path, MAX_ITEM_BYTES) {
        Ok((bytes, size)) if size <= MAX_ITEM_BYTES => Some(Content::Bytes(bytes)),
        _ => Some(stamp(&meta)),
    }
}

fn stamp(meta: &std::fs::Metadata) -> Content {
    Content::Stamp {
        len: meta.len(),
        ctime: meta.ctime(),
        ctime_ns: meta.ctime_nsec(),
        ino: meta.ino(),
    }
}

/// The path a `.git` file (`gitdir: <path>`) or a `commondir` file (the path alone) names.
fn link_text<'a>(rel: &Path, text: &'a str) -> Option<&'a str> {
    let text = text.trim();
    if rel.file_name().is_some_and(|n| n == COMMONDIR) {
        return (!text.is_empty()).then_some(text);
    }
    text.strip_prefix("gitdir:").map(str::trim)
}

/// `..` and `.` folded away without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests;
