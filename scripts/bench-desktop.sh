#!/usr/bin/env bash
# Desktop benchmark: cold start to first paint, idle memory with one project open, and the
# time to open a 10,000-event transcript, on the release build of the app under Xvfb.
# Prints the figures (targets: <= 400 ms, <= 80 MB, <= 300 ms). Not a pass/fail test.
#   PADDOCK_SKIP_SETUP=1 ...   skip scripts/setup.sh
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
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export PATH="$CARGO_HOME/bin:$PATH"
if ! command -v tauri-driver >/dev/null; then
  step "installing tauri-driver (about 3 min)"
  timeout 1200 cargo install tauri-driver --locked
fi

step "building the UI"
build_ui

step "building the app (release) and the benchmark driver"
timeout 3600 cargo build --locked --release -p paddock-desktop
timeout 1800 cargo build --locked -p paddock-desktop-e2e --bin desktop-bench

step "measuring (Xvfb, private D-Bus session)"
mkdir -p tests/artifacts
bench_home=$(mktemp -d)
trap 'rm -rf "$bench_home"' EXIT
HOME="$bench_home" PADDOCK_APP="$PWD/target/release/paddock-desktop" timeout 900 \
  xvfb-run -a -s "-screen 0 1280x800x24" \
  dbus-run-session -- sh -c '
    printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec target/debug/desktop-bench
  '
