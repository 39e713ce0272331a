//! A hook's digest: what a trust record pins, so that a changed hook asks again. SHA-256,
//! lowercase hex, as the host's trust records digest what they pin
//! (`host::trust::gated::digest_of`), over a canonical encoding of what decides what the hook
//! runs and when: a JSON array of a version tag, the event (Paddock's name), the matcher
//! (`null` for one matching everything: missing, `""` and `"*"` are the same), the rule, the
//! command, the arguments, the time limit and the failure mode (both as they apply,
//! defaults filled in). Key order and white space in the file, and the name the event was
//! written by, do not change it; the status message (display only) does not either.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Tag of this encoding: a new encoding takes a new tag, and every pinned hook asks again.
const ENCODING: &str = "paddock-hook/1";

/// What the digest covers, as it applies.
pub(crate) struct Pinned<'a> {
    pub event: &'a str,
    pub matcher: Option<&'a str>,
    pub rule: Option<&'a str>,
    pub command: &'a str,
    pub args: Option<&'a [String]>,
    pub timeout_secs: u32,
    pub on_error: &'a str,
}

pub(crate) fn digest(p: &Pinned<'_>) -> String {
    let matcher = p.matcher.filter(|m| !m.is_empty() && *m != "*");
    let encoded: Value = json!([
        ENCODING,
        p.event,
        matcher,
        p.rule,
        p.command,
        p.args,
        p.timeout_secs,
        p.on_error
    ]);
    Sha256::digest(encoded.to_string().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
