//! Tool names a model got nearly right: `read_file` for `file_read`, `FileRead`,
//! `functions.file_read`, `file-read`, `grepp`. Such a call is never run under the other
//! name; its answer names the tool the model meant, so the next call can be right.

/// The one tool of `known` that `name` nearly spells, if exactly one does: the same words
/// in another order or case or with other separators (`read_file`, `fileRead`,
/// `File-Read`), a namespace before it (`functions.grep`, `tools/grep`), or one letter
/// added, dropped, changed or two swapped in a name of five letters or more (`gerp` is not
/// taken: too short to tell). An exact name is not a near miss.
pub fn near_miss<'a, I>(name: &str, known: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let name = name.trim();
    if name.is_empty() || name.len() > 128 {
        return None;
    }
    let bare = name
        .rsplit(['.', '/', ':'])
        .next()
        .filter(|b| !b.is_empty())
        .unwrap_or(name);
    let words = words_of(bare);
    let joined: String = words.concat();
    let mut sorted = words.clone();
    sorted.sort_unstable();
    let mut found: Option<&'a str> = None;
    for candidate in known {
        if candidate == name {
            return None;
        }
        let cw = words_of(candidate);
        let mut cs = cw.clone();
        cs.sort_unstable();
        let close = cs == sorted
            || cw.concat() == joined
            || (joined.len() >= 5 && one_edit_apart(&joined, &cw.concat()));
        if close {
            if found.is_some_and(|f| f != candidate) {
                return None;
            }
            found = Some(candidate);
        }
    }
    found
}

/// Lowercase words: split at `_`, `-`, spaces, dots and lower-to-upper case changes.
fn words_of(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Whether `a` becomes `b` by one insertion, deletion, substitution or swap of neighbours.
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        std::cmp::Ordering::Greater => ra[1..] == *rb,
        std::cmp::Ordering::Less => *ra == rb[1..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: [&str; 6] = [
        "file_read",
        "file_write",
        "file_edit",
        "grep",
        "glob",
        "bash",
    ];

    fn guess(name: &str) -> Option<&'static str> {
        near_miss(name, TOOLS)
    }

    #[test]
    fn near_misses_name_the_tool_meant() {
        assert_eq!(guess("read_file"), Some("file_read"));
        assert_eq!(guess("ReadFile"), Some("file_read"));
        assert_eq!(guess("fileRead"), Some("file_read"));
        assert_eq!(guess("File-Write"), Some("file_write"));
        assert_eq!(guess("edit_file"), Some("file_edit"));
        assert_eq!(guess("functions.grep"), Some("grep"));
        assert_eq!(guess("fileread"), Some("file_read"));
        assert_eq!(guess("file_reed"), Some("file_read"));
        assert_eq!(guess("bash_"), Some("bash"));
    }

    #[test]
    fn far_or_exact_names_are_not_near_misses() {
        for name in [
            "grep",
            "glob",
            "rm",
            "gerp",
            "delete_all",
            "format_disk",
            "report",
            "nope",
        ] {
            assert_eq!(guess(name), None, "{name}");
        }
        assert_eq!(guess(""), None);
        // Two tools one edit away from each other and from the name: not a guess.
        assert_eq!(near_miss("abcdx", ["abcde", "abcdf"]), None);
    }
}
