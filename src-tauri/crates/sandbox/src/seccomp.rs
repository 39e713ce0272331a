//! The seccomp filter every confined command runs under: no keystrokes pushed into a
//! terminal (`TIOCSTI`, `TIOCLINUX`), no kernel keyring (`keyctl`, `add_key`,
//! `request_key`: the user's session keyring holds secrets, and container runtimes refuse
//! these too), and, where no network namespace isolates the command, no socket but a Unix
//! one.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// What the filter denies besides the terminal ioctls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filter {
    /// Deny `socket()` for every family but `AF_UNIX` (the network is not isolated otherwise).
    pub deny_network: bool,
}

/// The filter as a BPF program for this machine's architecture.
pub fn program(filter: Filter) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    // The kernel reads the ioctl command as 32 bits: compare the low word, so setting high
    // bits does not slip past.
    let ioctl = |cmd: u64| rule(1, SeccompCmpOp::Eq, cmd);
    rules.insert(
        libc::SYS_ioctl,
        vec![
            ioctl(request(libc::TIOCSTI))?,
            ioctl(request(libc::TIOCLINUX))?,
        ],
    );
    // No arguments to compare: refused whatever they ask.
    for call in [libc::SYS_keyctl, libc::SYS_add_key, libc::SYS_request_key] {
        rules.insert(call, Vec::new());
    }
    if filter.deny_network {
        rules.insert(
            libc::SYS_socket,
            vec![rule(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?],
        );
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

/// An ioctl request number as the filter compares it (its type differs between libc targets).
#[allow(clippy::unnecessary_cast, clippy::cast_lossless)]
fn request(value: libc::Ioctl) -> u64 {
    value as u64
}

fn rule(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, String> {
    let condition = SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
        .map_err(|e| e.to_string())?;
    SeccompRule::new(vec![condition]).map_err(|e| e.to_string())
}

/// Installs the filter on the calling (single-threaded) process, with no_new_privs.
pub fn apply(filter: Filter) -> Result<(), String> {
    let program = program(filter)?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_for_this_machine() {
        let plain = program(Filter {
            deny_network: false,
        })
        .unwrap();
        let strict = program(Filter { deny_network: true }).unwrap();
        assert!(!plain.is_empty() && strict.len() > plain.len());
    }
}
