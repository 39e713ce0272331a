import { render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckpointStatus } from '../lib/bindings';
import CheckpointProgress from './CheckpointProgress.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const status = (over: Partial<CheckpointStatus>): CheckpointStatus => ({
  state: 'recording',
  files: 0,
  bytes: 0,
  expected: 0,
  took_ms: null,
  message: null,
  ...over,
});

afterEach(() => {
  vi.useRealTimers();
  api.checkpointStatus.mockReset();
});

describe('CheckpointProgress', () => {
  it('shows the first snapshot progressing, then goes once it is done', async () => {
    vi.useFakeTimers();
    api.checkpointStatus
      .mockResolvedValueOnce(status({ files: 1200, bytes: 15_000_000, expected: 27000 }))
      .mockResolvedValueOnce(status({ files: 9000, bytes: 120_000_000, expected: 27000 }))
      .mockResolvedValue(status({ state: 'ready', files: 27000, took_ms: 1170 }));
    render(CheckpointProgress, { props: { path: '/p' } });
    await vi.waitFor(() => expect(screen.getByTestId('checkpoint-progress')).toBeInTheDocument());
    const shown = screen.getByTestId('checkpoint-progress');
    expect(shown).toHaveTextContent('1,200 of about 27,000 files (15 MB)');
    expect(shown.querySelector('progress')).toHaveAttribute('value', '1200');
    await vi.advanceTimersByTimeAsync(500);
    expect(screen.getByTestId('checkpoint-progress')).toHaveTextContent('9,000 of about 27,000 files');
    await vi.advanceTimersByTimeAsync(500);
    expect(screen.queryByTestId('checkpoint-progress')).toBeNull();
    expect(api.checkpointStatus).toHaveBeenCalledTimes(3);
    expect(api.checkpointStatus).toHaveBeenCalledWith('/p');
    // Done: no more asking.
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.checkpointStatus).toHaveBeenCalledTimes(3);
  });

  it('says why the first snapshot failed', async () => {
    api.checkpointStatus.mockResolvedValue(
      status({ state: 'failed', message: 'the workspace folder is a link' }),
    );
    render(CheckpointProgress, { props: { path: '/p' } });
    await vi.waitFor(() =>
      expect(screen.getByTestId('checkpoint-failed')).toHaveTextContent('the workspace folder is a link'),
    );
  });

  it('shows nothing when the project was recorded already or cannot be asked', async () => {
    api.checkpointStatus.mockRejectedValue({ code: 'internal', message: 'gone' });
    render(CheckpointProgress, { props: { path: '/p' } });
    await vi.waitFor(() => expect(api.checkpointStatus).toHaveBeenCalled());
    expect(screen.queryByRole('status')).toBeNull();
  });
});
