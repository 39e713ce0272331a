import { afterEach, describe, expect, it, vi } from 'vitest';
import { isDark, setTheme, storedTheme } from './theme';

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
});
