// Light, dark, or as the system says (the default), remembered for every window.
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'paddock.theme';

export function storedTheme(): ThemeChoice {
  const v = globalThis.localStorage?.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** Applies `choice` to the document (app.css reads `data-theme`) and remembers it. */
export function setTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === 'system') {
    root.removeAttribute('data-theme');
    globalThis.localStorage?.removeItem(KEY);
  } else {
    root.dataset.theme = choice;
    globalThis.localStorage?.setItem(KEY, choice);
  }
}

/** Whether the page is dark now, whichever way it got there. */
export const isDark = (root: HTMLElement = document.documentElement): boolean =>
  root.dataset.theme === 'dark' ||
  (root.dataset.theme !== 'light' && globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches === true);
