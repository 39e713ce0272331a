#!/usr/bin/env bash
# Sets up what is missing and runs every Paddock test. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)

step() { printf '\n==> %s\n' "$*"; }

step "setup"
PADDOCK_SETUP_TESTS=1 ./scripts/setup.sh

step "format"
cargo fmt --all -- --check

step "lint (clippy also type-checks tests and benchmarks)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "layout (no module circles, no source file over 600 lines)"
python3 scripts/check-layout-test.py
python3 scripts/check-layout.py

step "the local eval's own scoring"
python3 tests/local-eval/eval_test.py

step "ui: lint, type check, unit tests, build"
(cd ui && npm run lint && npm run check && npm test && npm run build)

step "rust tests (in a private D-Bus session with an unlocked Secret Service)"
# bash's wall is built by the sandbox helper found beside the test binaries (target/debug):
# cargo test does not build another package's binaries, so build it first.
cargo build -p paddock-sandbox --bin paddock-sandbox-helper --locked
# The keychain tests use the real Secret Service: a throwaway HOME keeps the test keyring
# away from the user's. CARGO_HOME/RUSTUP_HOME are fixed before HOME changes.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
test_home=$(mktemp -d)
trap 'rm -rf "$test_home"' EXIT
# AppArmor 4's parser checks the helper's profile (Debian 12's own is AppArmor 3): fetched
# once, checked against Debian's signed release file.
apparmor_parser=$(python3 scripts/apparmor-parser.py)
# PADDOCK_REQUIRE_SANDBOX: a host where bash's wall cannot be built fails the wall's tests
# instead of skipping them; PADDOCK_REQUIRE_ACP likewise for the editor (ACP) tests, and
# PADDOCK_REQUIRE_APPARMOR_PARSER for the profile's.
HOME="$test_home" PADDOCK_REQUIRE_KEYCHAIN=1 PADDOCK_REQUIRE_MCP=1 PADDOCK_REQUIRE_SANDBOX=1 \
  PADDOCK_REQUIRE_ACP=1 PADDOCK_REQUIRE_APPARMOR_PARSER=1 PADDOCK_APPARMOR_PARSER="$apparmor_parser" \
  dbus-run-session -- sh -c '
    printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec cargo test --workspace --locked --no-fail-fast
  '

step "desktop end-to-end (the real app under Xvfb, driven over WebDriver)"
# Outside the D-Bus block above: it sets up its own HOME, Xvfb, D-Bus session and keyring.
PADDOCK_SKIP_SETUP=1 ./scripts/desktop-e2e.sh

step "the installed package (.deb installed with apt, the AppImage's updater, uninstall)"
# Needs root (apt) and FUSE; builds debug-profile bundles with a throwaway key pair.
PADDOCK_SKIP_SETUP=1 ./scripts/installed-e2e.sh

echo
echo "all tests passed ($here)"
