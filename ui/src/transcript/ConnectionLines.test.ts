import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { NetworkConnection } from '../lib/bindings';
import type { ToolCard as Card } from '../lib/transcript';
import ConnectionLines from './ConnectionLines.svelte';
import ToolCard from './ToolCard.svelte';
import { APPROVER_KEY, SESSION_LINK_KEY, type SessionLink } from './context';

const conn = (over: Partial<NetworkConnection> = {}): NetworkConnection => ({
  call_id: 'c1',
  method: 'CONNECT',
  host: 'registry.npmjs.org',
  port: 443,
  allowed: true,
  asked: false,
  rule: 'network.allow[0]',
  why: 'registry.npmjs.org:443 is allowed by network.allow[0] (`registry.npmjs.org`)',
  bytes_up: 512,
  bytes_down: 3 * 1024 * 1024,
  duration_ms: 40,
  ...over,
});

const refused = conn({
  host: 'evil.example',
  port: 443,
  allowed: false,
  rule: 'network.deny[0]',
  why: 'evil.example:443 is denied by network.deny[0] (`evil.example`)',
  bytes_up: 0,
  bytes_down: 0,
});

const lines = () => screen.getAllByTestId('connection');

describe('ConnectionLines', () => {
  it('shows each outcome, host:port, the rule, bytes down and up in human units', () => {
    render(ConnectionLines, { props: { connections: [conn(), refused] } });
    expect(screen.getByTestId('connections')).toHaveTextContent('Network: 2 connections, 1 refused');
    const [first, second] = lines();
    // Refused first: it is what the user may act on.
    expect(first).toHaveAttribute('data-allowed', 'false');
    expect(first).toHaveAttribute('data-outcome', 'refused');
    expect(first).toHaveClass('refused');
    expect(first).toHaveTextContent('✕ refused evil.example:443 network.deny[0]');
    expect(first).toHaveAttribute('title', 'evil.example:443 is denied by network.deny[0] (`evil.example`)');
    expect(within(first!).queryByTestId('connection-bytes')).toBeNull();
    expect(second).toHaveAttribute('data-target', 'registry.npmjs.org:443');
    expect(second).toHaveTextContent('✓ allowed registry.npmjs.org:443 network.allow[0]');
    expect(within(second!).getByTestId('connection-bytes')).toHaveTextContent('↓ 3.0 MB · ↑ 512 B');
  });

  it('says why when no rule decided, that the user was asked, and the error of a failed one', () => {
    render(ConnectionLines, {
      props: {
        connections: [
          conn({ host: 'unknown.test', port: 80, method: 'GET', rule: undefined, why: 'allowed by you', asked: true, bytes_down: 0, bytes_up: 0, error: 'unknown.test: name does not resolve' }),
        ],
      },
    });
    const [line] = lines();
    expect(line).toHaveTextContent('✓ allowed unknown.test:80 allowed by you · asked');
    expect(within(line!).getByTestId('connection-error')).toHaveTextContent('unknown.test: name does not resolve');
  });

  it('tells a connection that failed before it went out (a name that does not resolve) from one refused', () => {
    const why = 'cannot resolve unknown.test: Name or service not known';
    render(ConnectionLines, {
      props: {
        connections: [conn({ host: 'unknown.test', port: 80, method: 'GET', allowed: false, asked: true, rule: undefined, why, error: why, bytes_down: 0, bytes_up: 0 })],
        onallow: vi.fn(),
      },
    });
    const [line] = lines();
    expect(line).toHaveAttribute('data-outcome', 'failed');
    expect(line).toHaveAttribute('data-allowed', 'false');
    expect(line).not.toHaveClass('refused');
    // The error once, not again as the why; nothing to allow: the rules did not refuse it.
    expect(line!.textContent?.split('Name or service not known')).toHaveLength(2);
    expect(line).toHaveTextContent('! failed unknown.test:80 asked');
    expect(screen.queryByTestId('connection-allow')).toBeNull();
    expect(screen.getByTestId('connections')).toHaveTextContent('Network: 1 connection, 1 failed');
    expect(screen.getByTestId('connections')).not.toHaveTextContent('refused');
  });

  it('groups many to one host and outcome (×N) and collapses after five lines', async () => {
    const many = [
      ...Array.from({ length: 4 }, () => conn()),
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((h) => conn({ host: `${h}.example` })),
    ];
    render(ConnectionLines, { props: { connections: many } });
    expect(screen.getByTestId('connections')).toHaveTextContent('Network: 10 connections');
    expect(lines()).toHaveLength(5);
    expect(within(lines()[0]!).getByTestId('connection-count')).toHaveTextContent('×4');
    expect(within(lines()[0]!).getByTestId('connection-bytes')).toHaveTextContent('↓ 12.0 MB · ↑ 2.0 KB');
    const more = screen.getByTestId('connections-more');
    expect(more).toHaveTextContent('2 more');
    expect(more).toHaveAttribute('aria-expanded', 'false');
    await fireEvent.click(more);
    expect(lines()).toHaveLength(7);
    expect(more).toHaveTextContent('Show fewer');
  });

  it('offers "Allow this host…" on refused ones when the window can open the Network section', async () => {
    const onallow = vi.fn();
    render(ConnectionLines, { props: { connections: [refused, conn()], onallow } });
    const allow = screen.getAllByTestId('connection-allow');
    expect(allow).toHaveLength(1);
    expect(allow[0]).toHaveAccessibleName("Allow evil.example:443 in this project's network settings");
    await fireEvent.click(allow[0]!);
    expect(onallow).toHaveBeenCalledWith('evil.example:443');
  });

  it('offers no link without a window to open it in', () => {
    render(ConnectionLines, { props: { connections: [refused] } });
    expect(screen.queryByTestId('connection-allow')).toBeNull();
  });
});

describe('ToolCard connections', () => {
  const card: Card = {
    id: 'c1',
    name: 'bash',
    input: { command: 'npm install' },
    parsedFromText: false,
    state: 'ok',
    output: 'added 1 package',
    connections: [conn(), refused],
  };
  const link = (allowHost?: (rule: string) => void): SessionLink => ({
    project: '/p',
    sessionId: 's1',
    running: false,
    rewind: () => {},
    undo: async () => {},
    undoCompaction: async () => {},
    editCompaction: async () => {},
    continueRun: () => {},
    allowHost,
  });

  it('lists the call’s connections under it, and the link opens the Network section', async () => {
    const allowHost = vi.fn();
    render(ToolCard, {
      props: { card },
      context: new Map<symbol, unknown>([
        [APPROVER_KEY, () => null],
        [SESSION_LINK_KEY, () => link(allowHost)],
      ]),
    });
    const section = within(screen.getByTestId('tool-card')).getByTestId('connections');
    expect(within(section).getAllByTestId('connection')).toHaveLength(2);
    await fireEvent.click(within(section).getByTestId('connection-allow'));
    expect(allowHost).toHaveBeenCalledWith('evil.example:443');
  });

  it('shows nothing for a call that made no connection', () => {
    render(ToolCard, { props: { card: { ...card, connections: undefined } } });
    expect(screen.queryByTestId('connections')).toBeNull();
  });
});
