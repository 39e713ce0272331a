// The connections a call made through the network fence, as its card lists them: one line per
// host and outcome, refused ones first (they are what the user may act on).
import type { NetworkConnection } from './bindings';

/** A connection as its call's card keeps it (the event without its tag). */
export type Connection = NetworkConnection;

/**
 * Allowed: let through upstream (it may still have failed, see `error`). Refused: by a rule,
 * by the user, or for the address it leads to. Failed: never let through because of an error
 * (the name did not resolve, the request could not be read), not because of the rules.
 */
export type Outcome = 'allowed' | 'refused' | 'failed';

export const outcomeOf = (c: Connection): Outcome => (c.allowed ? 'allowed' : c.error ? 'failed' : 'refused');

/** Connections to one host:port with one outcome. */
export interface ConnectionGroup {
  /** `host:port`, or what is known of it ("no request" when none was read). */
  target: string;
  outcome: Outcome;
  allowed: boolean;
  /** How many connections the line stands for. */
  count: number;
  /** The rule that decided (`network.allow[2]`), else why, unless that is the error (the
   * latest connection's). */
  decidedBy: string;
  why: string;
  /** The user was asked about one of them. */
  asked: boolean;
  bytesUp: number;
  bytesDown: number;
  durationMs: number;
  /** The last error of a connection that failed after it was let through (or refused). */
  error?: string;
  /** How many of them failed. */
  failed: number;
}

/** `host:port` as a rule or line names it. */
export function targetOf(c: Pick<Connection, 'host' | 'port'>): string {
  if (!c.host) return 'no request';
  const host = c.host.includes(':') ? `[${c.host}]` : c.host;
  return c.port === undefined ? host : `${host}:${c.port}`;
}

const ORDER: Outcome[] = ['refused', 'failed', 'allowed'];

/** Groups by target and outcome, in the order first seen; refused groups first, then failed. */
export function groupConnections(list: readonly Connection[]): ConnectionGroup[] {
  const groups = new Map<string, ConnectionGroup>();
  for (const c of list) {
    const target = targetOf(c);
    const outcome = outcomeOf(c);
    const key = `${outcome} ${target}`;
    const g = groups.get(key) ?? {
      target,
      outcome,
      allowed: c.allowed,
      count: 0,
      decidedBy: '',
      why: '',
      asked: false,
      bytesUp: 0,
      bytesDown: 0,
      durationMs: 0,
      failed: 0,
    };
    g.count++;
    g.decidedBy = c.rule ?? (c.why === c.error ? '' : c.why);
    g.why = c.why;
    g.asked ||= c.asked;
    g.bytesUp += c.bytes_up;
    g.bytesDown += c.bytes_down;
    g.durationMs += c.duration_ms;
    if (c.error) {
      g.error = c.error;
      g.failed++;
    }
    groups.set(key, g);
  }
  const all = [...groups.values()];
  return ORDER.flatMap((o) => all.filter((g) => g.outcome === o));
}

/** The narrowest `network.allow` rule for a refused target (what "Allow this host…" fills in). */
export const ruleFor = (g: ConnectionGroup): string | null =>
  g.outcome !== 'refused' || g.target === 'no request' ? null : g.target;
