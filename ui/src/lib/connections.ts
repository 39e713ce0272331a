// The connections a call made through the network fence, as its card lists them: one line per
// host and outcome, refused ones first (they are what the user may act on).
import type { NetworkConnection } from './bindings';

/** A connection as its call's card keeps it (the event without its tag). */
export type Connection = NetworkConnection;

/** Connections to one host:port with one outcome. */
export interface ConnectionGroup {
  /** `host:port`, or what is known of it ("no request" when none was read). */
  target: string;
  allowed: boolean;
  /** How many connections the line stands for. */
  count: number;
  /** The rule that decided (`network.allow[2]`), else why (the latest connection's). */
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

/** Groups by target and outcome, in the order first seen; refused groups come first. */
export function groupConnections(list: readonly Connection[]): ConnectionGroup[] {
  const groups = new Map<string, ConnectionGroup>();
  for (const c of list) {
    const target = targetOf(c);
    const key = `${c.allowed ? 'y' : 'n'} ${target}`;
    const g = groups.get(key) ?? {
      target,
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
    g.decidedBy = c.rule ?? c.why;
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
  return [...all.filter((g) => !g.allowed), ...all.filter((g) => g.allowed)];
}

/** The narrowest `network.allow` rule for a refused target (what "Allow this host…" fills in). */
export const ruleFor = (g: ConnectionGroup): string | null => (g.target === 'no request' ? null : g.target);
