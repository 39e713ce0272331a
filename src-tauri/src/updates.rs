//! The About and updates. An AppImage replaces itself through `tauri-plugin-updater`: the
//! manifest's newer version is downloaded, its minisign signature checked against the public
//! key built into the app (`plugins.updater.pubkey`, set by `scripts/package.sh`) and bound to
//! the announced version, and only then is the file at `$APPIMAGE` swapped; never an older
//! version, never while a run is live, and only when the user clicks Install after reading
//! what changed. A `.deb` or `.rpm` install never replaces itself: it says that a newer
//! version exists and that the package manager installs it. A build from source does neither.

use std::cmp::Ordering;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_protocol::{AboutInfo, AppError, AppErrorCode, InstallKind, UpdateCheck, UpdateOffer};
use tauri::utils::config::BundleType;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_updater::{Update, UpdaterExt};
use url::{Host, Url};

use crate::error::{AppResult, app_error, invalid};

/// Overrides the manifest URL of the app's config (tests, a staging server): https, or http
/// to this machine only. Whatever it names, the signature is checked against the built-in key.
pub const UPDATE_URL_VAR: &str = "PADDOCK_UPDATE_URL";

/// The updater plugin, configured by `plugins.updater` in tauri.conf.json. The page gets none
/// of its commands (no capability grants them): Paddock's own commands below drive it.
pub fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R, tauri_plugin_updater::Config> {
    tauri_plugin_updater::Builder::new().build()
}

/// The update found by the last check, kept for Install.
#[derive(Default)]
pub struct Pending(Mutex<Option<Update>>);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How this copy was installed: the bundler writes the package type into the binary it
/// packs; an AppImage also has `$APPIMAGE` (the file to replace) from its runtime.
pub fn install_kind(bundle: Option<BundleType>, appimage: bool) -> InstallKind {
    match bundle {
        Some(BundleType::Deb) => InstallKind::Deb,
        Some(BundleType::Rpm) => InstallKind::Rpm,
        Some(BundleType::AppImage) if appimage => InstallKind::AppImage,
        _ => InstallKind::Source,
    }
}

/// Why a copy does not look for updates, when it does not.
pub fn updates_off(install: InstallKind, pubkey: &str) -> Option<String> {
    match install {
        InstallKind::Source => Some(
            "Built from source: update with git pull, then scripts/run.sh (or scripts/package.sh)."
                .into(),
        ),
        _ if pubkey.trim().is_empty() => Some(
            "This build has no update key built in (it was packaged without \
             PADDOCK_UPDATER_PUBKEY), so it does not look for updates."
                .into(),
        ),
        _ => None,
    }
}

/// The public key built into the app, from its configuration.
fn pubkey<R: Runtime>(app: &AppHandle<R>) -> String {
    app.config()
        .plugins
        .0
        .get("updater")
        .and_then(|u| u.get("pubkey"))
        .and_then(|k| k.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// This copy: version, how it was installed, where it is, whether it looks for updates.
pub fn about<R: Runtime>(app: &AppHandle<R>) -> AboutInfo {
    let appimage = app.env().appimage;
    let install = install_kind(tauri::utils::platform::bundle_type(), appimage.is_some());
    let location = match (&appimage, install) {
        (Some(file), InstallKind::AppImage) => file.to_string_lossy().into_owned(),
        _ => tauri::utils::platform::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    };
    AboutInfo {
        version: app.package_info().version.to_string(),
        install,
        location,
        updates_off: updates_off(install, &pubkey(app)),
    }
}

/// `PADDOCK_UPDATE_URL`, when set: https, or http to a loopback address.
pub fn override_url(raw: Option<&str>) -> AppResult<Option<Url>> {
    let Some(raw) = raw.filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    let url = Url::parse(raw).map_err(|e| invalid(format!("{UPDATE_URL_VAR}={raw}: {e}")))?;
    let loopback = match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        Some(Host::Domain(d)) => d == "localhost",
        None => false,
    };
    match url.scheme() {
        "https" => Ok(Some(url)),
        "http" if loopback => Ok(Some(url)),
        _ => Err(invalid(format!(
            "{UPDATE_URL_VAR}={raw}: an update manifest is fetched over https (or http from \
             this machine only)"
        ))),
    }
}

/// Who installs a newer version of a package install, in a sentence.
pub fn package_manager_line(install: InstallKind, version: &str) -> String {
    match install {
        InstallKind::Deb => format!(
            "Paddock was installed from a .deb package, so your package manager installs \
             {version}: sudo apt install ./Paddock_{version}_amd64.deb (or apt upgrade)."
        ),
        InstallKind::Rpm => format!(
            "Paddock was installed from an .rpm package, so your package manager installs \
             {version}: sudo dnf install ./Paddock-{version}-1.x86_64.rpm (or dnf upgrade)."
        ),
        _ => String::new(),
    }
}

/// What a live run blocks.
pub const RUN_LIVE: &str =
    "A run is live: let it finish or stop it, then install the update (it restarts Paddock).";

/// Asks the update server. The manifest's version decides: newer is offered (installable by
/// an AppImage), older is refused and said so, the same is up to date.
pub async fn check<R: Runtime>(
    app: &AppHandle<R>,
    pending: &Pending,
    run_live: bool,
) -> AppResult<UpdateCheck> {
    let about = about(app);
    if let Some(off) = about.updates_off {
        return Err(invalid(off));
    }
    let self_install = about.install == InstallKind::AppImage;
    let seen: Arc<Mutex<Option<(String, Ordering)>>> = Arc::default();
    let record = seen.clone();
    let mut builder = app
        .updater_builder()
        .version_comparator(move |current, release| {
            let order = release.version.cmp(&current);
            *lock(&record) = Some((release.version.to_string(), order));
            // Only an AppImage goes on to the download's address; never to an older version.
            self_install && order == Ordering::Greater
        });
    let var = std::env::var(UPDATE_URL_VAR).ok();
    if let Some(url) = override_url(var.as_deref())? {
        builder = builder.endpoints(vec![url]).map_err(check_error)?;
    }
    let update = builder
        .build()
        .map_err(check_error)?
        .check()
        .await
        .map_err(check_error)?;
    let current = about.version;
    let offered = lock(&seen).take();
    *lock(&pending.0) = None;
    let found = match (update, offered) {
        (Some(update), _) => {
            let offer = UpdateOffer {
                version: update.version.clone(),
                current,
                notes: update.body.clone().unwrap_or_default(),
                can_install: true,
                how: String::new(),
                blocked: run_live.then(|| RUN_LIVE.to_owned()),
            };
            *lock(&pending.0) = Some(update);
            UpdateCheck::Available(offer)
        }
        (None, Some((version, Ordering::Greater))) => UpdateCheck::Available(UpdateOffer {
            how: package_manager_line(about.install, &version),
            version,
            current,
            notes: String::new(),
            can_install: false,
            blocked: None,
        }),
        (None, Some((offered, Ordering::Less))) => UpdateCheck::Older { offered, current },
        (None, _) => UpdateCheck::UpToDate { current },
    };
    tracing::info!(?found, "update check");
    Ok(found)
}

/// Downloads the checked update, verifies it, and (no run live) replaces the AppImage.
/// Returns what to tell the user.
pub async fn install<R: Runtime>(
    app: &AppHandle<R>,
    pending: &Pending,
    run_live: impl Fn() -> bool,
) -> AppResult<String> {
    let update = lock(&pending.0)
        .clone()
        .ok_or_else(|| invalid("Check for updates first: no update is waiting."))?;
    if run_live() {
        return Err(app_error(AppErrorCode::Busy, RUN_LIVE));
    }
    // `download` checks the signature against the built-in key and the signed version.
    let bytes = update
        .download(|_, _| {}, || {})
        .await
        .map_err(install_error)?;
    if run_live() {
        return Err(app_error(AppErrorCode::Busy, RUN_LIVE));
    }
    update.install(&bytes).map_err(install_error)?;
    *lock(&pending.0) = None;
    tracing::info!(version = %update.version, file = %about(app).location, "update installed");
    Ok(format!(
        "Paddock {} is installed: restart Paddock to use it.",
        update.version
    ))
}

fn check_error(e: tauri_plugin_updater::Error) -> AppError {
    tracing::warn!("update check failed: {e}");
    app_error(
        AppErrorCode::Provider,
        format!("Could not check for updates: {e}"),
    )
}

/// A refused or failed install, in words: nothing is installed in any of these cases.
pub fn install_error(e: tauri_plugin_updater::Error) -> AppError {
    use tauri_plugin_updater::Error as E;
    tracing::warn!("update refused: {e}");
    let message = match &e {
        E::Minisign(minisign_verify::Error::UnexpectedKeyId) => {
            "The update was signed with another key than the one built into Paddock: \
             it was not installed."
                .to_owned()
        }
        E::Minisign(_) | E::Base64(_) | E::SignatureUtf8(_) => {
            "The update's signature does not match the download (damaged or tampered with): \
             it was not installed."
                .to_owned()
        }
        E::SignedVersionMismatch { signed, announced } => format!(
            "The update announces {announced} but is signed as {signed}: it was not installed."
        ),
        E::MissingSignedVersion => {
            "The update's signature names no version: it was not installed.".to_owned()
        }
        E::InvalidUpdaterFormat => "The download is not an AppImage: it was not installed.".into(),
        other => format!("The update could not be installed: {other}"),
    };
    app_error(AppErrorCode::Invalid, message)
}

#[cfg(test)]
#[path = "updates_tests.rs"]
mod tests;
