#!/usr/bin/env bash
# Installs what is missing, builds the UI and the app (release), and launches Paddock.
# The first build takes several minutes; later ones only rebuild what changed.
#   scripts/run.sh                  build and launch
#   PADDOCK_DEBUG_BUILD=1 ...       a debug build instead (faster to compile)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
# shellcheck source=scripts/build-ui.sh
. "$(dirname "$0")/build-ui.sh"

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
# bash runs behind a wall built by paddock-sandbox-helper, which sits beside the app.
cargo build --locked "${flags[@]}" -p paddock-desktop -p paddock-sandbox

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "no display found (DISPLAY / WAYLAND_DISPLAY unset): run this from a desktop session," >&2
  echo "or try it headless: xvfb-run -a target/$profile/paddock-desktop" >&2
  exit 1
fi
step "launching Paddock"
exec "target/$profile/paddock-desktop" "$@"
