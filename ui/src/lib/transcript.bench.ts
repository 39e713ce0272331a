// npm run bench: how long a long stored session takes to turn into the transcript view.
import { bench, describe } from 'vitest';
import { fromStored } from './stored';
import { longSession } from '../test/long-session';

describe('open a stored session', () => {
  for (const n of [1_000, 10_000, 30_000]) {
    const { messages, events } = longSession(n);
    bench(`${n} live events (${events.length} stored, ${messages.length} messages)`, () => {
      fromStored(messages, events);
    });
  }
});

describe('end a long run whose calls never finished', () => {
  // Every card still open when run_finished comes: closing them must stay one pass.
  const { messages, events } = longSession(10_000);
  const unfinished = events.filter((e) => e.type !== 'tool_call_finished');
  bench(`10000 live events, ${unfinished.length} stored, no results`, () => {
    fromStored(messages.filter((m) => m.role === 'assistant' || m === messages[0]), unfinished);
  });
});
