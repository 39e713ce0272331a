//! Path rules for the file tools: a glob over the call's path relative to the workspace root,
//! after lexical normalization (`./a/../b` is `b`). `**` crosses folders, `*` does not; a
//! leading `!` matches every path the rest does not. A path that climbs out of the root, or
//! is absolute outside it, never matches an allow rule.

use std::path::{Component, Path};

use globset::{GlobBuilder, GlobMatcher};

/// Match case-insensitively where the file system resolves names that way, so `.ENV` is
/// denied where it opens `.env`.
const CASE_INSENSITIVE: bool = cfg!(any(target_os = "macos", target_os = "windows"));

/// A call's path, normalized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// Relative to the root, `/`-separated; `.` for the root itself.
    Inside(String),
    /// Out of the workspace, as normalized (absolute, or starting with `..`).
    Outside(String),
}

impl Resolved {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Resolved::Inside(p) | Resolved::Outside(p) => p,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    negate: bool,
    matcher: GlobMatcher,
    /// For `dir/**`, `dir` itself (a grep or glob over the folder reads only what is inside).
    folder: Option<GlobMatcher>,
}

impl PathPattern {
    pub(crate) fn parse(pattern: &str) -> Result<Self, String> {
        let (negate, mut body) = match pattern.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        while let Some(rest) = body.strip_prefix("./") {
            body = rest;
        }
        if body.is_empty() {
            return Err("the pattern is empty".to_owned());
        }
        if body.chars().any(char::is_control) {
            return Err("the pattern has a control character".to_owned());
        }
        if body.starts_with('/') {
            return Err(
                "path patterns are relative to the workspace root (drop the leading /)".to_owned(),
            );
        }
        if body.split('/').any(|c| c == "..") {
            return Err("a path pattern cannot climb out of the workspace with ..".to_owned());
        }
        let matcher = compile(body)?;
        let folder = match body.strip_suffix("/**") {
            Some(dir) if !dir.is_empty() => Some(compile(dir)?),
            _ => None,
        };
        Ok(Self {
            negate,
            matcher,
            folder,
        })
    }

    pub(crate) fn matches(&self, path: &str) -> bool {
        let hit =
            self.matcher.is_match(path) || self.folder.as_ref().is_some_and(|f| f.is_match(path));
        hit != self.negate
    }
}

fn compile(glob: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(CASE_INSENSITIVE)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("the glob does not parse: {e}"))
}

/// Normalizes a call's path against the workspace root, lexically (no file system access:
/// the tools' own path guard resolves links and refuses what leaves the root).
pub(crate) fn resolve(path: &str, workspace: &Path) -> Resolved {
    let given = Path::new(path);
    if given.is_absolute()
        || given
            .components()
            .any(|c| matches!(c, Component::Prefix(_)))
    {
        let full = normalize_absolute(given);
        let root = normalize_absolute(workspace);
        return match full.strip_prefix(root.as_slice()) {
            Some(rest) if workspace.is_absolute() => Resolved::Inside(join(rest)),
            _ => Resolved::Outside(format!("/{}", full.join("/"))),
        };
    }
    let mut parts: Vec<&str> = Vec::new();
    let mut climbed = 0usize;
    for c in given.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str().unwrap_or("?")),
            Component::ParentDir => {
                if parts.pop().is_none() {
                    climbed += 1;
                }
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    if climbed > 0 {
        let mut out = vec![".."; climbed];
        out.extend(parts);
        return Resolved::Outside(out.join("/"));
    }
    Resolved::Inside(join(&parts))
}

fn normalize_absolute(path: &Path) -> Vec<&str> {
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str().unwrap_or("?")),
            Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    parts
}

fn join(parts: &[&str]) -> String {
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// The narrowest path pattern for an inside path: the path itself, glob characters escaped.
pub(crate) fn exact_pattern(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 4);
    for (i, c) in path.chars().enumerate() {
        // A leading `!` would negate; glob characters would match more than this path.
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') || (i == 0 && c == '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(p: &str) -> Resolved {
        resolve(p, Path::new("/work/ws"))
    }

    fn pm(pattern: &str, path: &str) -> bool {
        PathPattern::parse(pattern).expect("pattern").matches(path)
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(r("./a/../b"), Resolved::Inside("b".into()));
        assert_eq!(r("src//x.rs"), Resolved::Inside("src/x.rs".into()));
        assert_eq!(r("."), Resolved::Inside(".".into()));
        assert_eq!(r(""), Resolved::Inside(".".into()));
        assert_eq!(r("src/"), Resolved::Inside("src".into()));
        assert_eq!(r("../x"), Resolved::Outside("../x".into()));
        assert_eq!(r("a/../../x"), Resolved::Outside("../x".into()));
        assert_eq!(r("/work/ws/src/a.rs"), Resolved::Inside("src/a.rs".into()));
        assert_eq!(r("/work/ws"), Resolved::Inside(".".into()));
        assert_eq!(
            r("/work/ws/../other/x"),
            Resolved::Outside("/work/other/x".into())
        );
        assert_eq!(r("/work/wsx/a"), Resolved::Outside("/work/wsx/a".into()));
        assert_eq!(r("/etc/passwd"), Resolved::Outside("/etc/passwd".into()));
        assert_eq!(r("~/x"), Resolved::Inside("~/x".into()));
    }

    #[test]
    fn globs() {
        assert!(pm("src/**", "src/a/b.rs"));
        assert!(pm("src/**", "src"));
        assert!(!pm("src/**", "srcx/a"));
        assert!(pm("src/*.rs", "src/a.rs"));
        assert!(!pm("src/*.rs", "src/a/b.rs"));
        assert!(pm("**/.env*", ".env"));
        assert!(pm("**/.env*", "a/b/.env.local"));
        assert!(!pm("!**/.env*", "a/.env"));
        assert!(pm("!**/.env*", "a/b.rs"));
        assert!(pm("**", "."));
        assert!(pm("./src/**", "src/x"));
        assert!(pm("\\!x", "!x"));
    }

    #[test]
    fn pattern_errors() {
        for bad in ["", "!", "/etc/**", "../**", "src/../../x", "a[", "./"] {
            assert!(PathPattern::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn exact_patterns_match_only_their_path() {
        for path in ["src/a.rs", "a[1].txt", "!x", "we{ird}?.md", "a*b"] {
            let p = exact_pattern(path);
            assert!(pm(&p, path), "{p}");
        }
        assert!(!pm(&exact_pattern("a*b"), "axxb"));
        assert!(!pm(&exact_pattern("a[1].txt"), "a1.txt"));
    }
}
