#!/usr/bin/env bash
# Installs what is missing, builds the UI and the app (release), and launches Paddock.
# The first build takes several minutes; later ones only rebuild what changed.
#   scripts/run.sh                  build and launch
#   PADDOCK_DEBUG_BUILD=1 ...       a debug build instead (faster to compile)
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

step "setup"
./scripts/setup.sh
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step "building the UI"
build_ui

profile=release
flags=(--release)
if [ "${PADDOCK_DEBUG_BUILD:-}" = 1 ]; then
  profile=debug
  flags=()
fi
step "building the app ($profile)"
cargo build --locked "${flags[@]}" -p paddock-desktop

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "no display found (DISPLAY / WAYLAND_DISPLAY unset): run this from a desktop session," >&2
  echo "or try it headless: xvfb-run -a target/$profile/paddock-desktop" >&2
  exit 1
fi
step "launching Paddock"
exec "target/$profile/paddock-desktop" "$@"
