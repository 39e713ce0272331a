//! The IPC contract is written once, in `commands.rs`: the page's client, the component
//! tests' mock and the docs' table are generated from it and committed; this test fails
//! while a committed copy is stale. Regenerate with
//! `PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-desktop --test it contract`.

use std::path::Path;

use paddock_desktop::{commands, contract};
use paddock_protocol::generated::check_committed;

const HOW: &str = "cargo test -p paddock-desktop --test it contract";
/// Functions of ui/src/lib/api.ts that are not commands (the mock stands in for them too).
const API_EXTRAS: &[&str] = &["onNotificationClick"];
const TABLE_START: &str = "<!-- commands: generated, do not edit -->\n";
const TABLE_END: &str = "<!-- commands: end -->";

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn the_pages_client_is_current() {
    let client = contract::typescript_client(&commands::contract());
    check_committed(&repo().join("ui/src/lib/commands.ts"), &client, HOW).unwrap();
}

#[test]
fn the_test_mock_is_current() {
    let mock = contract::mock(&commands::contract(), API_EXTRAS);
    check_committed(&repo().join("ui/src/test/api-mock.ts"), &mock, HOW).unwrap();
}

#[test]
fn the_docs_table_is_current() {
    let path = repo().join("docs/desktop-ipc.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = doc
        .split_once(TABLE_START)
        .expect("the docs' table start marker");
    let (_, after) = rest
        .split_once(TABLE_END)
        .expect("the docs' table end marker");
    let table = contract::docs_table(&commands::contract());
    let expected = format!("{before}{TABLE_START}{table}{TABLE_END}{after}");
    check_committed(&path, &expected, HOW).unwrap();
}

/// Every command the handler routes is in the contract, and nothing twice.
#[test]
fn every_command_is_described_once() {
    let names: Vec<&str> = commands::contract().iter().map(|c| c.name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert!(names.contains(&"open_project") && names.contains(&"sandbox_status"));
}
