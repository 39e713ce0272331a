//! The named lists the matcher judges by: standard bin folders, variables that change what
//! runs, builtins that run text, shells and interpreters. Each is a policy: add to it when a
//! new way to hide what runs turns up.

/// Folders whose programs a pattern's bare command name stands for (`git` = `/usr/bin/git`).
pub const STD_BIN_DIRS: [&str; 5] = ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"];

/// Variables that change which program runs or what it loads, as exact names.
pub const DANGEROUS_ENV: &[&str] = &[
    // The shell itself.
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "CDPATH",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "GLOBIGNORE",
    "HOME",
    "ZDOTDIR",
    "SHELL",
    "GCONV_PATH",
    // Where tools read their configuration (and hooks) from.
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    // Interpreters' start-up code and module paths.
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PYTHONBREAKPOINT",
    "PYTHONWARNINGS",
    "PYTHONUSERBASE",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "LUA_INIT",
    "LUA_PATH",
    "LUA_CPATH",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "DOTNET_STARTUP_HOOKS",
    "GEM_HOME",
    "GEM_PATH",
    "R_PROFILE",
    "R_PROFILE_USER",
    // Programs other programs start (pagers, editors, askpass, compilers and wrappers).
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "SUDO_EDITOR",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTC",
    "RUSTDOC",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CC",
    "CXX",
    "LD",
    "AR",
    "MAKEFLAGS",
    "MFLAGS",
    "GOFLAGS",
];

/// Variable prefixes that change what runs (`LD_PRELOAD`, `GIT_SSH_COMMAND`, exported
/// functions, cargo's runners and linkers, npm's script shell).
pub const DANGEROUS_ENV_PREFIXES: [&str; 7] = [
    "LD_",
    "DYLD_",
    "GIT_",
    "BASH_FUNC_",
    "CARGO_TARGET_",
    "CARGO_BUILD_",
    "NPM_CONFIG_",
];

/// Names under those prefixes that only label or trace.
pub(super) const BENIGN_ENV: [&str; 10] = [
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_TERMINAL_PROMPT",
    "GIT_TRACE",
    "GIT_OPTIONAL_LOCKS",
    "CARGO_TARGET_DIR",
];

/// Builtins that run text or a file as shell code, or change what a name runs.
pub(super) const RUNS_TEXT: [&str; 8] = [
    "eval", "source", ".", "exec", "trap", "alias", "enable", "fc",
];
/// Builtins that do so only with one of these options.
pub(super) const RUNS_TEXT_WITH: [(&str, &[&str]); 6] = [
    ("bind", &["-x"]),
    ("complete", &["-C", "-F", "-W"]),
    ("compgen", &["-C", "-F", "-W"]),
    ("hash", &["-p"]),
    ("mapfile", &["-C"]),
    ("readarray", &["-C"]),
];
/// Builtins that assign the variables they name (all their operands).
pub(super) const ASSIGNS: [&str; 10] = [
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "let",
];
/// Builtins that assign the variable named by an option's value (`printf -v NAME`).
pub(super) const ASSIGNS_WITH: [&str; 2] = ["printf", "wait"];

/// Shells whose `-c` string this parser reads as bash reads it.
pub(super) const BASH_LIKE: [&str; 4] = ["sh", "bash", "dash", "ash"];
/// Other shells: their `-c` string has its own syntax, so it is never judged as bash.
pub(super) const OTHER_SHELLS: [&str; 10] = [
    "zsh", "ksh", "mksh", "yash", "fish", "csh", "tcsh", "nu", "xonsh", "elvish",
];
/// Interpreters (besides shells); a family name also covers versions (`python3.12`).
pub(super) const INTERPRETERS: [&str; 24] = [
    "python",
    "pypy",
    "perl",
    "ruby",
    "irb",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "Rscript",
    "R",
    "julia",
    "pwsh",
    "powershell",
    "osascript",
    "expect",
    "gdb",
    "sqlite3",
    "jshell",
];
/// Options with which an interpreter takes its program from the arguments.
pub(super) const INLINE_CODE: [&str; 10] = [
    "-c",
    "-e",
    "-E",
    "-r",
    "-m",
    "-p",
    "--eval",
    "--print",
    "--command",
    "-Command",
];

/// Whether assigning this variable changes which program runs or what it loads.
pub fn is_dangerous_env(name: &str) -> bool {
    if BENIGN_ENV.contains(&name) {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    DANGEROUS_ENV.contains(&name) || DANGEROUS_ENV_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The name a bare pattern word stands for: the word itself, or the file name of a program
/// in a standard bin folder. `None` for any other path (`./git`, `tools/git`).
pub fn command_name(word: &str) -> Option<&str> {
    match word.rsplit_once('/') {
        None => Some(word),
        Some((dir, name)) if STD_BIN_DIRS.contains(&dir) && !name.is_empty() => Some(name),
        Some(_) => None,
    }
}

pub(super) fn is_interpreter(name: &str) -> bool {
    INTERPRETERS.iter().any(|family| {
        name.strip_prefix(family)
            .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    })
}
