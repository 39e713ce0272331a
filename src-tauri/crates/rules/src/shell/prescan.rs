//! Checks made on the raw text before the parser sees it: size, nesting (the parser
//! recurses per level) and characters that make a command read differently than it runs.

use super::{MAX_COMMAND_BYTES, MAX_NESTING};
use crate::error::ParseError;

/// Longest run of digits read: brush-parser unwraps its number parses (descriptors, `~+N`,
/// brace ranges), so a longer run would panic inside it.
const MAX_DIGITS: usize = 18;

/// Words that open or close a nesting level in bash's grammar.
const OPENERS: [&str; 7] = ["if", "while", "until", "for", "case", "select", "coproc"];
const CLOSERS: [&str; 3] = ["fi", "done", "esac"];

/// Rejects what is too long or too deep to parse safely. The nesting count ignores quoting,
/// so it can only over-count (a quoted `((((` costs depth), never under-count. Inside
/// `[[ … ]]`, `!`, `&&` and `||` count too: the parser nests a test's operators (and frees
/// them) recursively.
pub(super) fn check(cmd: &str) -> Result<(), ParseError> {
    if cmd.len() > MAX_COMMAND_BYTES {
        return Err(ParseError::TooLong {
            len: cmd.len(),
            max: MAX_COMMAND_BYTES,
        });
    }
    let bytes = cmd.as_bytes();
    let mut depth: usize = 0;
    // Open `[[` tests, and operators seen inside them.
    let mut tests: usize = 0;
    let mut test_ops: usize = 0;
    let mut digits: usize = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        digits = if b.is_ascii_digit() { digits + 1 } else { 0 };
        if digits > MAX_DIGITS {
            return Err(ParseError::Syntax(format!(
                "a number longer than {MAX_DIGITS} digits"
            )));
        }
        let next = bytes.get(i + 1).copied();
        match b {
            b'[' if next == Some(b'[') => {
                tests += 1;
                depth += 2;
                i += 1;
            }
            b']' if next == Some(b']') && tests > 0 => {
                tests -= 1;
                if tests == 0 {
                    test_ops = 0;
                }
                depth = depth.saturating_sub(2);
                i += 1;
            }
            b'!' if tests > 0 => test_ops += 1,
            b'&' | b'|' if tests > 0 && next == Some(b) => {
                test_ops += 1;
                i += 1;
            }
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            // An escaped backquote opens a nested substitution inside backquotes.
            b'\\' if bytes.get(i + 1) == Some(&b'`') => {
                depth += 1;
                i += 1;
            }
            b if b.is_ascii_alphabetic() => {
                let start = i;
                while i + 1 < bytes.len() && bytes[i + 1].is_ascii_alphanumeric() {
                    i += 1;
                }
                let word = &cmd[start..=i];
                if OPENERS.contains(&word) {
                    depth += 1;
                } else if CLOSERS.contains(&word) {
                    depth = depth.saturating_sub(1);
                }
            }
            _ => {}
        }
        if depth + test_ops > MAX_NESTING {
            return Err(ParseError::TooDeep { max: MAX_NESTING });
        }
        i += 1;
    }
    Ok(())
}

/// Whether the text holds characters that display differently from how bash reads them:
/// C0/C1 controls other than tab and newline (a carriage return makes `status\r` a
/// different word), and invisible or direction-changing characters.
pub(super) fn has_hidden_characters(cmd: &str) -> bool {
    if cmd.is_ascii() {
        return cmd
            .bytes()
            .any(|b| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f);
    }
    cmd.chars().any(is_hidden)
}

pub(crate) fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(c,
            '\u{200B}'..='\u{200F}' // zero-width spaces and joiners, LRM/RLM
            | '\u{202A}'..='\u{202E}' // bidi embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{FEFF}' // zero-width no-break space
            | '\u{AD}' // soft hyphen
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_nesting_of_every_kind() {
        assert!(check(&format!("{}ls{}", "( ".repeat(32), " )".repeat(32))).is_ok());
        assert!(check(&format!("{}ls{}", "( ".repeat(33), " )".repeat(33))).is_err());
        assert!(check(&"if true; then ".repeat(40)).is_err());
        assert!(check(&"echo \"$(".repeat(40)).is_err());
        // Sequential groups do not add up.
        assert!(check(&"{ ls; } && ".repeat(200)).is_ok());
        // Identifiers that merely contain a keyword are not keywords.
        assert!(check(&"iffy fork done2 ".repeat(100)).is_ok());
        // Operators inside a test nest; outside one they chain.
        assert!(check(&format!("[[ {} a ]]", "! ".repeat(40))).is_err());
        assert!(check(&format!("[[ a {} ]]", "&& a ".repeat(40))).is_err());
        assert!(check(&format!("[[ a {} ]]", "|| a ".repeat(20))).is_ok());
        assert!(check(&format!("[[ a ]] {}", "&& [[ a && b ]] ".repeat(100))).is_ok());
        assert!(check(&"ls && ! ls || ls ".repeat(100)).is_ok());
        assert!(check(&format!("{}ls", "coproc ".repeat(40))).is_err());
    }

    #[test]
    fn long_numbers() {
        assert!(check(&"1".repeat(MAX_DIGITS)).is_ok());
        assert!(check(&format!("echo {}>x", "9".repeat(MAX_DIGITS + 1))).is_err());
        assert!(check("git show 4b825dc642cb6eb9a060e54bf8d69288fbee4904").is_ok());
    }

    #[test]
    fn length_limit() {
        assert!(check(&"a".repeat(MAX_COMMAND_BYTES)).is_ok());
        assert!(matches!(
            check(&"a".repeat(MAX_COMMAND_BYTES + 1)),
            Err(ParseError::TooLong { .. })
        ));
    }

    #[test]
    fn hidden_characters() {
        assert!(has_hidden_characters("git status\r"));
        assert!(has_hidden_characters("git\u{7}status"));
        assert!(has_hidden_characters("echo \u{202E}txt.sh"));
        assert!(has_hidden_characters("git\u{200B} status"));
        assert!(!has_hidden_characters("git status\n\tgit diff"));
        assert!(!has_hidden_characters("echo héllo ｇit"));
    }
}
