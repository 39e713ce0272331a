import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatDate } from './format';

afterEach(() => vi.restoreAllMocks());

describe('formatDate', () => {
  it('reads the wall clock as the shell wrote it, in the local offset', () => {
    expect(formatDate('2026-12-04T14:05:09+01:00')).toBe('Dec 4, 2026, 2:05 PM');
    expect(formatDate('2026-01-31T00:30:00-05:00')).toBe('Jan 31, 2026, 12:30 AM');
    expect(formatDate('2025-07-01T12:00:00Z')).toBe('Jul 1, 2025, 12:00 PM');
    expect(formatDate('2025-07-01T11:59:00+00:00')).toBe('Jul 1, 2025, 11:59 AM');
  });

  it('shows what is not a time as it came', () => {
    for (const s of ['', 'yesterday', '2026-13-01T10:00:00Z', '2026-12-04']) expect(formatDate(s)).toBe(s);
  });

  it('asks JavaScript for no local time and no locale (they load ICU into the web process)', () => {
    const spies = [
      vi.spyOn(Date.prototype, 'toLocaleString'),
      vi.spyOn(Date.prototype, 'getHours'),
      vi.spyOn(Date.prototype, 'getTimezoneOffset'),
      vi.spyOn(Intl, 'DateTimeFormat'),
    ];
    formatDate('2026-12-04T14:05:09+01:00');
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});
