//! File-tool rules judged on the path the tool will open as well as the path the call names.
//! The tools follow symlinks inside the workspace (the path guard), so rules over the named
//! path alone were passed by a link (`docs/s -> ../secrets`). `paddock-rules` stays pure:
//! the path is resolved here with the path guard and the call is judged a second time.
//! Deny if either path is denied, ask if either asks, allow only if both are allowed.

use std::path::Path;

use paddock_guard::PathGuard;
use paddock_rules::{Action, FILE_TOOLS, Rules, Verdict};
use serde_json::Value;

/// Longest path quoted in a `why`.
const MAX_SHOWN_CHARS: usize = 80;

/// A file-tool call whose path leads somewhere other than it says.
struct Redirected {
    /// The path as the call names it.
    named: String,
    /// Where it leads, relative to the workspace's real root (`.` for the root).
    real: String,
    /// The call with `path` set to `real`.
    input: Value,
}

/// Where a file-tool call's path leads after the workspace's symlinks, when that differs
/// from what it names. `None` when it cannot differ or cannot be known: not a file tool,
/// no path, no workspace folder yet, or a path the guard refuses (outside, a loop), which
/// the tool refuses as well. Resolving reads metadata and links only, never opens a file,
/// so a FIFO cannot block it.
fn redirect(tool: &str, input: &Value, workspace: &Path) -> Option<Redirected> {
    if !FILE_TOOLS.contains(&tool) {
        return None;
    }
    // The same reading of the input as the rules crate's (grep and glob default to root).
    let named = match input.get("path").and_then(Value::as_str) {
        Some(p) => p,
        None if matches!(tool, "grep" | "glob") => ".",
        None => return None,
    };
    let root = PathGuard::new(workspace).open_root().ok()?;
    let real = root.resolve(named).ok()?.display();
    if real == named {
        return None;
    }
    let mut input = input.clone();
    let obj = input.as_object_mut()?;
    obj.insert("path".to_owned(), Value::String(real.clone()));
    Some(Redirected {
        named: named.to_owned(),
        real,
        input,
    })
}

/// Decides a call on its named path and, for the file tools, on where that path leads.
pub(crate) fn decide(rules: &Rules, tool: &str, input: &Value, workspace: &Path) -> Verdict {
    let named = rules.decide(tool, input, workspace);
    match redirect(tool, input, workspace) {
        Some(r) => combine(named, rules.decide(tool, &r.input, workspace), &r),
        None => named,
    }
}

/// "Always allow": patterns for both paths when they differ, since the named one alone
/// would leave the call unmatched where it leads (and it would ask again). `None` when
/// either cannot be allowed by a rule.
pub(crate) fn propose(tool: &str, input: &Value, workspace: &Path) -> Option<Vec<String>> {
    let mut out = paddock_rules::propose(tool, input, workspace)?;
    if let Some(r) = redirect(tool, input, workspace) {
        for pattern in paddock_rules::propose(tool, &r.input, workspace)? {
            if !out.contains(&pattern) {
                out.push(pattern);
            }
        }
    }
    Some(out)
}

fn combine(named: Verdict, real: Verdict, r: &Redirected) -> Verdict {
    if named.action == real.action && named.why == real.why {
        return named;
    }
    let leads = format!("\"{}\" resolves to \"{}\"", shown(&r.named), shown(&r.real));
    let with = |action, why: String, matched: Vec<usize>| Verdict {
        action,
        why,
        matched,
    };
    match (named.action, real.action) {
        // The stricter side decides; the named side's why already names its own path.
        (Some(Action::Deny), _) => named,
        (_, Some(Action::Deny)) => {
            with(real.action, format!("{leads}: {}", real.why), real.matched)
        }
        (Some(Action::Ask), _) => named,
        (_, Some(Action::Ask)) => with(real.action, format!("{leads}: {}", real.why), real.matched),
        (Some(Action::Allow), Some(Action::Allow)) => {
            let mut matched = named.matched;
            matched.extend(real.matched);
            matched.sort_unstable();
            matched.dedup();
            let why = format!("{}; {leads}, {}", named.why, real.why);
            with(Some(Action::Allow), why, matched)
        }
        // One side allowed, or neither decided: no rule decides, the tool's grant applies.
        (Some(Action::Allow), None) => with(
            None,
            format!(
                "{} for \"{}\", but {leads}: {}",
                named.why,
                shown(&r.named),
                real.why
            ),
            Vec::new(),
        ),
        (None, Some(Action::Allow)) => with(
            None,
            format!("{leads} ({}), but {}", real.why, named.why),
            Vec::new(),
        ),
        (None, None) => with(None, format!("{leads}: {}", real.why), Vec::new()),
    }
}

/// A path as quoted in a `why`: one line, nothing invisible, bounded.
fn shown(path: &str) -> String {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    };
    let mut out: String = path
        .chars()
        .take(MAX_SHOWN_CHARS)
        .map(|c| if hidden(c) { ' ' } else { c })
        .collect();
    if path.chars().count() > MAX_SHOWN_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(action: Option<Action>, why: &str) -> Verdict {
        Verdict {
            action,
            why: why.to_owned(),
            matched: Vec::new(),
        }
    }

    fn r() -> Redirected {
        Redirected {
            named: "a/l/x".into(),
            real: "b/x".into(),
            input: Value::Null,
        }
    }

    #[test]
    fn the_stricter_side_decides_and_allow_needs_both() {
        use Action::{Allow, Ask, Deny};
        let all = [None, Some(Allow), Some(Ask), Some(Deny)];
        for named in all {
            for real in all {
                let got = combine(v(named, "n"), v(real, "r"), &r()).action;
                let want = match (named, real) {
                    (Some(Deny), _) | (_, Some(Deny)) => Some(Deny),
                    (Some(Ask), _) | (_, Some(Ask)) => Some(Ask),
                    (Some(Allow), Some(Allow)) => Some(Allow),
                    _ => None,
                };
                assert_eq!(got, want, "{named:?} + {real:?}");
            }
        }
        let d = combine(v(None, "n"), v(Some(Deny), "denied"), &r());
        assert_eq!(d.why, "\"a/l/x\" resolves to \"b/x\": denied");
    }

    #[test]
    fn shown_paths_are_one_bounded_line() {
        assert_eq!(shown("a\nb\u{202e}c"), "a b c");
        assert_eq!(shown(&"x".repeat(100)).chars().count(), MAX_SHOWN_CHARS + 1);
    }
}
