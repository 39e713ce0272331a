// The settings form's context and compaction fields: what to save, or why not.
import * as api from './api';
import type { CompactionSettings, ProjectSettings } from './bindings';

/**
 * The project's settings as its file reads now. A screen saves its edits onto these, never
 * onto the copy it opened with: a hand edit made since (or a rule saved from a card) stays.
 */
export async function settingsOnDisk(path: string): Promise<ProjectSettings> {
  const now = await api.projectInfo(path);
  if (now.settings_error || !now.settings) {
    throw { code: 'settings', message: now.settings_error ?? 'the settings could not be read' };
  }
  return now.settings;
}

/** The kernel's defaults (checked against its sources by settings.test.ts): compact by itself
 * at 80 % of the window; a run makes at most 100 model calls. */
export const DEFAULT_THRESHOLD = 80;
export const DEFAULT_MAX_TURNS = 100;
export const MIN_THRESHOLD = 10;
export const MAX_THRESHOLD = 95;
/** The bounds the settings file accepts (host settings.rs). */
export const MIN_CONTEXT_WINDOW = 1_024;
export const MAX_CONTEXT_WINDOW = 10_000_000;

export type Field<T> = { value: T | undefined } | { error: string };

const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const empty = (v: unknown) => v === null || v === undefined || v === '';

/** The context window field: empty means "learn it from the server". */
export function contextWindowField(v: unknown): Field<number> {
  if (empty(v)) return { value: undefined };
  if (!whole(v) || v < MIN_CONTEXT_WINDOW || v > MAX_CONTEXT_WINDOW) {
    return { error: 'Context window: a whole number of tokens between 1,024 and 10,000,000, or empty.' };
  }
  return { value: v };
}

/** Automatic compaction and its threshold; the defaults are saved as nothing. */
export function compactionField(auto: boolean, threshold: unknown): Field<CompactionSettings> {
  // Off, the threshold is not used: an empty field is no reason to refuse.
  if (!auto && empty(threshold)) return { value: { auto, thresholdPercent: DEFAULT_THRESHOLD } };
  if (!whole(threshold) || threshold < MIN_THRESHOLD || threshold > MAX_THRESHOLD) {
    return { error: `Compaction threshold: a whole percent between ${MIN_THRESHOLD} and ${MAX_THRESHOLD}.` };
  }
  if (auto && threshold === DEFAULT_THRESHOLD) return { value: undefined };
  return { value: { auto, thresholdPercent: threshold } };
}
