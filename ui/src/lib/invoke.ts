// The one place the page calls the Tauri shell; the generated client (commands.ts) and the
// hand-written helpers of api.ts go through `invokeCommand`.
import { invoke, isTauri } from '@tauri-apps/api/core';
import type { AppError } from './bindings';

const NO_BACKEND: AppError = {
  code: 'internal',
  message:
    'The Paddock backend is not reachable: this page only works inside the Paddock app ' +
    '(cargo tauri dev), not in a plain browser.',
};

/** Any rejection from a command, as the one error shape the UI shows. */
export function toAppError(err: unknown): AppError {
  if (err && typeof err === 'object' && 'code' in err && 'message' in err) {
    const { code, message } = err as AppError;
    return { code, message: String(message) };
  }
  // Tauri's own failures (unknown command, bad arguments) arrive as plain strings.
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

export async function invokeCommand<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  if (!isTauri()) throw NO_BACKEND;
  try {
    return await invoke<T>(command, args);
  } catch (err) {
    throw toAppError(err);
  }
}
