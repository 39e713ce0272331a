use super::*;

#[test]
fn only_a_running_appimage_replaces_itself_and_packages_are_named() {
    assert_eq!(
        install_kind(Some(BundleType::AppImage), true),
        InstallKind::AppImage
    );
    // The binary of an AppImage run without its runtime ($APPIMAGE unset) has no file to swap.
    assert_eq!(
        install_kind(Some(BundleType::AppImage), false),
        InstallKind::Source
    );
    assert_eq!(install_kind(Some(BundleType::Deb), true), InstallKind::Deb);
    assert_eq!(install_kind(Some(BundleType::Rpm), false), InstallKind::Rpm);
    assert_eq!(install_kind(None, false), InstallKind::Source);
}

#[test]
fn no_key_or_a_source_build_means_no_update_check() {
    assert!(updates_off(InstallKind::Source, "key").is_some());
    let off = updates_off(InstallKind::AppImage, " ").unwrap_or_default();
    assert!(off.contains("no update key"), "{off}");
    assert_eq!(updates_off(InstallKind::Deb, "key"), None);
}

#[test]
fn the_override_is_https_or_loopback_http() {
    assert_eq!(override_url(None).ok(), Some(None));
    assert_eq!(override_url(Some("")).ok(), Some(None));
    for ok in [
        "https://updates.example.com/latest.json",
        "http://127.0.0.1:8080/latest.json",
        "http://[::1]:8080/latest.json",
        "http://localhost:1/latest.json",
    ] {
        assert!(override_url(Some(ok)).is_ok_and(|u| u.is_some()), "{ok}");
    }
    for refused in [
        "http://updates.example.com/latest.json",
        "http://10.0.0.1/latest.json",
        "file:///tmp/latest.json",
        "not a url",
    ] {
        assert!(override_url(Some(refused)).is_err(), "{refused}");
    }
}

#[test]
fn refusals_say_what_happened() {
    use tauri_plugin_updater::Error as E;
    let key = install_error(E::Minisign(minisign_verify::Error::UnexpectedKeyId)).message;
    assert!(key.contains("another key"), "{key}");
    let bad = install_error(E::Minisign(minisign_verify::Error::InvalidSignature)).message;
    assert!(bad.contains("does not match"), "{bad}");
    let version = install_error(E::SignedVersionMismatch {
        signed: "0.1.0".into(),
        announced: "0.2.0".into(),
    })
    .message;
    assert!(
        version.contains("announces 0.2.0 but is signed as 0.1.0"),
        "{version}"
    );
    for m in [key, bad, version] {
        assert!(m.contains("not installed"), "{m}");
    }
}

#[test]
fn package_installs_name_their_package_manager() {
    let deb = package_manager_line(InstallKind::Deb, "0.2.0");
    assert!(deb.contains("apt") && deb.contains("0.2.0"), "{deb}");
    let rpm = package_manager_line(InstallKind::Rpm, "0.2.0");
    assert!(rpm.contains("dnf"), "{rpm}");
    assert!(package_manager_line(InstallKind::AppImage, "0.2.0").is_empty());
}
