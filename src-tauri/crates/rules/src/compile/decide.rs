//! Deciding one call: which rules match it, and the one-sentence why. Among matching rules
//! deny beats ask beats allow; for bash every simple command is judged on its own and the
//! most severe part wins, constructs that hide what runs force an Ask, and a command is
//! allowed only when every part is.

use std::path::Path;

use serde_json::Value;

use crate::compile::{Matcher, Rule, Rules};
use crate::path::{Resolved, resolve};
use crate::pattern::Match;
use crate::shell::{Concern, ConcernKind, Parsed, Part, Role, Word, command_name, parse_command};
use crate::{Action, BASH_TOOL, FILE_TOOLS, Verdict, snippet};

/// Most unmatched parts named in a `why`.
const MAX_NAMED_PARTS: usize = 3;
const FALLBACK: &str = "(falls back to the tool's grant)";

/// The rules that matched one subject (a part, a path, a call), by what they say.
#[derive(Debug, Default)]
struct Hits {
    deny: Vec<usize>,
    /// Deny rules that match for some values of words only known when it runs.
    deny_maybe: Vec<usize>,
    ask: Vec<usize>,
    allow: Vec<usize>,
}

impl Hits {
    fn add(&mut self, rule: usize, action: Action, m: Match) {
        match (action, m) {
            (_, Match::No) => {}
            (Action::Deny, Match::Yes) => self.deny.push(rule),
            (Action::Deny, Match::Maybe) => self.deny_maybe.push(rule),
            (Action::Ask, _) => self.ask.push(rule),
            (Action::Allow, Match::Yes) => self.allow.push(rule),
            (Action::Allow, Match::Maybe) => {}
        }
    }
}

impl Rules {
    /// Decides a call from its tool name and JSON input. `None`: no rule matches, and the
    /// caller falls back to the tool's own grant. `workspace` resolves file-tool paths
    /// lexically. The framework deny list is the caller's, applied above this.
    pub fn decide(&self, tool: &str, input: &Value, workspace: &Path) -> Verdict {
        if tool == BASH_TOOL {
            return self.decide_bash(input);
        }
        let applicable = self.for_tool(tool);
        if applicable.is_empty() {
            return none(format!("no rule names {tool} {FALLBACK}"), Vec::new());
        }
        if FILE_TOOLS.contains(&tool) {
            return self.decide_path(tool, &applicable, input, workspace);
        }
        let mut hits = Hits::default();
        for &i in &applicable {
            hits.add(i, self.rules[i].action, Match::Yes);
        }
        self.single(&hits, "this call")
            .unwrap_or_else(|| none(format!("no rule matches this call {FALLBACK}"), Vec::new()))
    }

    fn decide_path(
        &self,
        tool: &str,
        applicable: &[usize],
        input: &Value,
        workspace: &Path,
    ) -> Verdict {
        let Some(path) = path_of(tool, input) else {
            return none(format!("the call has no path {FALLBACK}"), Vec::new());
        };
        let resolved = resolve(path, workspace);
        let mut hits = Hits::default();
        for &i in applicable {
            let rule = &self.rules[i];
            let hit = match (&resolved, &rule.matcher) {
                // Nothing allows a path out of the workspace.
                (Resolved::Outside(_), _) if rule.action == Action::Allow => false,
                (r, Matcher::Path(p)) => p.matches(r.as_str()),
                (_, Matcher::Any) => true,
                (_, Matcher::Command(_)) => false,
            };
            hits.add(i, rule.action, hit.into());
        }
        let subject = format!("\"{}\"", snippet(resolved.as_str()));
        if let Some(v) = self.single(&hits, &subject) {
            return v;
        }
        match resolved {
            Resolved::Outside(_) => none(
                format!(
                    "{subject} is outside the workspace, where no allow rule applies {FALLBACK}"
                ),
                Vec::new(),
            ),
            Resolved::Inside(_) => {
                none(format!("no rule matches {subject} {FALLBACK}"), Vec::new())
            }
        }
    }

    /// The verdict for one subject's hits, or `None` when nothing matched.
    fn single(&self, hits: &Hits, subject: &str) -> Option<Verdict> {
        if let Some(&d) = hits.deny.first() {
            return Some(verdict(
                Action::Deny,
                format!("denied by {} for {subject}", self.label(d)),
                &hits.deny,
            ));
        }
        if let Some(&a) = hits.ask.first() {
            return Some(verdict(
                Action::Ask,
                format!("asks: {} matches {subject}", self.label(a)),
                &hits.ask,
            ));
        }
        if !hits.allow.is_empty() {
            return Some(verdict(
                Action::Allow,
                format!("allowed by {}", self.labels(&hits.allow)),
                &hits.allow,
            ));
        }
        None
    }

    fn label(&self, i: usize) -> String {
        self.rules.get(i).map_or_else(String::new, Rule::label)
    }

    fn labels(&self, rules: &[usize]) -> String {
        english_list(rules.iter().map(|&i| self.label(i)).collect())
    }

    fn decide_bash(&self, input: &Value) -> Verdict {
        let Some(cmd) = input.get("command").and_then(Value::as_str) else {
            return none(format!("the call has no command {FALLBACK}"), Vec::new());
        };
        match parse_command(cmd) {
            Ok(parsed) => self.judge(&parsed),
            Err(e) => {
                // Only rules that match any command can still apply.
                let mut hits = Hits::default();
                for &i in &self.bash_generic {
                    hits.add(i, self.rules[i].action, self.part_match(i, &[]));
                }
                if let Some(&d) = hits.deny.first() {
                    return verdict(
                        Action::Deny,
                        format!("denied by {} for any command", self.label(d)),
                        &hits.deny,
                    );
                }
                verdict(Action::Ask, format!("asks: {e}"), &hits.ask)
            }
        }
    }

    fn part_match(&self, rule: usize, words: &[Word]) -> Match {
        match &self.rules[rule].matcher {
            Matcher::Command(p) => p.matches(words),
            Matcher::Any => Match::Yes,
            Matcher::Path(_) => Match::No,
        }
    }

    /// The rules that could match a part, in index order, into `out`: by its name, by the
    /// plain start of its name or path, and the rest.
    fn candidates(&self, part: &Part, out: &mut Vec<usize>) {
        out.clear();
        out.extend_from_slice(&self.bash_generic);
        match part.words.first().and_then(Word::literal) {
            Some(word) => {
                let name = command_name(word);
                if let Some(name) = name {
                    out.extend(self.by_name.get(name).into_iter().flatten());
                }
                for &len in &self.prefix_lens {
                    for text in [name, (name != Some(word)).then_some(word)]
                        .into_iter()
                        .flatten()
                    {
                        if let Some(start) = text.get(..len) {
                            out.extend(self.by_prefix.get(start).into_iter().flatten());
                        }
                    }
                }
            }
            // A name only known when it runs could be any of them.
            None => {
                out.extend(self.by_name.values().flatten());
                out.extend(self.by_prefix.values().flatten());
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    fn part_hits(&self, part: &Part, scratch: &mut Vec<usize>) -> Hits {
        let mut hits = Hits::default();
        self.candidates(part, scratch);
        for &i in scratch.iter() {
            hits.add(i, self.rules[i].action, self.part_match(i, &part.words));
        }
        hits
    }

    /// The first part a rule allows that runs git by its path, where that runs past the
    /// front (a call no rule allowed falls back to the tool's grant as before).
    fn unfronted_git<'p>(
        &self,
        parsed: &'p Parsed,
        statuses: &[(Status, Hits)],
    ) -> Option<&'p str> {
        if !self.git_paths_unfronted {
            return None;
        }
        parsed
            .parts
            .iter()
            .zip(statuses)
            .filter(|(_, (status, _))| *status == Status::Allowed)
            .filter_map(|(p, _)| p.words.first().and_then(Word::literal))
            .find(|w| w.contains('/') && command_name(w) == Some("git"))
    }

    /// Whether a concern is lifted by the allow rule of the part it names.
    fn lifted(&self, concern: &Concern, statuses: &[(Status, Hits)]) -> bool {
        let Some(part) = concern.lift else {
            return false;
        };
        let action = match &concern.kind {
            ConcernKind::FindExec(action) => action,
            ConcernKind::GitProgram { word, .. } if !word.is_empty() => word,
            _ => return false,
        };
        statuses.get(part).is_some_and(|(status, hits)| {
            *status == Status::Allowed
                && hits.allow.iter().any(|&i| {
                    matches!(&self.rules[i].matcher, Matcher::Command(p) if p.names_literal(action))
                })
        })
    }

    fn judge(&self, parsed: &Parsed) -> Verdict {
        let mut scratch = Vec::new();
        let statuses: Vec<(Status, Hits)> = parsed
            .parts
            .iter()
            .map(|part| {
                let hits = self.part_hits(part, &mut scratch);
                (status(part, &hits), hits)
            })
            .collect();
        let texts = |status: Status| -> Vec<(usize, String)> {
            statuses
                .iter()
                .enumerate()
                .filter(|(_, (s, _))| *s == status)
                .map(|(i, _)| (i, parsed.parts[i].text()))
                .collect()
        };
        let collect = |pick: fn(&Hits) -> &Vec<usize>| -> Vec<usize> {
            let mut all: Vec<usize> = statuses
                .iter()
                .flat_map(|(_, h)| pick(h).iter().copied())
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        };

        if let Some((i, text)) = texts(Status::Denied).into_iter().next() {
            let rule = statuses[i].1.deny[0];
            let why = format!("denied by {} for \"{}\"", self.label(rule), snippet(&text));
            return verdict(Action::Deny, why, &collect(|h| &h.deny));
        }
        let asking: Vec<usize> = {
            let mut v = collect(|h| &h.ask);
            v.extend(collect(|h| &h.deny_maybe));
            v.sort_unstable();
            v.dedup();
            v
        };
        if let Some(word) = self.unfronted_git(parsed, &statuses) {
            let why = format!(
                "asks: git named by its path (\"{}\") runs past Paddock's git front behind \
                 this machine's wall (Landlock alone cannot show the front over git's own file)",
                snippet(word)
            );
            return verdict(Action::Ask, why, &asking);
        }
        if let Some(concern) = parsed.concerns.iter().find(|c| !self.lifted(c, &statuses)) {
            return verdict(Action::Ask, format!("asks: {concern}"), &asking);
        }
        if let Some((i, text)) = texts(Status::Asked).into_iter().next() {
            let hits = &statuses[i].1;
            let why = match (hits.deny_maybe.first(), hits.ask.first()) {
                (Some(&d), _) => format!(
                    "asks: {} may deny \"{}\" (some of its words are only known when it runs)",
                    self.label(d),
                    snippet(&text)
                ),
                (None, Some(&a)) => {
                    format!("asks: {} matches \"{}\"", self.label(a), snippet(&text))
                }
                (None, None) => format!("asks: \"{}\"", snippet(&text)),
            };
            return verdict(Action::Ask, why, &asking);
        }
        let allowed: Vec<usize> = {
            let mut v: Vec<usize> = statuses
                .iter()
                .filter(|(s, _)| *s == Status::Allowed)
                .flat_map(|(_, h)| h.allow.iter().copied())
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let unmatched = texts(Status::Unmatched);
        let any_allowed = statuses.iter().any(|(s, _)| *s == Status::Allowed);
        if unmatched.is_empty() && any_allowed {
            return verdict(
                Action::Allow,
                format!("allowed by {}", self.labels(&allowed)),
                &allowed,
            );
        }
        if unmatched.is_empty() {
            return none(
                format!("the command runs nothing a rule names {FALLBACK}"),
                allowed,
            );
        }
        let named = unmatched
            .iter()
            .map(|(_, t)| format!("\"{}\"", snippet(t)))
            .collect();
        none(
            format!("no rule matches {} {FALLBACK}", english_list(named)),
            allowed,
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Denied,
    Asked,
    Allowed,
    /// A wrapper or probe no rule named: it needs no allow of its own.
    Neutral,
    Unmatched,
}

fn status(part: &Part, hits: &Hits) -> Status {
    if !hits.deny.is_empty() {
        Status::Denied
    } else if !hits.deny_maybe.is_empty() || !hits.ask.is_empty() {
        Status::Asked
    } else if part.role != Role::Command {
        Status::Neutral
    } else if !hits.allow.is_empty() {
        Status::Allowed
    } else {
        Status::Unmatched
    }
}

/// The path a file-tool call names; grep and glob without one search the root.
pub(crate) fn path_of<'a>(tool: &str, input: &'a Value) -> Option<&'a str> {
    match input.get("path").and_then(Value::as_str) {
        Some(p) => Some(p),
        None if matches!(tool, "grep" | "glob") => Some("."),
        None => None,
    }
}

/// `a`, `a and b`, `a, b and c`, `a, b, c and 2 more`.
fn english_list(mut items: Vec<String>) -> String {
    let more = items.len().saturating_sub(MAX_NAMED_PARTS);
    items.truncate(MAX_NAMED_PARTS);
    if more > 0 {
        items.push(format!("{more} more"));
    }
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn verdict(action: Action, why: String, matched: &[usize]) -> Verdict {
    Verdict {
        action: Some(action),
        why,
        matched: matched.to_vec(),
    }
}

fn none(why: String, matched: Vec<usize>) -> Verdict {
    Verdict {
        action: None,
        why,
        matched,
    }
}
