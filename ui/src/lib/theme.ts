// Light, dark, or as the system says (the default), remembered for every window. The page
// always carries the theme in effect (`data-theme` on <html>, read by app.css).
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'paddock.theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

let following: { query: MediaQueryList; listener: () => void } | null = null;

export function storedTheme(): ThemeChoice {
  const v = globalThis.localStorage?.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

const systemDark = (): boolean => globalThis.matchMedia?.(DARK_QUERY).matches === true;

/** Applies `choice`, follows the system while it is 'system', and remembers it. */
export function setTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  following?.query.removeEventListener('change', following.listener);
  following = null;
  if (choice === 'system') {
    globalThis.localStorage?.removeItem(KEY);
    const apply = () => (root.dataset.theme = systemDark() ? 'dark' : 'light');
    apply();
    const query = globalThis.matchMedia?.(DARK_QUERY);
    if (query) {
      query.addEventListener('change', apply);
      following = { query, listener: apply };
    }
  } else {
    globalThis.localStorage?.setItem(KEY, choice);
    root.dataset.theme = choice;
  }
}

/** Whether the page is dark now. */
export const isDark = (root: HTMLElement = document.documentElement): boolean => root.dataset.theme === 'dark';

/** Applies a choice made in another window (the storage event reaches every other page of the
 * app) and tells `onchange`; returns the unsubscribe. */
export function followOtherWindows(onchange: (choice: ThemeChoice) => void): () => void {
  const listener = (event: StorageEvent) => {
    if (event.key !== KEY && event.key !== null) return;
    const choice = storedTheme();
    setTheme(choice);
    onchange(choice);
  };
  window.addEventListener('storage', listener);
  return () => window.removeEventListener('storage', listener);
}
