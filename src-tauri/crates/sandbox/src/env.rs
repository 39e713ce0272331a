//! bash's environment: only allow-listed variables, never one whose name looks secret.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// Variables passed through to bash (besides `LC_*`), when present and not secret-looking.
pub const ENV_ALLOW_LIST: &[&str] = &[
    "HOME",
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LOGNAME",
    "USER",
    "SHELL",
    "TERM",
    "TZ",
    "COLORTERM",
    "NO_COLOR",
    "TMPDIR",
    // Where toolchains live when not in their default place under $HOME.
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "NVM_DIR",
    "PYENV_ROOT",
];

/// Parts of a variable name that mark it as secret (matched case-insensitively).
const SECRET_NAME_PARTS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "SESSION",
    "PRIVATE",
    "CERT",
];

/// PATH used when the host has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Whether a variable name looks like it holds a secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_PARTS.iter().any(|part| upper.contains(part))
}

fn allowed(name: &str) -> bool {
    (ENV_ALLOW_LIST.contains(&name) || name.starts_with("LC_")) && !looks_secret(name)
}

/// The environment bash gets: the allow-listed subset of `host`, with `TMPDIR` and `PWD`
/// set to the given folders. `PATH` loses every entry a command could plant a program in
/// (empty or relative ones, which mean the current folder, and folders inside `writable`),
/// so a rule for `ls` never runs the repository's `./bin/ls`.
pub fn scrubbed_env(
    host: impl IntoIterator<Item = (OsString, OsString)>,
    tmp_dir: &OsStr,
    cwd: &OsStr,
    writable: &[PathBuf],
) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = host
        .into_iter()
        .filter(|(name, _)| name.to_str().is_some_and(allowed))
        .filter(|(name, _)| name != "TMPDIR")
        .map(|(name, value)| {
            let value = if name == "PATH" {
                safe_path(&value, writable)
            } else {
                value
            };
            (name, value)
        })
        .collect();
    if !out.iter().any(|(n, _)| n == "PATH") {
        out.push(("PATH".into(), DEFAULT_PATH.into()));
    }
    out.push(("TMPDIR".into(), tmp_dir.to_os_string()));
    out.push(("PWD".into(), cwd.to_os_string()));
    out
}

/// `path` without empty, relative or writable entries.
fn safe_path(path: &OsStr, writable: &[PathBuf]) -> OsString {
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| {
            let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            !writable
                .iter()
                .any(|w| dir.starts_with(w) || real.starts_with(w))
        })
        .collect();
    std::env::join_paths(kept).unwrap_or_else(|_| DEFAULT_PATH.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(env: &[(OsString, OsString)]) -> Vec<String> {
        env.iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn keeps_the_allow_list_and_drops_the_rest() {
        let host = [
            ("HOME", "/home/u"),
            ("PATH", "/bin"),
            ("LC_TIME", "C"),
            ("FAKE_API_KEY", "sk-test"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("LC_AUTH_TOKEN", "x"),
            ("EDITOR", "vim"),
            ("TMPDIR", "/host/tmp"),
        ]
        .map(|(a, b)| (OsString::from(a), OsString::from(b)));
        let env = scrubbed_env(host, OsStr::new("/t"), OsStr::new("/w"), &[]);
        assert_eq!(
            names(&env),
            ["HOME", "PATH", "LC_TIME", "TMPDIR", "PWD"].map(String::from)
        );
        assert!(env.contains(&("TMPDIR".into(), "/t".into())));
    }

    #[test]
    fn secret_names() {
        for n in [
            "GITHUB_TOKEN",
            "api_key",
            "DB_PASSWORD",
            "SESSION_ID",
            "MY_COOKIE",
        ] {
            assert!(looks_secret(n), "{n}");
        }
        for n in ["HOME", "PATH", "LANG"] {
            assert!(!looks_secret(n), "{n}");
        }
    }

    #[test]
    fn path_loses_entries_a_command_could_plant_in() {
        let host = [(
            OsString::from("PATH"),
            OsString::from("/usr/bin:.:bin::/w/node_modules/.bin:/t/x:/bin"),
        )];
        let env = scrubbed_env(
            host,
            OsStr::new("/t"),
            OsStr::new("/w"),
            &[PathBuf::from("/w"), PathBuf::from("/t")],
        );
        assert!(
            env.contains(&("PATH".into(), "/usr/bin:/bin".into())),
            "{env:?}"
        );
    }

    #[test]
    fn path_falls_back_when_missing() {
        let env = scrubbed_env(Vec::new(), OsStr::new("/t"), OsStr::new("/w"), &[]);
        assert!(env.contains(&("PATH".into(), DEFAULT_PATH.into())));
    }
}
