//! `paddock trust`: what a folder's settings would do that waits for the user's trust, and
//! the yes (asked on a terminal, or `--yes`), the revoke and the list.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use paddock_host::canonical_dir;
use paddock_host::edit::{Edit, in_effect};
use paddock_host::trust::TrustStore;
use paddock_protocol::{TrustItem, TrustState};

use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::output;

pub fn run(project: Option<&Path>, yes: bool, revoke: bool, list: bool) -> Result<Code, CliError> {
    let store = TrustStore::open_default()?;
    if list {
        let folders = store.list()?;
        if folders.is_empty() {
            output::out("No trusted folders.\n");
        }
        for (folder, fields) in folders {
            output::out(&format!("{folder}  ({fields} trusted setting(s))\n"));
        }
        return Ok(Code::Success);
    }
    let root = canonical_dir(&project_dir(project)?)?;
    if revoke {
        let had = store.revoke(&root)?;
        output::out(&if had {
            format!("Forgot the trust of {}.\n", root.display())
        } else {
            format!("{} was not trusted.\n", root.display())
        });
        return Ok(Code::Success);
    }
    let now = in_effect(&store, &root)?;
    let report = now.trust();
    if let Some(e) = &report.error {
        return Err(CliError::failure(e.clone()));
    }
    if !report.needs_trust() {
        output::out(&format!(
            "Nothing to trust: {}'s settings ask for nothing that waits for trust{}.\n",
            root.display(),
            if report.trusted.is_empty() {
                ""
            } else {
                " (what they ask for is trusted already)"
            }
        ));
        return Ok(Code::Success);
    }
    output::out(&format!(
        "The settings of {} (.paddock/settings.json) would:\n",
        root.display()
    ));
    for item in &report.pending {
        output::out(&format!("  - {}\n", describe(item)));
    }
    for item in &report.trusted {
        output::out(&format!("  - {} [trusted already]\n", item.what));
    }
    if !yes && !ask(&root)? {
        output::out("Not trusted; nothing changed.\n");
        return Ok(Code::Success);
    }
    Edit::new(&store, &root).trust_folder()?;
    output::out(&format!(
        "Trusted. Recorded in {}; revoke with `paddock trust --revoke --project {}`.\n",
        store.path().display(),
        root.display()
    ));
    Ok(Code::Success)
}

fn describe(item: &TrustItem) -> String {
    match &item.state {
        TrustState::Changed { was } => format!("{} [{}, changed; was {was}]", item.what, item.key),
        _ => format!("{} [{}]", item.what, item.key),
    }
}

/// Asks on the terminal; without one, says how to answer from a script.
fn ask(root: &Path) -> Result<bool, CliError> {
    if !std::io::stdin().is_terminal() {
        return Err(CliError::usage(format!(
            "not a terminal, so nobody can answer: read the list above, then run \
             `paddock trust --yes --project {}`",
            root.display()
        )));
    }
    output::out("Trust these settings? [y/N] ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::failure(format!("cannot read the answer: {e}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}
