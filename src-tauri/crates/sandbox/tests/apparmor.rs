//! Issue 53: the AppArmor profile the packages install for the sandbox helper, and the one
//! the advice for other copies writes, are what AppArmor 4 parses, and say only `userns`.
//! The parser is AppArmor 4's (`PADDOCK_APPARMOR_PARSER`, fetched by
//! `scripts/apparmor-parser.py`; Debian 12's own is AppArmor 3, which lacks the rule); with
//! `PADDOCK_REQUIRE_APPARMOR_PARSER=1` (CI) a missing one fails instead of skipping.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use paddock_sandbox::userns::{PROFILE_ATTACHED_TO, profile_command, profile_text};

fn shipped() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../packaging/apparmor/paddock-sandbox-helper");
    std::fs::read_to_string(path).unwrap()
}

/// The shipped file without its comment lines.
fn rules_of(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn the_shipped_profile_is_the_helpers_and_grants_only_userns() {
    assert_eq!(
        rules_of(&shipped()),
        profile_text(Path::new(PROFILE_ATTACHED_TO))
    );
    let body = profile_text(Path::new(PROFILE_ATTACHED_TO));
    let inside = body.split_once('{').unwrap().1;
    let rules: Vec<&str> = inside
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "}" && !l.starts_with("include if exists"))
        .collect();
    assert_eq!(rules, ["userns,"], "the profile grants only userns");
}

/// The advice's command writes exactly the profile text (run here without `sudo`, into a
/// temporary file).
#[test]
fn the_advised_command_writes_that_profile() {
    let helper = Path::new("/usr/local/lib/paddock/paddock-sandbox-helper");
    let command = profile_command(helper);
    let inner = command
        .strip_prefix("sudo sh -c '")
        .and_then(|c| c.split(" > /etc/apparmor.d/").next())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("profile");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{inner} > {}", out.display()))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), profile_text(helper));
}

fn parser() -> Option<PathBuf> {
    match std::env::var_os("PADDOCK_APPARMOR_PARSER").filter(|p| !p.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            assert!(
                std::env::var("PADDOCK_REQUIRE_APPARMOR_PARSER").as_deref() != Ok("1"),
                "PADDOCK_REQUIRE_APPARMOR_PARSER=1 but PADDOCK_APPARMOR_PARSER is not set \
                 (scripts/apparmor-parser.py prints it)"
            );
            eprintln!("skipped: no AppArmor 4 parser (set PADDOCK_APPARMOR_PARSER)");
            None
        }
    }
}

/// `apparmor_parser -Q -K` (syntax only, no kernel) on `text`: its success and output.
fn parse(parser: &Path, text: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("paddock-sandbox-helper");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(parser)
        .args(["-Q", "-K"])
        .arg(&file)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn apparmor_4_parses_the_profiles() {
    let Some(parser) = parser() else { return };
    let (ok, said) = parse(&parser, &shipped());
    assert!(ok, "the shipped profile: {said}");
    let (ok, said) = parse(
        &parser,
        &profile_text(Path::new("/usr/local/lib/paddock/paddock-sandbox-helper")),
    );
    assert!(ok, "the advised profile: {said}");
    // The check can fail: a rule AppArmor does not know is refused.
    let (ok, _) = parse(
        &parser,
        &shipped().replace("userns,", "userns, nonsense_rule,"),
    );
    assert!(!ok, "a broken profile parsed");
}
