//! Why user namespaces (and with them bubblewrap and the helper's own wall) do or do not
//! work on this host, and the fix for each case, from what `/proc` and `/sys` say. Ubuntu
//! 23.10+ lets only programs with an AppArmor profile that grants `userns` make them
//! (`kernel.apparmor_restrict_unprivileged_userns`); Paddock's packages install such a
//! profile for the helper, so the fix is that profile, never turning the restriction off.
//! Pure over a recorded [`HostState`], so every case is tested without that kernel.

use std::path::{Path, PathBuf};

/// The profile's name, and its file in `/etc/apparmor.d`.
pub const PROFILE_NAME: &str = "paddock-sandbox-helper";
/// Where the packages install the helper: the path the profile is attached to.
pub const PROFILE_ATTACHED_TO: &str = "/usr/bin/paddock-sandbox-helper";
/// Where the packages keep the profile (the install scripts copy it into place when the
/// system's AppArmor knows the `userns` rule).
pub const PROFILE_SHIPPED: &str = "/usr/share/paddock/apparmor/paddock-sandbox-helper";
const PROFILE_DIR: &str = "/etc/apparmor.d";
/// Where the AppImage's advice keeps a copy of the helper.
const FIXED_HELPER: &str = "/usr/local/lib/paddock/paddock-sandbox-helper";

/// What the host says about user namespaces, as read (or recorded for a test).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostState {
    /// `/proc/sys/kernel/apparmor_restrict_unprivileged_userns` (absent: no such setting).
    pub restricted: Option<bool>,
    /// `/sys/module/apparmor/parameters/enabled` says `Y`.
    pub apparmor_enabled: bool,
    /// `/sys/kernel/security/apparmor/profiles` lists Paddock's profile (`None`: unreadable).
    pub profile_loaded: Option<bool>,
    /// `/etc/apparmor.d/paddock-sandbox-helper` exists.
    pub profile_installed: bool,
    /// `/proc/sys/user/max_user_namespaces` is 0.
    pub no_user_namespaces: bool,
    /// `/proc/sys/kernel/unprivileged_userns_clone` is 0 (older Debian kernels).
    pub unprivileged_clone_off: bool,
    /// The helper this Paddock runs.
    pub helper: PathBuf,
    /// bubblewrap is installed setuid root.
    pub bwrap_setuid: bool,
    /// Paddock runs from an AppImage (`APPIMAGE` is set).
    pub appimage: bool,
}

impl HostState {
    /// This host, for the helper at `helper` and bubblewrap at `bwrap`.
    pub fn read(helper: &Path, bwrap: Option<&Path>) -> Self {
        let text = |p: &str| std::fs::read_to_string(p).ok().map(|t| t.trim().to_owned());
        let profile_loaded = std::fs::read_to_string("/sys/kernel/security/apparmor/profiles")
            .ok()
            .map(|list| lists_profile(&list));
        Self {
            restricted: text("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
                .map(|v| v == "1"),
            apparmor_enabled: text("/sys/module/apparmor/parameters/enabled")
                .is_some_and(|v| v.starts_with('Y')),
            profile_loaded,
            profile_installed: Path::new(PROFILE_DIR).join(PROFILE_NAME).is_file(),
            no_user_namespaces: text("/proc/sys/user/max_user_namespaces").as_deref() == Some("0"),
            unprivileged_clone_off: text("/proc/sys/kernel/unprivileged_userns_clone").as_deref()
                == Some("0"),
            helper: helper.to_path_buf(),
            bwrap_setuid: bwrap.is_some_and(is_setuid),
            appimage: std::env::var_os("APPIMAGE").is_some(),
        }
    }
}

/// Whether AppArmor's list of loaded profiles (`NAME (mode)` per line) has Paddock's.
pub fn lists_profile(list: &str) -> bool {
    list.lines()
        .any(|l| l.split(" (").next() == Some(PROFILE_NAME))
}

#[cfg(unix)]
fn is_setuid(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o4000 != 0)
}

#[cfg(not(unix))]
fn is_setuid(_: &Path) -> bool {
    false
}

/// Why the helper's namespaces failed (`trial`: what it printed) on a host in `state`, and
/// the fix.
pub fn why_no_namespaces(state: &HostState, trial: &str) -> (String, String) {
    if state.no_user_namespaces || state.unprivileged_clone_off {
        let setting = if state.no_user_namespaces {
            "user.max_user_namespaces = 0"
        } else {
            "kernel.unprivileged_userns_clone = 0"
        };
        return (
            format!("this kernel allows no unprivileged user namespaces ({setting})"),
            "ask the machine's administrator to allow them (a container or a hardened kernel \
             may forbid them); meanwhile bash runs behind Landlock and seccomp only"
                .to_owned(),
        );
    }
    if state.restricted != Some(true) || !state.apparmor_enabled {
        return (
            format!("the helper could not make its namespaces ({trial})"),
            "check that user namespaces work for your user: `unshare -Ur true` in a terminal \
             should print nothing"
                .to_owned(),
        );
    }
    let restriction = "AppArmor lets only programs with a profile that grants `userns` make \
                       user namespaces here (kernel.apparmor_restrict_unprivileged_userns = 1)";
    let ours = state.helper == Path::new(PROFILE_ATTACHED_TO);
    let profile = Path::new(PROFILE_DIR).join(PROFILE_NAME);
    if state.appimage || is_appimage(&state.helper) {
        let fixed = Path::new(FIXED_HELPER);
        return (
            format!("{restriction}, and an AppImage cannot install a profile for its helper"),
            format!(
                "install Paddock's .deb or .rpm package instead (its profile covers \
                 {PROFILE_ATTACHED_TO}); or keep a copy of the helper in a fixed place with a \
                 profile of its own (one new profile for that one program; the restriction \
                 stays on for every other): sudo install -D -m 755 {} {} && {}; then start \
                 Paddock with PADDOCK_SANDBOX_HELPER={}",
                state.helper.display(),
                fixed.display(),
                profile_command(fixed),
                fixed.display()
            ),
        );
    }
    if !ours {
        return (
            format!(
                "{restriction}, and this Paddock's helper ({}) is not the installed one the \
                 package's profile covers",
                state.helper.display()
            ),
            format!(
                "install Paddock's .deb or .rpm package, whose profile covers \
                 {PROFILE_ATTACHED_TO}; or, for this copy, write a profile for its helper: \
                 {}",
                profile_command(&state.helper)
            ),
        );
    }
    if !state.profile_installed {
        return (
            format!(
                "{restriction}, and Paddock's profile ({}) is missing",
                profile.display()
            ),
            "reinstall the package (sudo apt install --reinstall paddock, or sudo dnf \
             reinstall paddock); it installs the profile where AppArmor 4 is present"
                .to_owned(),
        );
    }
    if state.profile_loaded != Some(true) {
        return (
            format!(
                "{restriction}, and Paddock's profile ({}) is installed but not loaded",
                profile.display()
            ),
            format!("load it: sudo apparmor_parser -r {}", profile.display()),
        );
    }
    (
        format!("{restriction}; Paddock's profile is loaded, yet the helper failed ({trial})"),
        "check `sudo aa-status` for the paddock-sandbox-helper profile, and the kernel log \
         (`sudo dmesg | grep apparmor`) for what it denied"
            .to_owned(),
    )
}

/// A helper inside a mounted AppImage (its path changes at every start).
fn is_appimage(helper: &Path) -> bool {
    helper
        .to_str()
        .is_some_and(|p| p.starts_with("/tmp/.mount_"))
}

/// Why bubblewrap failed where AppArmor restricts user namespaces, and what to do (the
/// helper's own namespaces stand in for it when its profile is loaded).
pub fn why_no_bwrap(state: &HostState) -> Option<String> {
    if state.restricted != Some(true) || !state.apparmor_enabled {
        return None;
    }
    let setuid = if state.bwrap_setuid {
        " (it is setuid here, which AppArmor's restriction does not lift)"
    } else {
        ""
    };
    Some(format!(
        "AppArmor restricts user namespaces and bubblewrap has no profile that grants them{setuid}: \
         Paddock's helper builds the wall itself under its own profile; to use bubblewrap as \
         well, install the distribution's profile for it (apt install apparmor-profiles, \
         which ships bwrap-userns-restrict)"
    ))
}

/// The profile for the helper at `helper`: it may make user namespaces (`userns`) and is
/// otherwise left as an unconfined program is; nothing else is granted. (Ubuntu's own
/// profiles for programs that need user namespaces take this form.)
pub fn profile_text(helper: &Path) -> String {
    format!(
        "abi <abi/4.0>,\ninclude <tunables/global>\n\nprofile {PROFILE_NAME} {} flags=(unconfined) {{\n  userns,\n\n  include if exists <local/{PROFILE_NAME}>\n}}\n",
        helper.display()
    )
}

/// The one command that writes and loads a profile for `helper` (what it changes: one new
/// profile for that program, nothing else; the restriction stays on for every other one).
pub fn profile_command(helper: &Path) -> String {
    let profile = Path::new(PROFILE_DIR).join(PROFILE_NAME);
    let text = profile_text(helper).replace('\n', "\\n");
    format!(
        "sudo sh -c 'printf \"{text}\" > {} && apparmor_parser -r {}'",
        profile.display(),
        profile.display()
    )
}

#[cfg(test)]
mod tests;
