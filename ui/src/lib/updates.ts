// The About and updates (src-tauri/src/updates.rs), from the generated client: this copy's
// version and how it was installed, a look at the update server, and installing an
// AppImage's update. Kept as its own module so the About panel's tests can mock it alone.
export { about, checkUpdate, installUpdate, restartApp } from './commands';
