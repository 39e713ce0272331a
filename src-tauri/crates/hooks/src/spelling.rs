//! Path-like text and the spellings an interpreter tries for it: what a hook's command line
//! or a pinned script's text may name (`script`, and the host following a script's own
//! references: `source ./lib.sh`, `require('./lib')`, `import helper`).

/// Endings an interpreter adds to a module path written without one.
const EXTENSIONS: [&str; 10] = [
    ".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".json", ".rb", ".pl",
];
/// Most path-like runs taken from one text (the rest is left out; the host pins what it
/// finds, so a bound only limits the work).
pub const MAX_TEXT_PATHS: usize = 4_096;
/// Longest run taken as a path, in bytes.
const MAX_PATH_BYTES: usize = 1_024;

/// `path`, and when it is a module path without an ending (`./lib`, `hooks/guard`), the
/// files an interpreter would load for it.
pub(crate) fn spellings(path: &str) -> Vec<String> {
    let mut out = vec![path.to_owned()];
    let last = path.rsplit('/').next().unwrap_or(path);
    if path.contains('/') && !last.is_empty() && !last.contains('.') {
        out.extend(EXTENSIONS.iter().map(|e| format!("{path}{e}")));
        out.push(format!("{path}/index.js"));
        out.push(format!("{path}/__init__.py"));
    }
    out
}

fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_./@+-~".contains(c)
}

/// Runs of path characters that contain a `/` or a `.` and a letter or digit, once each,
/// in order (at most [`MAX_TEXT_PATHS`]).
pub(crate) fn path_runs(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for run in text.split(|c: char| !path_char(c)) {
        let run = run.trim_end_matches('.');
        if run.len() > MAX_PATH_BYTES
            || !(run.contains('/') || run.contains('.'))
            || !run.chars().any(|c| c.is_ascii_alphanumeric())
        {
            continue;
        }
        if seen.insert(run) {
            out.push(run.to_owned());
            if out.len() >= MAX_TEXT_PATHS {
                break;
            }
        }
    }
    out
}

/// Python's `import a.b` and `from a.b import c`: the files that would load, relative to
/// the script's folder (Python's first place to look).
fn python_imports(text: &str) -> Vec<String> {
    let mut modules = Vec::new();
    for line in text.lines().map(str::trim_start) {
        if let Some(rest) = line.strip_prefix("import ") {
            for part in rest.split(',') {
                if let Some(m) = part.split_whitespace().next() {
                    modules.push(m);
                }
            }
        } else if let Some(rest) = line.strip_prefix("from ")
            && let Some(m) = rest.split_whitespace().next()
        {
            modules.push(m.trim_start_matches('.'));
        }
    }
    let mut out = Vec::new();
    for m in modules {
        if m.is_empty()
            || !m
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            continue;
        }
        let path = m.replace('.', "/");
        let first = path.split('/').next().unwrap_or(&path);
        for p in [
            format!("{path}.py"),
            format!("{path}/__init__.py"),
            format!("{first}.py"),
            format!("{first}/__init__.py"),
        ] {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// What a script's text may name as a file it runs or reads: its path-like runs with their
/// spellings, and Python's imports. Relative ones are the host's to place (the script's
/// folder, the project, the folder hooks run in).
pub fn text_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in path_runs(text) {
        out.extend(spellings(&run));
    }
    out.extend(python_imports(text));
    out.truncate(MAX_TEXT_PATHS * 4);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_without_a_letter_or_a_separator_are_not_paths() {
        assert_eq!(path_runs("a .. . -- x+y 1.5 ok."), ["1.5"]);
    }
}
