#!/usr/bin/env bash
# Installs what Paddock needs on a Debian/Ubuntu machine, skipping what is already there.
# Sourced by run.sh and test.sh; safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '\n==> %s\n' "$*"; }

# System packages: the Tauri/WebKit build, Secret Service (keychain), Xvfb + WebKitWebDriver
# for the desktop tests, bubblewrap (bash's wall), ripgrep for the search benchmark, python3,
# git and util-linux's `script` for the wall's escape tests; squashfs-tools, FUSE and
# squashfuse's library (with its decompressors) for the AppImage (scripts/appimage.sh).
APT_PACKAGES=(
  build-essential pkg-config curl libssl-dev libdbus-1-dev
  libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  xvfb xauth webkit2gtk-driver dbus dbus-x11 gnome-keyring libsecret-tools keyutils
  bubblewrap python3 git bsdutils procps gpgv
  ripgrep imagemagick
  squashfs-tools fuse3 libfuse3-dev libsquashfuse-dev libzstd-dev zlib1g-dev liblzma-dev
  liblz4-dev liblzo2-dev
)

setup_system() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "system packages: all present"
    return
  fi
  say "installing system packages: ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "apt-get not found: install these packages by hand: ${missing[*]}" >&2
    return 1
  fi
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

setup_rust() {
  if ! command -v cargo >/dev/null; then
    say "installing Rust (rustup)"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
  fi
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
}

setup_node() {
  if ! command -v npm >/dev/null; then
    echo "Node.js 20+ and npm are needed: install them (e.g. apt-get install nodejs npm)" >&2
    return 1
  fi
  local node_version
  node_version=$(node -p 'process.versions.node' 2>/dev/null || echo 0)
  if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' 2>/dev/null; then
    echo "Node.js $node_version is too old: the UI build needs Node.js 20.19 or newer" >&2
    return 1
  fi
  if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules ]; then
    say "installing the UI's packages (npm)"
    npm ci --prefix ui --no-audit --no-fund --loglevel=error
    touch ui/node_modules
  fi
  if [ -f tests/mcp-fixtures/package-lock.json ]; then
    if [ ! -d tests/mcp-fixtures/node_modules ] || [ tests/mcp-fixtures/package-lock.json -nt tests/mcp-fixtures/node_modules ]; then
      say "installing the MCP test server (npm)"
      npm ci --prefix tests/mcp-fixtures --no-audit --no-fund --loglevel=error
    fi
  fi
  if [ ! -d tests/acp-fixtures/node_modules ] || [ tests/acp-fixtures/package-lock.json -nt tests/acp-fixtures/node_modules ]; then
    say "installing the ACP SDK the editor tests drive paddock acp with (npm)"
    npm ci --prefix tests/acp-fixtures --no-audit --no-fund --loglevel=error
  fi
}

# Published agents the tests run behind the wall; for the tests only (PADDOCK_SETUP_TESTS=1,
# set by test.sh and the desktop test scripts): about 600 MB with the Node.js 22 they need.
setup_test_agents() {
  [ "${PADDOCK_SETUP_TESTS:-}" = 1 ] || return 0
  if [ ! -d tests/acp-agents/node_modules ] || [ tests/acp-agents/package-lock.json -nt tests/acp-agents/node_modules ]; then
    say "installing Claude Code's ACP adapter (and Node.js 22 for it), which the tests run behind the wall (npm)"
    npm ci --prefix tests/acp-agents --no-audit --no-fund --loglevel=error
    touch tests/acp-agents/node_modules
  fi
}

# A build and the tests fill about 8 GB (target/, node_modules); a disk that runs out midway
# fails with "No space left on device" deep in cargo's output, so say it first.
check_disk() {
  local need_kb=$((10 * 1024 * 1024)) free_kb
  free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
  if [ -n "$free_kb" ] && [ "$free_kb" -lt "$need_kb" ]; then
    echo "warning: only $((free_kb / 1024 / 1024)) GB free here; building and testing Paddock needs about 10 GB" >&2
  fi
}

check_disk
setup_system
setup_rust
setup_node
setup_test_agents
