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
