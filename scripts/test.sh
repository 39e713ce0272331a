#!/usr/bin/env bash
# Sets up what is missing and runs every Paddock test. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)

step() { printf '\n==> %s\n' "$*"; }

step "toolchain"
command -v cargo >/dev/null || { echo "cargo not found: install Rust from https://rustup.rs" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true

step "system packages"
# ripgrep: only the grep/glob benchmark compares against `rg`; tests do not need it.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! dpkg -s ripgrep >/dev/null 2>&1; then
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends ripgrep >/dev/null; } \
    || echo "ripgrep not installed: the search benchmark will time the tools alone" >&2
fi

step "format"
cargo fmt --all -- --check

step "lint"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "rust tests"
cargo test --workspace --locked

step "benchmarks compile"
cargo bench --workspace --locked --no-run >/dev/null

echo
echo "all tests passed ($here)"
