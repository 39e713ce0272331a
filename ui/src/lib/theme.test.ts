import { afterEach, describe, expect, it } from 'vitest';
import { isDark, setTheme, storedTheme } from './theme';

describe('theme', () => {
  afterEach(() => setTheme('system'));

  it('follows the system until the user chooses, and remembers the choice', () => {
    expect(storedTheme()).toBe('system');
    expect(document.documentElement.dataset.theme).toBeUndefined();
    setTheme('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(storedTheme()).toBe('dark');
    expect(isDark()).toBe(true);
    setTheme('light');
    expect(isDark()).toBe(false);
    setTheme('system');
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
    expect(storedTheme()).toBe('system');
  });
});
