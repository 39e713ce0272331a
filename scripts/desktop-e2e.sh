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
build_ui() {
  # npm packages when missing or stale, then vite into ui/dist.
  if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules ]; then
    timeout 900 npm ci --prefix ui --no-audit --no-fund --loglevel=error
    touch ui/node_modules
  fi
  # Only when the sources changed: a new ui/dist makes cargo re-embed it and relink the app.
  # The placeholder page src-tauri/build.rs writes when there is no UI always counts as stale.
  if [ -f ui/dist/index.html ] && ! grep -q "The Paddock UI is not built" ui/dist/index.html &&
    [ -z "$(find ui/src ui/index.html ui/package.json ui/package-lock.json ui/vite.config.ts \
      -newer ui/dist/index.html -print -quit 2>/dev/null)" ]; then
    echo "ui/dist is up to date"
  else
    timeout 600 npm run --prefix ui build
  fi
}

[ "${PADDOCK_SKIP_SETUP:-}" = 1 ] || ./scripts/setup.sh

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
timeout 3600 cargo build --locked -p paddock-desktop
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
