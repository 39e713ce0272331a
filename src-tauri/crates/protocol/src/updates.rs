//! What the desktop app says about itself (version, how it was installed) and about a newer
//! version: an AppImage installs it itself, a `.deb` or `.rpm` leaves that to the package
//! manager, a build from source to git.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How this copy of Paddock was installed, which decides how it is updated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum InstallKind {
    /// An AppImage: the updater replaces the file with a signed newer one.
    AppImage,
    /// A `.deb` package: apt (or dpkg) installs a newer one.
    Deb,
    /// An `.rpm` package: dnf, zypper or rpm install a newer one.
    Rpm,
    /// Built from the source tree (`scripts/run.sh`, `cargo build`): no updates.
    Source,
}

/// The app's About: its version, how it was installed, whether it can look for updates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AboutInfo {
    /// `CARGO_PKG_VERSION` of the workspace: the same as `paddock --version` and the package.
    pub version: String,
    pub install: InstallKind,
    /// The program (for an AppImage, the AppImage file the updater would replace).
    pub location: String,
    /// Why this copy does not look for updates (built from source, no key built in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub updates_off: Option<String>,
}

/// What a look at the update server found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum UpdateCheck {
    /// The server's version is this one.
    UpToDate { current: String },
    /// A newer version.
    Available(UpdateOffer),
    /// The server offers an older version: never installed.
    Older { offered: String, current: String },
}

/// A newer version and what installing it takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UpdateOffer {
    pub version: String,
    pub current: String,
    /// What changed, from the update manifest (its `notes`); empty when it says nothing.
    pub notes: String,
    /// This copy can install it itself (an AppImage); otherwise `how` says who does.
    pub can_install: bool,
    /// For a package install: the package manager's part, in a sentence.
    pub how: String,
    /// Why it cannot be installed right now (a run is live), when it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub blocked: Option<String>,
}
