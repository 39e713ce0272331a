//! Redaction of secrets from tool output: private keys, credentials in well-known formats,
//! `name=value` pairs whose name looks secret, and the exact values of keys Paddock holds.

use std::sync::OnceLock;

use regex::Regex;

/// What a redacted secret becomes.
pub const REDACTED: &str = "[REDACTED]";
/// Exact-value secrets shorter than this are not redacted (too likely to hit normal text).
const MIN_SECRET_LEN: usize = 6;

/// A pattern and what replaces its match (`$1` etc. keep the non-secret part).
const PATTERNS: &[(&str, &str)] = &[
    // PEM private keys, also when the output was cut before the END line.
    (
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        "[REDACTED PRIVATE KEY]",
    ),
    // The tail of a key whose BEGIN line was cut away.
    (
        r"(?s)\A[^\n]*(?:\n[A-Za-z0-9+/=]{16,})*\n?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        "[REDACTED PRIVATE KEY]",
    ),
    // Authorization headers: everything after the colon.
    (
        r#"(?i)\b((?:proxy-)?authorization["']?\s*[:=]\s*)[^\r\n]+"#,
        "${1}[REDACTED]",
    ),
    (r"(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]+=*", "${1}[REDACTED]"),
    // OpenAI / Anthropic style keys.
    (r"\bsk-[A-Za-z0-9_\-]{16,}", "[REDACTED]"),
    // GitHub tokens.
    (r"\bgh[pousr]_[A-Za-z0-9]{20,}", "[REDACTED]"),
    (r"\bgithub_pat_[A-Za-z0-9_]{20,}", "[REDACTED]"),
    // AWS access key ids.
    (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", "[REDACTED]"),
    // Slack tokens.
    (r"\bxox[a-z]-[A-Za-z0-9\-]{10,}", "[REDACTED]"),
    // name=value where the name looks secret (env dumps, URLs, CLI flags).
    (
        r#"(?i)\b([A-Za-z0-9_.\-]*(?:key|token|secret|passw(?:or)?d|passphrase|credential|auth|cookie|session)[A-Za-z0-9_.\-]*)(\s*=\s*)("[^"\r\n]*"|'[^'\r\n]*'|[^\s"',;&]+)"#,
        "${1}${2}[REDACTED]",
    ),
    // name: value where the name ends in a secret word (YAML, JSON, headers).
    (
        r#"(?i)\b([A-Za-z0-9_.\-]*(?:key|token|secret|password|passwd|passphrase|credentials?|cookie))(["']?\s*:\s*)("[^"\r\n]*"|'[^'\r\n]*'|[^\s"',;]+)"#,
        "${1}${2}[REDACTED]",
    ),
];

fn patterns() -> &'static [(Regex, &'static str)] {
    static COMPILED: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        PATTERNS
            .iter()
            .filter_map(|(p, r)| Regex::new(p).ok().map(|re| (re, *r)))
            .collect()
    })
}

/// Redacts secrets from text. Built once per call with the exact values to hide.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    exact: Vec<String>,
}

impl Redactor {
    /// `secrets`: exact values to hide wherever they appear (API keys Paddock holds).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut exact: Vec<String> = secrets
            .into_iter()
            .filter(|s| s.chars().count() >= MIN_SECRET_LEN)
            .collect();
        // Longest first, so a secret containing another is hidden whole.
        exact.sort_by_key(|s| std::cmp::Reverse(s.len()));
        exact.dedup();
        Self { exact }
    }

    /// Hides only the exact values (file tools: the text stays editable otherwise).
    pub fn redact_exact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.exact {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    /// Hides the exact values and everything that looks like a credential.
    pub fn redact(&self, text: &str) -> String {
        let mut out = self.redact_exact(text);
        for (re, replacement) in patterns() {
            if re.is_match(&out) {
                out = re.replace_all(&out, *replacement).into_owned();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        Redactor::default().redact(text)
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(patterns().len(), PATTERNS.len());
    }

    #[test]
    fn private_keys() {
        let key = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter";
        assert_eq!(r(key), "before\n[REDACTED PRIVATE KEY]\nafter");
        let cut = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
        assert_eq!(r(cut), "x\n[REDACTED PRIVATE KEY]");
        let tail = "QUJDREVGR0hJSktMTU5PUA==\n-----END PRIVATE KEY-----\nok";
        assert_eq!(r(tail), "[REDACTED PRIVATE KEY]\nok");
        let public = "-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----";
        assert_eq!(r(public), public);
    }

    #[test]
    fn headers_and_tokens() {
        assert_eq!(
            r("Authorization: Bearer abc.def"),
            "Authorization: [REDACTED]"
        );
        assert_eq!(
            r(r#"{"authorization": "Basic dXNlcjpwYXNz"}"#),
            r#"{"authorization": [REDACTED]"#
        );
        assert_eq!(
            r("curl -H 'x' bearer eyJhbGciOi.x"),
            "curl -H 'x' bearer [REDACTED]"
        );
        assert_eq!(
            r("key sk-ant-api03-abcdefghijklmnop1234 end"),
            "key [REDACTED] end"
        );
        assert_eq!(r("ghp_abcdefghijklmnopqrstuvwxyz0123"), "[REDACTED]");
        assert_eq!(r("github_pat_11ABCDEFG0123456789_abcdef"), "[REDACTED]");
        assert_eq!(r("id AKIAIOSFODNN7EXAMPLE."), "id [REDACTED].");
        assert_eq!(r("xoxb-1234567890-abcdef"), "[REDACTED]");
        assert_eq!(
            r("task-abcdefghijklmnopqrstu"),
            "task-abcdefghijklmnopqrstu"
        );
    }

    #[test]
    fn name_value_pairs() {
        assert_eq!(r("DB_PASSWORD=hunter2 x"), "DB_PASSWORD=[REDACTED] x");
        assert_eq!(r("export API_KEY=\"abc def\""), "export API_KEY=[REDACTED]");
        assert_eq!(
            r("https://h/x?access_token=abc123&page=2"),
            "https://h/x?access_token=[REDACTED]&page=2"
        );
        assert_eq!(r("password: swordfish"), "password: [REDACTED]");
        assert_eq!(
            r(r#""client_secret": "s3cr3t""#),
            r#""client_secret": [REDACTED]"#
        );
        assert_eq!(r("PATH=/usr/bin LANG=C"), "PATH=/usr/bin LANG=C");
        assert_eq!(r("PWD=/home/u OLDPWD=/"), "PWD=/home/u OLDPWD=/");
        assert_eq!(r("count: 3"), "count: 3");
    }

    #[test]
    fn exact_values() {
        let red = Redactor::new(["my-very-own-key".to_owned(), "abc".to_owned()]);
        assert_eq!(red.redact("x my-very-own-key y"), "x [REDACTED] y");
        assert_eq!(red.redact_exact("abc"), "abc");
        assert_eq!(red.redact_exact("DB_PASSWORD=1"), "DB_PASSWORD=1");
    }
}
