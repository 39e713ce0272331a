//! Each host state, as `/proc` and `/sys` record it, and what Paddock says about it.

use super::*;

/// Ubuntu 24.04 with Paddock's package installed and its profile loaded.
fn ubuntu_2404() -> HostState {
    HostState {
        restricted: Some(true),
        apparmor_enabled: true,
        profile_loaded: Some(true),
        profile_installed: true,
        helper: PathBuf::from(PROFILE_ATTACHED_TO),
        ..HostState::default()
    }
}

const TRIAL: &str = "paddock sandbox: the wall could not be built: uid/gid maps: EPERM";

fn never_says_turn_it_off(fix: &str) {
    assert!(
        !fix.contains("=0") && !fix.contains("= 0") && !fix.contains("sysctl -w"),
        "the fix proposes turning the restriction off: {fix}"
    );
}

#[test]
fn the_profile_is_missing() {
    let state = HostState {
        profile_installed: false,
        profile_loaded: Some(false),
        ..ubuntu_2404()
    };
    let (why, fix) = why_no_namespaces(&state, TRIAL);
    assert!(
        why.contains("apparmor_restrict_unprivileged_userns = 1"),
        "{why}"
    );
    assert!(why.contains("is missing"), "{why}");
    assert!(fix.contains("--reinstall paddock"), "{fix}");
    never_says_turn_it_off(&fix);
}

#[test]
fn the_profile_is_not_loaded() {
    let state = HostState {
        profile_loaded: Some(false),
        ..ubuntu_2404()
    };
    let (why, fix) = why_no_namespaces(&state, TRIAL);
    assert!(why.contains("not loaded"), "{why}");
    assert_eq!(
        fix,
        "load it: sudo apparmor_parser -r /etc/apparmor.d/paddock-sandbox-helper"
    );
}

#[test]
fn a_helper_the_profile_does_not_cover() {
    let state = HostState {
        helper: PathBuf::from("/home/me/paddock/target/debug/paddock-sandbox-helper"),
        ..ubuntu_2404()
    };
    let (why, fix) = why_no_namespaces(&state, TRIAL);
    assert!(why.contains("target/debug/paddock-sandbox-helper"), "{why}");
    assert!(
        fix.contains(
            "profile paddock-sandbox-helper /home/me/paddock/target/debug/paddock-sandbox-helper"
        ),
        "{fix}"
    );
    assert!(fix.contains("userns,"), "{fix}");
    never_says_turn_it_off(&fix);
}

#[test]
fn the_appimage_says_it_cannot_and_gives_the_one_command() {
    let state = HostState {
        helper: PathBuf::from("/tmp/.mount_PaddocXYZ/usr/bin/paddock-sandbox-helper"),
        profile_installed: false,
        profile_loaded: Some(false),
        ..ubuntu_2404()
    };
    let (why, fix) = why_no_namespaces(&state, TRIAL);
    assert!(why.contains("AppImage cannot install a profile"), "{why}");
    assert!(fix.contains("sudo install -D -m 755"), "{fix}");
    assert!(
        fix.contains("PADDOCK_SANDBOX_HELPER=/usr/local/lib/paddock"),
        "{fix}"
    );
    assert!(fix.contains("the restriction stays on"), "{fix}");
    never_says_turn_it_off(&fix);
}

#[test]
fn no_user_namespaces_at_all() {
    for state in [
        HostState {
            no_user_namespaces: true,
            ..HostState::default()
        },
        HostState {
            unprivileged_clone_off: true,
            ..HostState::default()
        },
    ] {
        let (why, fix) = why_no_namespaces(&state, TRIAL);
        assert!(why.contains("no unprivileged user namespaces"), "{why}");
        assert!(fix.contains("Landlock and seccomp only"), "{fix}");
    }
}

#[test]
fn loaded_but_still_failing_names_the_error() {
    let (why, fix) = why_no_namespaces(&ubuntu_2404(), TRIAL);
    assert!(why.contains(TRIAL), "{why}");
    assert!(fix.contains("aa-status"), "{fix}");
}

#[test]
fn without_the_restriction_the_trial_error_is_given() {
    let (why, fix) = why_no_namespaces(&HostState::default(), TRIAL);
    assert!(why.contains(TRIAL), "{why}");
    assert!(fix.contains("unshare -Ur true"), "{fix}");
}

#[test]
fn bubblewrap_under_the_restriction() {
    assert_eq!(why_no_bwrap(&HostState::default()), None);
    let said = why_no_bwrap(&HostState {
        bwrap_setuid: true,
        ..ubuntu_2404()
    })
    .unwrap();
    assert!(said.contains("setuid"), "{said}");
    assert!(said.contains("bwrap-userns-restrict"), "{said}");
    never_says_turn_it_off(&said);
}

/// The list AppArmor keeps of loaded profiles, as Ubuntu 24.04 prints it.
#[test]
fn the_loaded_list_is_read_by_name() {
    let list = "unprivileged_userns (enforce)\npaddock-sandbox-helper (unconfined)\n\
                /usr/bin/man (enforce)\n";
    assert!(lists_profile(list));
    assert!(!lists_profile("paddock-sandbox-helper-old (unconfined)\n"));
    assert!(!lists_profile(""));
}
