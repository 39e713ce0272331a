import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

// Tauri loads the dev server from a fixed port and the built files from dist/.
export default defineConfig({
  plugins: [svelte(), svelteTesting()],
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // WebKitGTK on current Debian/Ubuntu and WebView2 both handle ES2022.
    target: 'es2022',
    sourcemap: false,
    // ASCII only (other characters escaped): WebKit keeps a script with one character above
    // U+00FF as UTF-16, twice the size of its Latin-1 form, for as long as the page lives.
    rolldownOptions: { output: { charset: 'ascii' } },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
  },
});
