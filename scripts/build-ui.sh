# Sourced by run.sh and desktop-e2e.sh: builds ui/dist when missing or stale.
# shellcheck shell=bash
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
