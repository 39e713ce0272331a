#!/usr/bin/env bash
# The desktop end-to-end tests: builds the UI and the app, then drives the real app in a real
# window (Xvfb) over WebDriver (tauri-driver + WebKitWebDriver) against the fake model server,
# inside a private D-Bus session with a throwaway, unlocked GNOME keyring.
# Screenshots and driver logs land in tests/artifacts/<test>/. Safe to re-run.
#
#   scripts/desktop-e2e.sh                 all specs
#   scripts/desktop-e2e.sh keychain        only specs whose name contains "keychain"
#   PADDOCK_SKIP_SETUP=1 ...               skip scripts/setup.sh (when the caller ran it)
#   PADDOCK_README_SCREENSHOT=1 ...        also refresh docs/screenshot.png
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
# shellcheck source=scripts/build-ui.sh
. "$(dirname "$0")/build-ui.sh"

[ "${PADDOCK_SKIP_SETUP:-}" = 1 ] || PADDOCK_SETUP_TESTS=1 ./scripts/setup.sh

# Fixed before HOME changes below, or rustup and cargo lose their homes.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export PATH="$CARGO_HOME/bin:$PATH"

if ! command -v tauri-driver >/dev/null; then
  step "installing tauri-driver (about 3 min)"
  timeout 1200 cargo install tauri-driver --locked
fi

step "building the UI"
build_ui

step "building the app and the specs"
timeout 3600 cargo build --locked -p paddock-desktop -p paddock-sandbox
timeout 1800 cargo test --locked -p paddock-desktop-e2e --no-run

step "running the specs under Xvfb with a private D-Bus session and keyring"
rm -rf tests/artifacts
mkdir -p tests/artifacts
test_home=$(mktemp -d)
trap 'rm -rf "$test_home"' EXIT
# One spec at a time: each starts its own tauri-driver and app.
HOME="$test_home" timeout 1800 \
  xvfb-run -a -s "-screen 0 1280x800x24" \
  dbus-run-session -- sh -c '
    printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec cargo test --locked -p paddock-desktop-e2e --test e2e -- --ignored --test-threads=1 "$@"
  ' sh "$@"

echo
echo "desktop end-to-end tests passed; screenshots in tests/artifacts/"
