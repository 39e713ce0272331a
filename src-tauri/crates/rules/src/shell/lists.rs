//! The named lists the matcher judges by: standard bin folders, variables that change what
//! runs, builtins that run text, shell options, shells and interpreters. Each is a policy: add to it when a
//! new way to hide what runs turns up.

/// Folders whose programs a pattern's bare command name stands for (`git` = `/usr/bin/git`).
pub const STD_BIN_DIRS: [&str; 5] = ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"];

/// Variables that change which program runs or what it loads, as exact names (besides
/// [`SHELL_VARS`], the ones bash itself reads, and bash's own `BASH*` names).
pub const DANGEROUS_ENV: &[&str] = &[
    // The C library and the dynamic loader.
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    "LOCPATH",
    "NLSPATH",
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
/// functions, cargo's runners and linkers, npm's script shell), in any case.
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

// Effects several variables below share.
const FINDS_COMMANDS: &str = "which changes where a later command name is found";
const STARTUP_FILE: &str = "which names a file a shell runs when it starts";
const SHELL_STARTS: &str =
    "which turns on shell options (aliases, POSIX mode) in shells started later";
const PROMPTS: &str = "which bash expands, or runs as a command, when it prompts or traces";
const HISTORY: &str = "which changes the file the shell writes its history to";
const MAIL: &str = "whose text bash expands (it can run commands) when it checks mail";
const LOCALE: &str = "which changes how bash reads the characters of a command";

/// Variables bash itself reads, each with what assigning it does (said in the `why`). An
/// assignment to one of them asks however it is made: a statement, a prefix, an array, a
/// builtin (`export`, `declare`, `read`, `printf -v`…), a loop, a `{fd}>` redirection.
/// Every name starting with `BASH` is bash's own too ([`BASH_OWN`]).
pub const SHELL_VARS: &[(&str, &str)] = &[
    ("PATH", FINDS_COMMANDS),
    ("EXECIGNORE", FINDS_COMMANDS),
    ("BASH_CMDS", "which changes what a later command name runs"),
    (
        "BASH_ALIASES",
        "which defines aliases, so a later command name may run something else",
    ),
    ("BASH_ENV", STARTUP_FILE),
    ("ENV", STARTUP_FILE),
    ("BASHOPTS", SHELL_STARTS),
    ("SHELLOPTS", SHELL_STARTS),
    (
        "POSIXLY_CORRECT",
        "which puts bash in POSIX mode, where aliases expand",
    ),
    (
        "BASH_COMPAT",
        "which changes how bash reads and runs commands",
    ),
    ("IFS", "which changes how later words are split"),
    ("CDPATH", "which changes where `cd` goes"),
    ("OLDPWD", "which changes where `cd -` goes"),
    ("DIRSTACK", "which changes where `~1` and `cd ~1` lead"),
    ("HOME", "which changes what `~` means"),
    ("GLOBIGNORE", "which changes what a glob matches"),
    ("PS0", PROMPTS),
    ("PS1", PROMPTS),
    ("PS2", PROMPTS),
    ("PS3", PROMPTS),
    ("PS4", PROMPTS),
    ("PROMPT_COMMAND", PROMPTS),
    (
        "BASH_XTRACEFD",
        "which sends the shell's trace to another file",
    ),
    ("FUNCNEST", "which changes how deep functions may call"),
    (
        "BASH_LOADABLES_PATH",
        "which changes where `enable -f` loads code from",
    ),
    ("HISTFILE", HISTORY),
    ("HISTFILESIZE", HISTORY),
    (
        "INPUTRC",
        "which names a file readline reads when it starts",
    ),
    ("MAIL", MAIL),
    ("MAILPATH", MAIL),
    ("LC_ALL", LOCALE),
    ("LC_CTYPE", LOCALE),
    ("LANG", LOCALE),
    ("SHELL", "which names the shell other programs start"),
    ("ZDOTDIR", "which changes where zsh reads its startup files"),
];

/// The prefix of bash's own variables (`BASH`, `BASHOPTS`, `BASH_CMDS`, `BASH_ARGV0`…); case
/// matters, as it does to bash.
pub const BASH_OWN: &str = "BASH";
const BASH_OWN_WHY: &str = "one of bash's own variables, which changes how the shell behaves";

/// Locale variables, which ask only for a locale other than these: bash reads a command's
/// bytes by the locale's character set, and in a multibyte set other than UTF-8 (GBK, Big5)
/// a byte the rules read as a quote or backslash can be part of a character.
const LOCALE_VARS: [&str; 3] = ["LC_ALL", "LC_CTYPE", "LANG"];
const PLAIN_LOCALES: [&str; 2] = ["C", "POSIX"];

/// Builtins that run text or a file as shell code, or change what a name runs.
pub(super) const RUNS_TEXT: [&str; 8] = [
    "eval", "source", ".", "exec", "trap", "alias", "enable", "fc",
];
/// Builtins that change what a later command name runs without running text themselves.
pub(super) const RENAMES: [&str; 1] = ["unalias"];
/// Builtins that do so only with one of these options.
pub(super) const RUNS_TEXT_WITH: [(&str, &[&str]); 6] = [
    ("bind", &["-x"]),
    ("complete", &["-C", "-F", "-W"]),
    ("compgen", &["-C", "-F", "-W"]),
    ("hash", &["-p"]),
    ("mapfile", &["-C"]),
    ("readarray", &["-C"]),
];
/// `set` letters, as the long `set -o` names they stand for.
pub(super) const SET_LETTERS: [(char, &str); 19] = [
    ('a', "allexport"),
    ('b', "notify"),
    ('e', "errexit"),
    ('f', "noglob"),
    ('h', "hashall"),
    ('k', "keyword"),
    ('m', "monitor"),
    ('n', "noexec"),
    ('p', "privileged"),
    ('t', "onecmd"),
    ('u', "nounset"),
    ('v', "verbose"),
    ('x', "xtrace"),
    ('B', "braceexpand"),
    ('C', "noclobber"),
    ('E', "errtrace"),
    ('H', "histexpand"),
    ('P', "physical"),
    ('T', "functrace"),
];

/// `set -o` options that change nothing about what a later command is or runs (they stop
/// on errors, trace, or glob less); any other option asks. `errtrace` only matters to an
/// ERR trap, and `trap` asks.
pub(super) const SAFE_SET_OPTIONS: [&str; 16] = [
    "allexport",
    "braceexpand",
    "errexit",
    "errtrace",
    "hashall",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "notify",
    "nounset",
    "onecmd",
    "pipefail",
    "privileged",
    "verbose",
    "xtrace",
];

/// `shopt` options that change nothing the rules rely on: globs are already read as "any
/// arguments" matching a superset of what bash expands (dot files, `**`, none at all), and
/// extglob syntax does not parse here, so it asks. Any other option asks.
pub(super) const SAFE_SHOPT: [&str; 17] = [
    "checkhash",
    "checkjobs",
    "checkwinsize",
    "cmdhist",
    "dotglob",
    "execfail",
    "extglob",
    "failglob",
    "globasciiranges",
    "globskipdots",
    "globstar",
    "histappend",
    "huponexit",
    "inherit_errexit",
    "lastpipe",
    "nocasematch",
    "nullglob",
];

/// What turning an option on or off does, for the `why`; others get [`UNKNOWN_OPTION`].
pub(super) const OPTION_EFFECTS: [(&str, &str); 14] = [
    (
        "expand_aliases",
        "turns alias expansion on or off, so a later command name may run something else",
    ),
    (
        "posix",
        "turns POSIX mode on or off (in it, aliases expand and startup files differ)",
    ),
    (
        "extdebug",
        "runs the debugger's start-up file and lets a DEBUG trap skip or change commands",
    ),
    (
        "keyword",
        "makes a `NAME=value` word anywhere on a later command line set its environment",
    ),
    (
        "functrace",
        "makes DEBUG and RETURN traps run inside functions",
    ),
    (
        "histexpand",
        "makes a later `!` expand to earlier command text",
    ),
    ("history", "keeps the command history that `!` expands"),
    ("physical", "changes where `cd ..` goes"),
    (
        "interactive_comments",
        "changes whether `#` starts a comment",
    ),
    (
        "interactive-comments",
        "changes whether `#` starts a comment",
    ),
    (
        "cdable_vars",
        "lets `cd NAME` go to the folder a variable holds",
    ),
    ("sourcepath", "changes where `source` finds its file"),
    ("nocaseglob", "changes what a glob matches"),
    ("extquote", "changes how quotes inside `${…}` are read"),
];
pub(super) const UNKNOWN_OPTION: &str =
    "is an option this matcher does not know, which may change how bash reads later commands";

/// Shell flags and long options that make a shell run files before its command.
pub(super) const STARTUP_FLAGS: [(&str, &str); 7] = [
    (
        "-i",
        "starts an interactive shell, which runs its startup files (~/.bashrc, $ENV)",
    ),
    (
        "-l",
        "starts a login shell, which runs its startup files (/etc/profile, ~/.profile)",
    ),
    (
        "--login",
        "starts a login shell, which runs its startup files (/etc/profile, ~/.profile)",
    ),
    ("--rcfile", "names a file the shell runs when it starts"),
    ("--init-file", "names a file the shell runs when it starts"),
    ("--posix", "puts bash in POSIX mode, where aliases expand"),
    ("--debugger", "runs the debugger's start-up file"),
];
/// Long options of bash that change nothing about what its command runs.
pub(super) const SAFE_SHELL_LONG: [&str; 8] = [
    "--norc",
    "--noprofile",
    "--noediting",
    "--restricted",
    "--verbose",
    "--version",
    "--help",
    "--dump-strings",
];

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

/// Whether assigning this variable (to a value not known here) changes which program runs,
/// what it loads, or how bash reads what follows.
pub fn is_dangerous_env(name: &str) -> bool {
    if BENIGN_ENV.contains(&name) {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    DANGEROUS_ENV.contains(&name)
        || name.starts_with(BASH_OWN)
        || SHELL_VARS.iter().any(|(n, _)| *n == name)
        || DANGEROUS_ENV_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// [`is_dangerous_env`] for an assignment whose value may be known (`None`: only known when it
/// runs): a locale variable set to a plain locale (`C`, `POSIX`, a UTF-8 one) is harmless.
pub(super) fn is_dangerous_assignment(name: &str, value: Option<&str>) -> bool {
    if LOCALE_VARS.contains(&name) {
        return !value.is_some_and(is_plain_locale);
    }
    is_dangerous_env(name)
}

fn is_plain_locale(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let charset = lower.split('@').next().unwrap_or_default();
    value.is_empty()
        || PLAIN_LOCALES.contains(&value)
        || ((charset.ends_with(".utf-8") || charset.ends_with(".utf8"))
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-@".contains(&b)))
}

/// What assigning a variable bash reads does, for the `why`; `None` for other variables.
pub(super) fn shell_var_effect(name: &str) -> Option<&'static str> {
    SHELL_VARS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
        .or_else(|| name.starts_with(BASH_OWN).then_some(BASH_OWN_WHY))
}

/// What turning a `set` or `shopt` option on or off does, for the `why`.
pub(super) fn option_effect(name: &str) -> &'static str {
    OPTION_EFFECTS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(UNKNOWN_OPTION, |(_, e)| e)
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
