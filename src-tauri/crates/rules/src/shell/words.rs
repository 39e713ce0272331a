//! One shell word as the rules see it: quote removal, whether its value is known before it
//! runs, and the constructs inside it (substitutions, arithmetic) that force an Ask.

use brush_parser::ParserOptions;
use brush_parser::word::{
    self, Parameter, ParameterExpr, ParameterTransformOp, WordPiece, WordPieceWithSource,
};

use super::{ConcernKind, Word};

/// Characters that never change meaning in an unquoted word (anywhere in it): a word made of
/// them and non-ASCII letters is its own value, which spares most words the word parser.
const PLAIN: &[u8] = b"-_./:=,+@%^";

/// The rules' reading of one word.
#[derive(Debug, Default)]
pub(super) struct Analysis {
    pub word: Option<Word>,
    /// Bodies of command substitutions, to judge as commands too.
    pub bodies: Vec<String>,
    pub concerns: Vec<ConcernKind>,
    /// Starts with a tilde expansion (`~`, `~user`): an absolute path once it runs.
    pub tilde: bool,
}

pub(super) fn options() -> ParserOptions {
    ParserOptions {
        // `bash -c` starts with extglob off; a script that turns it on cannot use it on the
        // same line, and a later line using it fails to parse here, which asks.
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// Reads `raw` (a word as written) into its value or its dynamic shape.
pub(super) fn analyze(raw: &str, opts: &ParserOptions) -> Analysis {
    if is_plain(raw) {
        return Analysis {
            word: Some(Word::Literal(raw.to_owned())),
            ..Analysis::default()
        };
    }
    let mut out = Analysis::default();
    if let Some(value) = simply_quoted(raw) {
        if might_be_subscript(&value) {
            out.concerns.push(ConcernKind::Subscript);
        }
        out.word = Some(Word::Literal(value));
        return out;
    }
    let pieces = match word::parse(raw, opts) {
        Ok(p) => p,
        Err(e) => {
            out.concerns
                .push(ConcernKind::Unparsed(format!("does not parse ({e})")));
            out.word = Some(Word::Many {
                raw: raw.to_owned(),
                glob: None,
            });
            return out;
        }
    };
    let mut state = State::default();
    state.walk(raw, &pieces, false, &mut out);
    out.tilde = matches!(
        pieces.first().map(|p| &p.piece),
        Some(WordPiece::TildeExpansion(_))
    );
    let word = if state.many || has_brace_expansion(raw, opts) {
        Word::Many {
            raw: raw.to_owned(),
            glob: None,
        }
    } else if state.glob {
        Word::Many {
            raw: raw.to_owned(),
            // Only a fully unquoted word is its own glob pattern (brackets are left out).
            glob: (state.all_text && !raw.contains('[')).then(|| raw.to_owned()),
        }
    } else if state.one {
        Word::One(raw.to_owned())
    } else {
        if might_be_subscript(&state.value) {
            out.concerns.push(ConcernKind::Subscript);
        }
        Word::Literal(state.value)
    };
    out.word = Some(word);
    out
}

/// Reads an unquoted here-doc body for the substitutions it runs.
pub(super) fn analyze_heredoc(body: &str, opts: &ParserOptions) -> Analysis {
    let mut out = Analysis::default();
    match word::parse_heredoc(body, opts) {
        Ok(pieces) => State::default().walk(body, &pieces, true, &mut out),
        Err(e) => out
            .concerns
            .push(ConcernKind::Unparsed(format!("does not parse ({e})"))),
    }
    out
}

fn is_plain(raw: &str) -> bool {
    !raw.is_empty()
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || PLAIN.contains(&b) || b >= 0x80)
        && !raw.chars().any(super::prescan::is_hidden)
}

fn is_plain_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || PLAIN.contains(&(c as u8))
    } else {
        !super::prescan::is_hidden(c)
    }
}

/// Quote removal for the common quoted word: plain characters, single quotes (anything but
/// `'` inside) and double quotes holding no `$`, backquote or backslash, where bash's
/// reading is simply the text between the quotes. Anything else goes to the word parser
/// (a unit test checks the two agree).
fn simply_quoted(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '$' | '`' | '\\' => return None,
                    c => out.push(c),
                }
            },
            c if is_plain_char(c) => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

/// `name[…$(…)…]` or with a backquote: bash runs it when it uses the text as a variable name
/// (`printf -v`, `read`, `declare`, `unset`, `test -v`, arithmetic on a variable holding it).
pub(super) fn might_be_subscript(value: &str) -> bool {
    value
        .find('[')
        .is_some_and(|i| value[i..].contains("$(") || value[i..].contains('`'))
}

#[derive(Default)]
struct State {
    value: String,
    /// Some part is known only when it runs and stays one word (quoted).
    one: bool,
    /// Some part is subject to field splitting or pathname expansion.
    many: bool,
    /// An unquoted glob character.
    glob: bool,
    /// Whether every piece so far was unquoted text.
    all_text: bool,
    started: bool,
}

impl State {
    fn walk(
        &mut self,
        raw: &str,
        pieces: &[WordPieceWithSource],
        quoted: bool,
        out: &mut Analysis,
    ) {
        if !self.started {
            self.started = true;
            self.all_text = true;
        }
        for p in pieces {
            match &p.piece {
                WordPiece::Text(s) => {
                    if !quoted && has_glob(s) {
                        self.glob = true;
                    }
                    if quoted {
                        self.all_text = false;
                    }
                    self.value.push_str(s);
                }
                WordPiece::SingleQuotedText(s) => {
                    self.all_text = false;
                    self.value.push_str(s);
                }
                WordPiece::AnsiCQuotedText(s) => {
                    self.all_text = false;
                    // Escapes are decoded when it runs; only escape-free text is literal here.
                    if s.contains('\\') {
                        self.one = true;
                    } else {
                        self.value.push_str(s);
                    }
                }
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.all_text = false;
                    self.walk(raw, inner, true, out);
                }
                WordPiece::EscapeSequence(s) => {
                    self.all_text = false;
                    let mut chars = s.chars();
                    chars.next();
                    let rest = chars.as_str();
                    // A backslash-newline is a line continuation: it vanishes.
                    if rest != "\n" {
                        self.value.push_str(rest);
                    }
                }
                WordPiece::TildeExpansion(_) => {
                    self.all_text = false;
                    self.value
                        .push_str(raw.get(p.start_index..p.end_index).unwrap_or("~"));
                }
                WordPiece::ParameterExpansion(expr) => {
                    self.dynamic(quoted);
                    parameter_concerns(
                        expr,
                        raw.get(p.start_index..p.end_index).unwrap_or(raw),
                        out,
                    );
                }
                WordPiece::CommandSubstitution(body) => {
                    self.dynamic(quoted);
                    out.concerns.push(ConcernKind::CommandSubstitution);
                    out.bodies.push(body.clone());
                }
                WordPiece::BackquotedCommandSubstitution(body) => {
                    self.dynamic(quoted);
                    out.concerns.push(ConcernKind::CommandSubstitution);
                    out.bodies.push(unescape_backquoted(body));
                }
                WordPiece::ArithmeticExpression(expr) => {
                    // A number: one word unless IFS holds digits (and IFS= asks).
                    self.one = true;
                    arithmetic_concerns(&expr.value, out);
                }
            }
        }
    }

    fn dynamic(&mut self, quoted: bool) {
        if quoted {
            self.one = true;
        } else {
            self.many = true;
        }
    }
}

/// `*`, `?`, or a `[` closed later: pathname expansion.
fn has_glob(s: &str) -> bool {
    s.contains(['*', '?']) || s.find('[').is_some_and(|i| s[i + 1..].contains(']'))
}

fn has_brace_expansion(raw: &str, opts: &ParserOptions) -> bool {
    if !(raw.contains('{') && raw.contains('}')) {
        return false;
    }
    match word::parse_brace_expansions(raw, opts) {
        Ok(Some(pieces)) => pieces
            .iter()
            .any(|p| matches!(p, word::BraceExpressionOrText::Expr(_))),
        Ok(None) => false,
        // What does not parse as braces may still expand in bash: assume it does.
        Err(_) => true,
    }
}

/// Inside backquotes, `\`` `\\` and `\$` stand for the character itself.
fn unescape_backquoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '`' | '\\' | '$')
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// Arithmetic that names a variable can run commands: bash evaluates a variable's value as
/// an expression, and `a[$(cmd)]` in it runs `cmd`. Numbers and operators alone cannot.
pub(super) fn arithmetic_concerns(expr: &str, out: &mut Analysis) {
    if expr.contains("$(") || expr.contains('`') {
        out.concerns.push(ConcernKind::CommandSubstitution);
    }
    if !is_numeric_expression(expr) {
        out.concerns.push(ConcernKind::Arithmetic);
    }
}

/// Digits, operators, spaces and parentheses only (no names, no expansions).
pub(super) fn is_numeric_expression(expr: &str) -> bool {
    expr.bytes()
        .all(|b| b.is_ascii_digit() || b" \t\n+-*/%()<>=!&|^~?:,".contains(&b))
}

/// The parameter an expansion reads, and whether it is read indirectly (`${!name}`).
fn parameter_of(expr: &ParameterExpr) -> (Option<&Parameter>, bool) {
    use ParameterExpr as P;
    match expr {
        P::Parameter {
            parameter,
            indirect,
        }
        | P::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | P::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | P::ParameterLength {
            parameter,
            indirect,
        }
        | P::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::Substring {
            parameter,
            indirect,
            ..
        }
        | P::Transform {
            parameter,
            indirect,
            ..
        }
        | P::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => (Some(parameter), *indirect),
        P::VariableNames { .. } | P::MemberKeys { .. } => (None, false),
    }
}

/// What a parameter expansion makes the command ask about: a substitution in its words, an
/// assignment to a dangerous variable, an expression the shell evaluates.
fn parameter_concerns(expr: &ParameterExpr, raw: &str, out: &mut Analysis) {
    use ParameterExpr as P;
    let (parameter, indirect) = parameter_of(expr);
    // The default, alternative and pattern texts are words of their own: a substitution
    // there runs too. Scanning the raw text over-approximates (quoted `$(` asks as well).
    if !matches!(expr, P::Parameter { .. }) && (raw.contains("$(") || raw.contains('`')) {
        out.concerns.push(ConcernKind::CommandSubstitution);
    }
    // `${NAME:=value}` assigns NAME when it is unset or empty (BASH_ENV usually is).
    if let (P::AssignDefaultValues { .. }, Some(p)) = (expr, parameter) {
        let name = match p {
            Parameter::Named(n)
            | Parameter::NamedWithIndex { name: n, .. }
            | Parameter::NamedWithAllIndices { name: n, .. } => Some(n),
            Parameter::Positional(_) | Parameter::Special(_) => None,
        };
        if let Some(name) = name.filter(|n| super::lists::is_dangerous_env(n)) {
            out.concerns.push(ConcernKind::Environment(name.clone()));
        }
    }
    let evaluates = indirect
        || matches!(parameter, Some(Parameter::NamedWithIndex { index, .. }) if !is_numeric_expression(index))
        || matches!(expr, P::Substring { offset, length, .. }
            if !is_numeric_expression(&offset.value)
                || length.as_ref().is_some_and(|l| !is_numeric_expression(&l.value)))
        || matches!(
            expr,
            P::Transform {
                op: ParameterTransformOp::PromptExpand,
                ..
            }
        );
    if evaluates {
        out.concerns.push(ConcernKind::Arithmetic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(raw: &str) -> Word {
        analyze(raw, &options()).word.expect("a word")
    }

    #[test]
    fn quote_removal() {
        assert_eq!(word("git"), Word::Literal("git".into()));
        assert_eq!(word("'git'"), Word::Literal("git".into()));
        assert_eq!(word("\"g\"'i't"), Word::Literal("git".into()));
        assert_eq!(word("g\\it"), Word::Literal("git".into()));
        assert_eq!(
            word("\"a\\\"b\\\\c\\d\""),
            Word::Literal("a\"b\\c\\d".into())
        );
        assert_eq!(word("a\\ b"), Word::Literal("a b".into()));
        assert_eq!(word("sta\\\ntus"), Word::Literal("status".into()));
        assert_eq!(word("$'abc'"), Word::Literal("abc".into()));
        assert_eq!(word("'*'"), Word::Literal("*".into()));
        assert_eq!(word("\\*"), Word::Literal("*".into()));
    }

    #[test]
    fn dynamic_shapes() {
        assert_eq!(word("\"$x\""), Word::One("\"$x\"".into()));
        assert_eq!(word("$'\\x72m'"), Word::One("$'\\x72m'".into()));
        assert!(matches!(word("$x"), Word::Many { glob: None, .. }));
        assert!(matches!(word("a$x"), Word::Many { glob: None, .. }));
        assert_eq!(
            word("*.rs"),
            Word::Many {
                raw: "*.rs".into(),
                glob: Some("*.rs".into())
            }
        );
        assert!(matches!(word("'a'*"), Word::Many { glob: None, .. }));
        assert!(matches!(word("{a,b}"), Word::Many { glob: None, .. }));
        assert!(matches!(word("x{1..3}"), Word::Many { .. }));
        assert_eq!(word("{}"), Word::Literal("{}".into()));
        assert_eq!(word("'{a,b}'"), Word::Literal("{a,b}".into()));
        assert_eq!(word("["), Word::Literal("[".into()));
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2048, ..Default::default() })]

        /// The fast path reads every word it accepts exactly as brush-parser's word parser.
        #[test]
        fn simple_quotes_agree_with_the_word_parser(
            segments in proptest::collection::vec(proptest::prop_oneof![
                "[a-z0-9._=-]{1,3}",
                "[a-z $`\\\\*'{}~#!;é]{0,4}".prop_map(|s| format!("\"{s}\"")),
                "[a-z $`\\\\*\"{}~#!;é]{0,4}".prop_map(|s| format!("'{s}'")),
                "[$`\\\\*?~{}#!;& \"']",
            ], 0..5)
        ) {
            let raw = segments.concat();
            if let Some(fast) = simply_quoted(&raw) {
                let mut out = Analysis::default();
                let pieces = word::parse(&raw, &options())
                    .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                let mut state = State::default();
                state.walk(&raw, &pieces, false, &mut out);
                proptest::prop_assert!(!state.one && !state.many && !state.glob, "{raw:?}");
                proptest::prop_assert_eq!(state.value, fast, "{:?}", raw);
            }
        }
    }

    #[test]
    fn concerns_inside_words() {
        let a = analyze("\"$(rm -rf x)\"", &options());
        assert_eq!(a.concerns, vec![ConcernKind::CommandSubstitution]);
        assert_eq!(a.bodies, vec!["rm -rf x".to_owned()]);
        let a = analyze("`echo \\`id\\``", &options());
        assert_eq!(a.bodies, vec!["echo `id`".to_owned()]);
        assert!(analyze("$((1+2))", &options()).concerns.is_empty());
        assert_eq!(
            analyze("$((x+2))", &options()).concerns,
            vec![ConcernKind::Arithmetic]
        );
        assert!(
            analyze("${x:-$(id)}", &options())
                .concerns
                .contains(&ConcernKind::CommandSubstitution)
        );
        assert_eq!(
            analyze("${a[i]}", &options()).concerns,
            vec![ConcernKind::Arithmetic]
        );
        assert!(analyze("${a[0]}", &options()).concerns.is_empty());
        assert_eq!(
            analyze("${!ref}", &options()).concerns,
            vec![ConcernKind::Arithmetic]
        );
        assert_eq!(
            analyze("'a[$(id)]'", &options()).concerns,
            vec![ConcernKind::Subscript]
        );
        assert!(analyze("~/x", &options()).tilde);
    }
}
