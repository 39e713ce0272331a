//! `paddock rewind`: put a session's files and/or conversation back to before a prompt or a
//! turn, list the points, preview with `--dry-run`, undo the last rewind.

use std::path::Path;
use std::sync::Arc;

use paddock_host::session::SessionStore;
use paddock_host::trust::TrustStore;
use paddock_host::{RewindRequest, RunService, canonical_dir, unified_diff};
use paddock_protocol::{FileChange, RewindInfo, RewindMode};

use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::keys::CliKeys;
use crate::output::{self, change_line, plural};

pub struct Args<'a> {
    pub project: Option<&'a Path>,
    pub session: &'a str,
    pub to: Option<&'a str>,
    pub files_only: bool,
    pub conversation_only: bool,
    pub dry_run: bool,
    pub undo: bool,
    pub list: bool,
}

pub fn run(args: &Args<'_>) -> Result<Code, CliError> {
    let root = canonical_dir(&project_dir(args.project)?)?;
    let service = RunService::new(
        SessionStore::open_default()?,
        Arc::new(CliKeys),
        TrustStore::open_default()?,
    );
    if let Some(done) = service.recover_rewind(&root)? {
        output::err(&format!(
            "paddock: finished an interrupted rewind of prompt {} ({} files)",
            done.prompt,
            done.changed.len()
        ));
    }
    if args.list {
        return list(&service, &root, args.session);
    }
    if args.undo && args.dry_run {
        let preview = service.undo_preview(&root, args.session)?;
        print_diff(&preview.files);
        output::err(&format!(
            "paddock: undoing the last rewind would change {} file{} and bring the conversation \
             back to before it (nothing changed)",
            preview.files.len(),
            plural(preview.files.len())
        ));
        return Ok(Code::Success);
    }
    if args.undo {
        let info = service.undo_rewind(&root, args.session)?;
        report(&info, args.session);
        return Ok(Code::Success);
    }
    let (prompt, turn) = parse_point(args.to.unwrap_or_default())?;
    let mode = match (args.files_only, args.conversation_only) {
        (true, _) => RewindMode::FilesOnly,
        (_, true) => RewindMode::ConversationOnly,
        _ => RewindMode::Both,
    };
    let request = RewindRequest {
        session: args.session.to_owned(),
        prompt,
        turn,
        mode,
    };
    if args.dry_run {
        let preview = service.rewind_preview(&root, &request)?;
        print_diff(&preview.files);
        output::err(&format!(
            "paddock: would change {} file{} and set aside {} message{} (nothing changed)",
            preview.files.len(),
            plural(preview.files.len()),
            preview.messages_dropped,
            plural(preview.messages_dropped as usize)
        ));
        return Ok(Code::Success);
    }
    let info = service.rewind(&root, &request)?;
    report(&info, args.session);
    Ok(Code::Success)
}

/// The files' changes as one unified diff, on stdout.
fn print_diff(files: &[FileChange]) {
    let text: String = files.iter().map(unified_diff).collect();
    output::out(&text);
}

/// `N` or `N.T`.
fn parse_point(text: &str) -> Result<(u32, u32), CliError> {
    let bad = || {
        CliError::usage(format!(
            "--to takes N (before prompt N) or N.T (before turn T of prompt N), not '{text}'"
        ))
    };
    let (prompt, turn) = match text.split_once('.') {
        Some((p, t)) => (p, t),
        None => (text, "0"),
    };
    let prompt: u32 = prompt.trim().parse().map_err(|_| bad())?;
    let turn: u32 = turn.trim().parse().map_err(|_| bad())?;
    if prompt == 0 {
        return Err(bad());
    }
    Ok((prompt, turn))
}

fn list(service: &RunService, root: &Path, session: &str) -> Result<Code, CliError> {
    let mut text = String::new();
    for point in service.rewind_points(root, session)? {
        let at = if point.turn == 0 {
            format!("{}", point.prompt)
        } else {
            format!("{}.{}", point.prompt, point.turn)
        };
        let what = if point.turn == 0 {
            "before the prompt".to_owned()
        } else {
            format!("before turn {}", point.turn)
        };
        let files = if point.checkpoint.is_some() {
            "files + conversation"
        } else {
            "conversation only"
        };
        text.push_str(&format!("{at:<8} {what:<20} {files}\n"));
    }
    output::out(&text);
    Ok(Code::Success)
}

fn report(info: &RewindInfo, session: &str) {
    let what = match (info.files, info.conversation) {
        (true, true) => "files and conversation",
        (true, false) => "files",
        _ => "conversation",
    };
    let head = if info.undoes.is_some() {
        format!("paddock: undid the last rewind ({what})")
    } else if info.turn == 0 {
        format!(
            "paddock: rewound the {what} to before prompt {}",
            info.prompt
        )
    } else {
        format!(
            "paddock: rewound the {what} to before turn {} of prompt {}",
            info.turn, info.prompt
        )
    };
    let mut text = head;
    for change in &info.changed {
        text.push_str(&format!("\n  {}", change_line(change)));
    }
    if info.files {
        text.push_str(&format!("\n(undo with: paddock rewind {session} --undo)"));
    }
    output::err(&text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_parse() {
        assert_eq!(parse_point("2").unwrap(), (2, 0));
        assert_eq!(parse_point("2.3").unwrap(), (2, 3));
        for bad in ["", "0", "a", "1.x", "-1", "1.2.3"] {
            assert!(parse_point(bad).is_err(), "{bad}");
        }
    }
}
