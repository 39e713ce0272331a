//! Command patterns: `git diff *`, `npm run test:*`, `'a b' c`. Words are separated by
//! spaces; each matches one argument after quote removal (`*` and `?` glob inside a word,
//! quotes and backslashes make them literal); a final lone `*` matches zero or more further
//! arguments. The first word is the command name: a bare name also matches that program in
//! a standard bin folder, never another path (`./git`).

use crate::shell::{Word, command_name, shell_quote};

/// Most words in one pattern.
pub const MAX_PATTERN_WORDS: usize = 64;
/// Longest pattern, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4 * 1024;

/// How well a pattern matches a part. `Maybe`: it matches for some values of the words
/// only known when the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Match {
    No,
    Maybe,
    Yes,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Char(char),
    /// `*`: any run of characters.
    Any,
    /// `?`: one character.
    One,
}

/// One pattern word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Glob {
    toks: Vec<Tok>,
}

impl Glob {
    /// A shell glob as bash expands it (`*`, `?`; the caller leaves out brackets).
    pub(crate) fn shell(text: &str) -> Self {
        let toks = text
            .chars()
            .map(|c| match c {
                '*' => Tok::Any,
                '?' => Tok::One,
                c => Tok::Char(c),
            })
            .collect();
        Self { toks }
    }

    fn literal(&self) -> Option<String> {
        self.toks
            .iter()
            .map(|t| match t {
                Tok::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    fn matches_anything(&self) -> bool {
        self.toks == [Tok::Any]
    }

    fn has_slash(&self) -> bool {
        self.toks.contains(&Tok::Char('/'))
    }

    /// Wildcard match over characters, linear with one backtrack point per `*`.
    pub(crate) fn is_match(&self, s: &str) -> bool {
        let toks = &self.toks;
        let (mut p, mut i) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        loop {
            let next = s[i..].chars().next();
            if p < toks.len() {
                match (toks[p], next) {
                    (Tok::Any, _) => {
                        star = Some((p + 1, i));
                        p += 1;
                        continue;
                    }
                    (Tok::One, Some(c)) => {
                        i += c.len_utf8();
                        p += 1;
                        continue;
                    }
                    (Tok::Char(pc), Some(c)) if pc == c => {
                        i += c.len_utf8();
                        p += 1;
                        continue;
                    }
                    _ => {}
                }
            } else if next.is_none() {
                return true;
            }
            // Mismatch: let the last `*` take one more character.
            let Some((sp, si)) = star else { return false };
            let Some(c) = s[si..].chars().next() else {
                return false;
            };
            star = Some((sp, si + c.len_utf8()));
            p = sp;
            i = si + c.len_utf8();
        }
    }
}

/// A compiled command pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommandPattern {
    words: Vec<Glob>,
    /// A final lone `*`.
    rest: bool,
}

impl CommandPattern {
    pub(crate) fn parse(pattern: &str) -> Result<Self, String> {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(format!("the pattern is over {MAX_PATTERN_BYTES} bytes"));
        }
        if let Some(c) = pattern.chars().find(|c| c.is_control() && *c != '\t') {
            return Err(format!("the pattern has a control character ({c:?})"));
        }
        let mut words: Vec<(Vec<Tok>, bool)> = Vec::new();
        let mut current: Option<(Vec<Tok>, bool)> = None;
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            if c == ' ' || c == '\t' {
                words.extend(current.take());
                continue;
            }
            let (toks, lone_star) = current.get_or_insert_with(|| (Vec::new(), true));
            match c {
                '\\' => {
                    let escaped = chars
                        .next()
                        .ok_or("the pattern ends with a lone backslash")?;
                    toks.push(Tok::Char(escaped));
                    *lone_star = false;
                }
                '\'' => {
                    *lone_star = false;
                    loop {
                        match chars.next() {
                            Some('\'') => break,
                            Some(c) => toks.push(Tok::Char(c)),
                            None => return Err("a single quote is not closed".to_owned()),
                        }
                    }
                }
                '"' => {
                    *lone_star = false;
                    loop {
                        match chars.next() {
                            Some('"') => break,
                            Some('\\') => {
                                let c = chars.next().ok_or("a double quote is not closed")?;
                                toks.push(Tok::Char(c));
                            }
                            Some(c) => toks.push(Tok::Char(c)),
                            None => return Err("a double quote is not closed".to_owned()),
                        }
                    }
                }
                '*' => toks.push(Tok::Any),
                '?' => {
                    toks.push(Tok::One);
                    *lone_star = false;
                }
                c => {
                    toks.push(Tok::Char(c));
                    *lone_star = false;
                }
            }
        }
        words.extend(current.take());
        if words.is_empty() {
            return Err("the pattern is empty".to_owned());
        }
        if words.len() > MAX_PATTERN_WORDS {
            return Err(format!(
                "the pattern has more than {MAX_PATTERN_WORDS} words"
            ));
        }
        let is_rest = |(toks, lone): &(Vec<Tok>, bool)| *lone && toks.as_slice() == [Tok::Any];
        let rest = words.last().is_some_and(is_rest);
        if rest {
            words.pop();
        }
        Ok(Self {
            words: words.into_iter().map(|(toks, _)| Glob { toks }).collect(),
            rest,
        })
    }

    /// The exact pattern for these words: every word literal, quoted where needed.
    pub(crate) fn exact(words: &[&str]) -> String {
        let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
        quoted.join(" ")
    }

    /// The command name a part must have for this pattern to match it, when the pattern
    /// names one plainly (for indexing rules by name).
    pub(crate) fn name_key(&self) -> Option<String> {
        let first = self.words.first()?.literal()?;
        (!first.contains('/')).then_some(first)
    }

    /// The plain start every name this pattern matches begins with, when the name pattern
    /// starts with plain characters (`lint*` → `lint`): rules indexed by it are checked
    /// only against commands whose name (or path) begins so.
    pub(crate) fn name_prefix(&self) -> Option<String> {
        let prefix: String = self
            .words
            .first()?
            .toks
            .iter()
            .map_while(|t| match t {
                Tok::Char(c) => Some(*c),
                _ => None,
            })
            .collect();
        (!prefix.is_empty()).then_some(prefix)
    }

    /// Whether a word after the command name is exactly this literal (`-exec`).
    pub(crate) fn names_literal(&self, word: &str) -> bool {
        self.words
            .iter()
            .skip(1)
            .any(|g| g.literal().is_some_and(|l| l == word))
    }

    pub(crate) fn matches(&self, words: &[Word]) -> Match {
        let Some((first, args)) = self.words.split_first() else {
            // `*`: every command.
            return if self.rest { Match::Yes } else { Match::No };
        };
        let Some(name) = words.first() else {
            return Match::No;
        };
        let name_match = match name {
            Word::Literal(name) if first.has_slash() => first.is_match(name).into(),
            Word::Literal(name) => command_name(name).is_some_and(|n| first.is_match(n)).into(),
            _ if first.matches_anything() => Match::Yes,
            _ => Match::Maybe,
        };
        if name_match == Match::No {
            return Match::No;
        }
        name_match.min(match_args(args, self.rest, &words[1..]))
    }
}

impl From<bool> for Match {
    fn from(b: bool) -> Self {
        if b { Match::Yes } else { Match::No }
    }
}

fn word_match(p: &Glob, w: &Word) -> Match {
    match w {
        Word::Literal(s) => p.is_match(s).into(),
        _ if p.matches_anything() => Match::Yes,
        _ => Match::Maybe,
    }
}

/// Whether an argument produced by a `Many` word could be this pattern word.
fn could_produce(glob: Option<&str>, p: &Glob) -> bool {
    match (glob, p.literal()) {
        (Some(g), Some(lit)) => Glob::shell(g).is_match(&lit),
        _ => true,
    }
}

fn match_args(pat: &[Glob], rest: bool, words: &[Word]) -> Match {
    if !words.iter().any(|w| matches!(w, Word::Many { .. })) {
        if words.len() < pat.len() || (!rest && words.len() != pat.len()) {
            return Match::No;
        }
        let mut best = Match::Yes;
        for (p, w) in pat.iter().zip(words) {
            best = best.min(word_match(p, w));
            if best == Match::No {
                break;
            }
        }
        return best;
    }
    // A `Many` word stands for zero or more arguments: match by dynamic programming over
    // (pattern word, argument), from the end.
    let (n, m) = (pat.len(), words.len());
    let width = m + 1;
    let mut t = vec![Match::No; (n + 1) * width];
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            t[i * width + j] = if i == n {
                if rest || j == m {
                    Match::Yes
                } else if words[j..].iter().all(|w| matches!(w, Word::Many { .. })) {
                    Match::Maybe
                } else {
                    Match::No
                }
            } else if j == m {
                Match::No
            } else if let Word::Many { glob, .. } = &words[j] {
                let none = t[i * width + j + 1].min(Match::Maybe);
                let this = if could_produce(glob.as_deref(), &pat[i]) {
                    t[(i + 1) * width + j].min(Match::Maybe)
                } else {
                    Match::No
                };
                none.max(this)
            } else {
                word_match(&pat[i], &words[j]).min(t[(i + 1) * width + j + 1])
            };
        }
    }
    t[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(words: &[&str]) -> Vec<Word> {
        words
            .iter()
            .map(|w| Word::Literal((*w).to_owned()))
            .collect()
    }

    fn m(pattern: &str, words: &[Word]) -> Match {
        CommandPattern::parse(pattern)
            .expect("pattern")
            .matches(words)
    }

    #[test]
    fn glob_matching() {
        let g = |p: &str, s: &str| CommandPattern::parse(p).expect("p").words[0].is_match(s);
        assert!(g("test:*", "test:unit"));
        assert!(g("test:*", "test:"));
        assert!(!g("test:*", "test"));
        assert!(g("a?c", "abc"));
        assert!(g("a?c", "aéc"));
        assert!(!g("a?c", "ac"));
        assert!(g("*a*b*", "xxaxxbxx"));
        assert!(!g("*a*b*", "xxbxxaxx"));
        assert!(g("'*'", "*"));
        assert!(!g("'*'", "x"));
        assert!(g("\\?", "?"));
    }

    #[test]
    fn rest_and_counts() {
        assert_eq!(m("git diff *", &lit(&["git", "diff"])), Match::Yes);
        assert_eq!(
            m("git diff *", &lit(&["git", "diff", "--stat", "HEAD"])),
            Match::Yes
        );
        assert_eq!(m("git status", &lit(&["git", "status", "-s"])), Match::No);
        assert_eq!(
            m("git * --stat", &lit(&["git", "diff", "--stat"])),
            Match::Yes
        );
        assert_eq!(m("git * --stat", &lit(&["git", "--stat"])), Match::No);
        assert_eq!(m("'*'", &lit(&["*"])), Match::Yes);
        assert_eq!(m("'*'", &lit(&["ls"])), Match::No);
        assert_eq!(m("*", &lit(&["anything", "at", "all"])), Match::Yes);
    }

    #[test]
    fn command_name_paths() {
        assert_eq!(
            m("git status", &lit(&["/usr/bin/git", "status"])),
            Match::Yes
        );
        assert_eq!(
            m("git status", &lit(&["/usr/local/bin/git", "status"])),
            Match::Yes
        );
        assert_eq!(m("git status", &lit(&["./git", "status"])), Match::No);
        assert_eq!(m("git status", &lit(&["tools/git", "status"])), Match::No);
        assert_eq!(
            m("git status", &lit(&["/opt/bin/git", "status"])),
            Match::No
        );
        assert_eq!(m("git*", &lit(&["git/../../x"])), Match::No);
        assert_eq!(m("./run.sh *", &lit(&["./run.sh", "a"])), Match::Yes);
    }

    #[test]
    fn dynamic_words() {
        let one = Word::One("\"$x\"".into());
        let many = Word::Many {
            raw: "$x".into(),
            glob: None,
        };
        let rs = Word::Many {
            raw: "*.rs".into(),
            glob: Some("*.rs".into()),
        };
        let w = |extra: Word| {
            let mut v = lit(&["rm"]);
            v.push(extra);
            v
        };
        assert_eq!(m("rm *", &w(many.clone())), Match::Yes);
        assert_eq!(m("rm -rf *", &w(many.clone())), Match::Maybe);
        assert_eq!(m("rm -rf *", &w(one.clone())), Match::Maybe);
        assert_eq!(m("rm ?", &w(one.clone())), Match::Maybe);
        assert_eq!(m("rm -rf *", &w(rs.clone())), Match::No);
        assert_eq!(m("rm *.rs", &w(rs.clone())), Match::Maybe);
        assert_eq!(m("rm", &w(many)), Match::Maybe);
        assert_eq!(m("rm", &w(one)), Match::No);
    }

    #[test]
    fn parse_errors() {
        assert!(CommandPattern::parse("").is_err());
        assert!(CommandPattern::parse("   ").is_err());
        assert!(CommandPattern::parse("git 'status").is_err());
        assert!(CommandPattern::parse("git \"status").is_err());
        assert!(CommandPattern::parse("git status\\").is_err());
        assert!(CommandPattern::parse("git\u{1}status").is_err());
        assert!(CommandPattern::parse(&"a ".repeat(MAX_PATTERN_WORDS + 1)).is_err());
    }

    #[test]
    fn exact_round_trips() {
        let words = [
            "git",
            "commit",
            "-m",
            "fix: a \"b\" 'c' $d *",
            "",
            "*",
            "a\\b",
            "x\ty",
        ];
        let pattern = CommandPattern::exact(&words);
        assert_eq!(m(&pattern, &lit(&words)), Match::Yes);
        assert_eq!(
            m(
                &pattern,
                &lit(&["git", "commit", "-m", "x", "", "*", "a\\b", "x\ty"])
            ),
            Match::No
        );
    }
}
