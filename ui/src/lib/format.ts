// Small wording and number helpers shared by the screens.
import type { Cost, ErrorKind, ExitReason, Pricing, TokenUsage } from './bindings';

// Numbers and times are spelled here, not by Intl or toLocaleString: the first Intl number
// format loads ICU's numbering systems and locale data into the web process (~1 MB), and an
// idle project window shows a number ("Total 0 in · 0 out"). The UI is English throughout.

/** "1,234,567" (up to three decimals, as Intl's 'en' format). */
export function groupDigits(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const [whole = '0', fraction] = Math.abs(n).toFixed(3).replace(/\.?0+$/, '').split('.');
  const sign = n < 0 && (whole !== '0' || fraction) ? '-' : '';
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${fraction ? `.${fraction}` : ''}`;
}

const SCALES: [number, string][] = [
  [1e3, 'k'],
  [1e6, 'M'],
  [1e9, 'B'],
  [1e12, 'T'],
];

/** Rounds to one decimal, a tie away from zero (Intl's default, halfExpand). */
const tenths = (x: number): number => Math.round(x * 10) / 10;

/** "950", "12.3k", "200k", "1M": at most one decimal, as Intl's compact 'en' format. */
export function shortNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  let [value, unit] = [tenths(a), ''];
  // The next scale up once the rounded number reaches 1000 (999,999 reads 1M, not 1000k).
  for (const [size, name] of SCALES) {
    if (value < 1000) break;
    [value, unit] = [tenths(a / size), name];
  }
  return `${n < 0 ? '-' : ''}${value}${unit}`;
}

/** "1,234 in · 5 out", with "(1,000 cached)" after the input when the prompt cache served some. */
export const formatTokens = (u: TokenUsage) => {
  const cached = u.cache_read_tokens ? ` (${groupDigits(u.cache_read_tokens)} cached)` : '';
  return `${groupDigits(u.input_tokens)} in${cached} · ${groupDigits(u.output_tokens)} out`;
};

/** Dollars with the precision a small figure needs: "$0.0042", "$0.42", "$12.30". */
export function formatDollars(usd: number): string {
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** A cost as the CLI says it too (protocol's `Cost::describe`). */
export function formatCost(c: Cost): string {
  if (c.complete && c.local) return '$0 (local model)';
  if (c.complete) return formatDollars(c.usd);
  return c.usd > 0 ? `at least ${formatDollars(c.usd)} (some prices unknown)` : 'price unknown';
}

/** Where a run's prices come from, for a tooltip. */
export function pricingText(p: Pricing): string {
  switch (p.kind) {
    case 'priced': {
      const { input, output, cacheWrite, cacheRead } = p.price;
      const cache = cacheWrite || cacheRead ? `, cache write $${cacheWrite}, read $${cacheRead}` : '';
      return `$${input} in, $${output} out${cache} per million tokens (${p.source})`;
    }
    case 'local':
      return 'A model on this machine or network: it costs nothing.';
    case 'unknown':
      return "Paddock's price list does not know this model; add it under pricing in the project settings.";
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Dec 4, 2026, 2:05 PM" for a time the shell sent in the local offset, read off its own
 * fields (the wall clock as written). Not `Date`/`Intl`: a local time or a locale format in
 * JavaScript loads ICU's zone and locale data into the web process (src-tauri's
 * local_time.rs). Unchanged when it is not RFC 3339. */
export function formatDate(rfc3339: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})/.exec(rfc3339);
  const month = m ? MONTHS[Number(m[2]) - 1] : undefined;
  if (!m || !month) return rfc3339;
  const hour = Number(m[4]);
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${month} ${Number(m[3])}, ${m[1]}, ${h12}:${m[5]} ${hour < 12 ? 'AM' : 'PM'}`;
}

/** "Turn 3 of 100", or "Turn 3" when the run's limit is unknown. */
export const turnText = (n: number, max?: number) => (max ? `Turn ${n} of ${max}` : `Turn ${n}`);

/** A turn's foot: which turn, and its tokens when any were counted (a call that failed before
 * the server answered, or a server that reports no usage, counted none). */
export function turnUsageText(n: number, max: number | undefined, u: TokenUsage, cost?: Cost): string {
  const counted = u.input_tokens + u.output_tokens > 0; // input counts the cached tokens
  if (!counted) return turnText(n, max);
  const money = cost ? ` · ${formatCost(cost)}` : '';
  return `${turnText(n, max)} · ${formatTokens(u)}${money}`;
}

/** The banner line for how a run ended. */
export function exitText(exit: ExitReason, turns: number): string {
  const t = `${turns} ${turns === 1 ? 'turn' : 'turns'}`;
  switch (exit) {
    case 'end_turn':
      return `Finished after ${t}.`;
    case 'max_turns':
      return `Stopped: the run used all ${t} it may take (max turns). Raise it in Settings or send another prompt to go on.`;
    case 'aborted':
      return `Stopped by you after ${t}.`;
    case 'budget_exceeded':
      return `Stopped: the token budget was used up after ${t}. Raise it in Settings to go further.`;
    case 'loop_detected':
      return 'Stopped: the model kept repeating itself.';
    case 'error':
      return `Stopped by an error after ${t}.`;
  }
}

/** What the user can do about a model error. */
export function errorHint(kind: ErrorKind): string {
  switch (kind) {
    case 'auth':
      return 'Check the API key in Settings.';
    case 'rate_limited':
      return 'The provider is limiting requests; wait a little and try again.';
    case 'context_too_long':
      return 'The conversation no longer fits the model; start a new session.';
    case 'server':
      return "The provider's server failed; try again later.";
    case 'network':
      return 'Check the connection or the base URL in Settings.';
    case 'invalid_request':
      // Any 400: the server's own words above say what; the model name is only the usual case.
      return 'The server refused the request as written: its message says why (often the model name, in Settings).';
    case 'invalid_response':
      return 'The server answered in an unexpected format; check the provider and base URL.';
    case 'cancelled':
      return '';
    case 'other':
      return '';
  }
}
