//! bash's output laid out for the model: stdout, then stderr under a marker, then the notes
//! and the exit code.

/// Marker between stdout and stderr.
pub const STDERR_MARKER: &str = "--- stderr ---";

/// stdout, then stderr under a marker, then notes and the exit code.
pub fn layout(stdout: &str, stderr: &str, notes: &[String], exit_code: i32) -> String {
    let mut out = String::new();
    if !stdout.is_empty() {
        out.push_str(stdout);
        if !stdout.ends_with('\n') {
            out.push('\n');
        }
    }
    if !stderr.is_empty() {
        out.push_str(STDERR_MARKER);
        out.push('\n');
        out.push_str(stderr);
        if !stderr.ends_with('\n') {
            out.push('\n');
        }
    }
    if stdout.is_empty() && stderr.is_empty() {
        out.push_str("(no output)\n");
    }
    for note in notes {
        out.push_str(note);
        out.push('\n');
    }
    out.push_str(&format!("[exit code: {exit_code}]"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_orders_streams_and_code() {
        assert_eq!(
            layout("out", "err\n", &[], 2),
            "out\n--- stderr ---\nerr\n[exit code: 2]"
        );
        assert_eq!(layout("", "", &[], 0), "(no output)\n[exit code: 0]");
    }
}
