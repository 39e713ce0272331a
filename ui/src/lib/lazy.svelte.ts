// Code the project window needs only once there is something to render. Markdown (marked,
// DOMPurify) and highlighting (highlight.js) are about half of the window's script, and
// evaluating them at load cost an idle window ~2 MB in the web process. Each loads on first
// use (a few ms from the app's own files) and stays; until then the text shows plain.
import type { Component } from 'svelte';

/** A module loaded on first use; `current` (reactive) is null until it is there. */
export class Lazy<T> {
  current = $state.raw<T | null>(null);
  #loading: Promise<T> | null = null;
  readonly #load: () => Promise<T>;

  constructor(load: () => Promise<T>) {
    this.#load = load;
  }

  /** Starts loading (once) and resolves when it is there. A failed load is tried again next time. */
  get(): Promise<T> {
    this.#loading ??= this.#load().then(
      (m) => (this.current = m),
      (err: unknown) => {
        this.#loading = null;
        throw err;
      },
    );
    return this.#loading;
  }

  /** `current`, and the load started when it is not there yet: for a view that shows plain
   * text until then (a failed load leaves it plain). */
  use(): T | null {
    if (!this.current) void this.get().catch(() => {});
    return this.current;
  }
}

/** The answer's Markdown view (transcript/Markdown.svelte, with marked, DOMPurify, highlight.js). */
export const markdown = new Lazy<Component<{ text: string }>>(() =>
  import('../transcript/Markdown.svelte').then((m) => m.default),
);

/** highlight.js with Paddock's languages (lib/highlight.ts), for diffs and file previews. */
export const highlighting = new Lazy(() => import('./highlight'));

/** Loads what a transcript renders with, for a view about to show one (no flash of plain text). */
export const transcriptReady = (): Promise<unknown> => markdown.get().catch(() => undefined);
