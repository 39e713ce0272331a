//! Links in answers open in the system browser, through the opener plugin's Rust side (the
//! webview has no opener permission): only web and mail addresses, never a file or a program.

use paddock_protocol::AppError;
use tauri::{AppHandle, Runtime};
use tauri_plugin_opener::OpenerExt;

use crate::error::{internal, invalid};

/// Longest address opened.
const MAX_URL_CHARS: usize = 4096;

/// Checks an address from an answer: http(s) or mailto, parsed, no control characters.
pub fn checked(url: &str) -> Result<url::Url, AppError> {
    if url.len() > MAX_URL_CHARS || url.chars().any(char::is_control) {
        return Err(invalid("not a web address Paddock opens"));
    }
    let parsed = url::Url::parse(url).map_err(|e| invalid(format!("not a web address: {e}")))?;
    match parsed.scheme() {
        "http" | "https" if parsed.host().is_some() => Ok(parsed),
        "mailto" => Ok(parsed),
        other => Err(invalid(format!(
            "Paddock opens only http, https and mailto links, not {other}:"
        ))),
    }
}

/// Opens `url` (checked) in the system browser.
pub fn open<R: Runtime>(app: &AppHandle<R>, url: &str) -> Result<(), AppError> {
    let url = checked(url)?;
    tracing::info!(url = %url, "opening a link in the browser");
    app.opener()
        .open_url(url.as_str(), None::<&str>)
        .map_err(|e| internal(format!("could not open the browser: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_and_mail_addresses() {
        assert!(checked("https://example.com/a?b=c").is_ok());
        assert!(checked("mailto:a@example.com").is_ok());
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "smb://host/share",
            "https://",
            "https://ex\nample.com",
            "/relative",
        ] {
            assert!(checked(bad).is_err(), "{bad}");
        }
    }
}
