import { afterEach, describe, expect, it, vi } from 'vitest';
import { followOtherWindows, isDark, setTheme, storedTheme } from './theme';

describe('theme', () => {
  afterEach(() => {
    setTheme('system');
    vi.unstubAllGlobals();
  });

  it('follows the system until the user chooses, and remembers the choice', () => {
    const listeners: Array<() => void> = [];
    let dark = true;
    vi.stubGlobal('matchMedia', () => ({
      get matches() {
        return dark;
      },
      addEventListener: (_: string, f: () => void) => listeners.push(f),
      removeEventListener: () => {},
    }));
    setTheme('system');
    expect(storedTheme()).toBe('system');
    expect(document.documentElement.dataset.theme).toBe('dark');
    dark = false;
    listeners.forEach((f) => f());
    expect(isDark()).toBe(false);
    setTheme('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(storedTheme()).toBe('dark');
    setTheme('light');
    expect(isDark()).toBe(false);
    expect(storedTheme()).toBe('light');
  });

  it("applies a choice another window made, and only the theme's key", () => {
    setTheme('light');
    const seen: string[] = [];
    const stop = followOtherWindows((c) => seen.push(c));
    // Another window wrote the choice; this page hears of it by a storage event.
    localStorage.setItem('paddock.theme', 'dark');
    window.dispatchEvent(new StorageEvent('storage', { key: 'other.key' }));
    expect(isDark()).toBe(false);
    window.dispatchEvent(new StorageEvent('storage', { key: 'paddock.theme', newValue: 'dark' }));
    expect(isDark()).toBe(true);
    expect(seen).toEqual(['dark']);
    stop();
    localStorage.setItem('paddock.theme', 'light');
    window.dispatchEvent(new StorageEvent('storage', { key: 'paddock.theme', newValue: 'light' }));
    expect(isDark()).toBe(true);
  });
});
