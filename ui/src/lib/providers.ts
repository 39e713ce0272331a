// Provider facts the settings screen needs.
import type { ProjectInfo, ProviderKind } from './bindings';

/** Where a local OpenAI-compatible server (Ollama) listens by default. */
export const LOCAL_BASE_URL = 'http://localhost:11434/v1';

/** The variable headless runs read a provider's key from. */
export const KEY_ENV: Record<ProviderKind, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'PADDOCK_OPENAI_COMPAT_API_KEY',
};

/** A positive whole number from a number field, or nothing. */
export function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.floor(v) : undefined;
}

/** Whether the settings file's provider or base URL waits for the folder's trust: until
 * then Paddock must not contact that address (it would get the key). */
export const endpointUntrusted = (info: ProjectInfo): boolean =>
  info.trust.pending.some((i) => i.key === 'baseUrl' || i.key === 'provider');
