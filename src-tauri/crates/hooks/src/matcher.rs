//! A hook group's `matcher`, compiled. Claude Code's documented semantics (read 2026-12-06,
//! <https://docs.anthropic.com/de/docs/claude-code/hooks>, and its summary of the current
//! reference at <https://github.com/xsyetopz/claudetto/wiki/Claude-Code-Hooks-Config>):
//! case-sensitive; missing, `""` or `*` matches everything; a matcher of only letters,
//! digits, `_`, `-`, `|`, `,` and spaces is a list of exact names (`Edit|Write`); anything
//! else is a regular expression matched anywhere in the name (`mcp__memory__.*`). Codex reads
//! the matcher the same way (a regular expression over the tool name,
//! <https://developers.openai.com/codex/hooks>).
//!
//! Tool events match the tool's name. Exact names are read when the configuration is loaded
//! (Claude Code's `Write` is Paddock's `file_write`; an unknown name is an error); a regular
//! expression is tried on Paddock's name and on Claude Code's names for the same tool, so
//! `Edit.*` and `file_.*` both reach `file_edit`. Regular expressions use the `regex` crate:
//! linear in the name's length, their compiled size bounded. `session_start` matches how
//! the session began (`startup`, `resume`), `pre_compact` what asked for it (`manual`,
//! `auto`); the other events take no matcher, and one given is refused rather than ignored.

use regex::{Regex, RegexBuilder};

use crate::event::{HookPoint, MatcherKind};
use crate::tools::{self, ToolName};

/// Longest matcher, in bytes.
pub const MAX_MATCHER_BYTES: usize = 1024;
/// Largest compiled regular expression (and its lazy DFA), in bytes.
const MAX_REGEX_BYTES: usize = 1 << 20;
/// The words a `session_start` matcher may name (Claude Code's `source` values; Paddock
/// produces the first two).
const SESSION_SOURCES: [&str; 4] = ["startup", "resume", "clear", "compact"];
/// The words a `pre_compact` matcher may name.
const COMPACT_TRIGGERS: [&str; 2] = ["manual", "auto"];

#[derive(Debug, Clone)]
pub(crate) enum Matcher {
    All,
    /// Exact names: Paddock tool names (Claude Code's already read), or words.
    Names(Vec<String>),
    Regex(Regex),
}

impl Matcher {
    /// Compiles the matcher of a group of `event`'s hooks.
    pub(crate) fn compile(event: HookPoint, text: Option<&str>) -> Result<Matcher, String> {
        let Some(text) = text.filter(|t| !t.is_empty() && *t != "*") else {
            return Ok(Matcher::All);
        };
        if text.len() > MAX_MATCHER_BYTES {
            return Err(format!("longer than {MAX_MATCHER_BYTES} bytes"));
        }
        let kind = crate::event::matcher_kind(event);
        if kind == MatcherKind::Nothing {
            return Err(format!(
                "{event} hooks take no matcher: they run every time; remove it or write \"*\""
            ));
        }
        if !is_plain(text) {
            return RegexBuilder::new(text)
                .size_limit(MAX_REGEX_BYTES)
                .dfa_size_limit(MAX_REGEX_BYTES)
                .build()
                .map(Matcher::Regex)
                .map_err(|e| {
                    let e = e.to_string();
                    let last = e.lines().last().unwrap_or_default().trim();
                    format!("not a regular expression Paddock can read ({last})")
                });
        }
        let mut names = Vec::new();
        for name in text.split(['|', ',']).map(str::trim) {
            if name.is_empty() {
                return Err("an empty name between separators".to_owned());
            }
            match kind {
                MatcherKind::Tool => {
                    if let ToolName::Paddock(tool) = tools::read(name)? {
                        names.push(tool);
                    }
                }
                MatcherKind::SessionSource => names.push(word(name, &SESSION_SOURCES, event)?),
                MatcherKind::CompactTrigger => names.push(word(name, &COMPACT_TRIGGERS, event)?),
                MatcherKind::Nothing => {}
            }
        }
        if names.is_empty() {
            return Err("matches none of Paddock's tools".to_owned());
        }
        names.dedup();
        Ok(Matcher::Names(names))
    }

    /// Whether a call of the Paddock tool `tool` matches.
    pub(crate) fn matches_tool(&self, tool: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|n| n == tool),
            Matcher::Regex(re) => tools::names_of(tool).any(|name| re.is_match(name)),
        }
    }

    /// Whether a session source or compaction trigger matches.
    pub(crate) fn matches_word(&self, word: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|n| n == word),
            Matcher::Regex(re) => re.is_match(word),
        }
    }
}

/// A matcher of only name characters and separators: a list of exact names.
fn is_plain(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | ',' | ' '))
}

fn word(name: &str, words: &[&str], event: HookPoint) -> Result<String, String> {
    if words.contains(&name) {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "`{name}` is not something a {event} matcher names (expected {})",
            words.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(text: &str) -> Matcher {
        Matcher::compile(HookPoint::PreToolUse, Some(text)).unwrap()
    }

    #[test]
    fn everything_matchers() {
        for text in [None, Some(""), Some("*")] {
            let m = Matcher::compile(HookPoint::PostToolUse, text).unwrap();
            assert!(m.matches_tool("bash") && m.matches_tool("mcp__a__b"));
        }
    }

    #[test]
    fn names_are_exact_and_read_as_paddock_tools() {
        let m = tool("Edit|MultiEdit|Write");
        assert!(m.matches_tool("file_edit") && m.matches_tool("file_write"));
        assert!(!m.matches_tool("file_read") && !m.matches_tool("bash"));
        let m = tool("Edit, Write");
        assert!(m.matches_tool("file_write") && !m.matches_tool("bash"));
        let m = tool("bash");
        assert!(m.matches_tool("bash") && !m.matches_tool("bash2"));
    }

    #[test]
    fn regexes_are_tried_on_every_name_of_the_tool() {
        let m = tool("mcp__memory__.*");
        assert!(m.matches_tool("mcp__memory__create"));
        assert!(!m.matches_tool("mcp__github__create"));
        let m = tool("^Edit$");
        assert!(m.matches_tool("file_edit") && !m.matches_tool("file_write"));
        assert!(tool("file_.*").matches_tool("file_read"));
    }

    #[test]
    fn bad_matchers_say_why() {
        let e = |event, text| Matcher::compile(event, Some(text)).unwrap_err();
        assert!(e(HookPoint::PreToolUse, "Bash(").contains("regular expression"));
        assert!(e(HookPoint::PreToolUse, "Bsh").contains("unknown tool `Bsh`"));
        assert!(e(HookPoint::PreToolUse, "NotebookEdit").contains("none of Paddock's"));
        assert!(e(HookPoint::PreToolUse, "Bash|").contains("empty name"));
        assert!(e(HookPoint::Stop, "Bash").contains("take no matcher"));
        assert!(e(HookPoint::SessionStart, "boot").contains("startup, resume"));
        let long = "a".repeat(MAX_MATCHER_BYTES + 1);
        assert!(e(HookPoint::PreToolUse, &long).contains("longer than"));
        // A repetition whose program would be huge is refused, not built.
        assert!(e(HookPoint::PreToolUse, "(a{1000}){1000}").contains("regular expression"));
    }

    #[test]
    fn session_and_compaction_words() {
        let m = Matcher::compile(HookPoint::SessionStart, Some("startup|clear")).unwrap();
        assert!(m.matches_word("startup") && !m.matches_word("resume"));
        let m = Matcher::compile(HookPoint::PreCompact, Some("auto")).unwrap();
        assert!(m.matches_word("auto") && !m.matches_word("manual"));
    }
}
