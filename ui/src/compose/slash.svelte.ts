// What a picked slash command does: a built-in is the panel's own action; a saved prompt is
// filled in by the host and sent, a project's prompt shown in full first (the host gives its
// text to send only once the user confirmed what they saw).
import * as api from '../lib/api';
import type { ExpandedPrompt, SavedPrompt } from '../lib/bindings';
import { items, type SlashItem } from '../lib/slash';

export interface SlashActions {
  /** A built-in command, by name, with what followed it. */
  builtin: (name: string, args: string) => void | Promise<void>;
  /** Sends a filled-in prompt as the user's. */
  send: (text: string) => Promise<void>;
}

export class SlashCommands {
  saved = $state<SavedPrompt[]>([]);
  readonly items = $derived<SlashItem[]>(items(this.saved));
  /** A project prompt waiting for the user to read it. */
  confirming = $state<{ prompt: ExpandedPrompt; args: string } | null>(null);
  error = $state<string | null>(null);
  readonly #project: string;
  readonly #actions: SlashActions;

  constructor(project: string, actions: SlashActions) {
    this.#project = project;
    this.#actions = actions;
  }

  /** The saved prompts as the files stand now (asked each time the menu opens). */
  async load(): Promise<void> {
    try {
      this.saved = (await api.savedPrompts(this.#project)) ?? [];
    } catch (err) {
      this.error = api.toAppError(err).message;
    }
  }

  async run(item: SlashItem, args: string): Promise<void> {
    this.error = null;
    if (item.source === 'builtin') return this.#actions.builtin(item.name, args);
    if (item.error) {
      this.error = `/${item.name} cannot be used: ${item.error}`;
      return;
    }
    try {
      const prompt = await api.expandPrompt(this.#project, item.name, args);
      if (prompt.needs_confirmation) this.confirming = { prompt, args };
      else await this.#actions.send(prompt.text);
    } catch (err) {
      this.error = api.toAppError(err).message;
    }
  }

  /** The user read the prompt and sends it: recorded, then sent. */
  async confirm(): Promise<void> {
    const waiting = this.confirming;
    if (!waiting) return;
    this.confirming = null;
    try {
      const { prompt, args } = waiting;
      const sent = await api.confirmPrompt(this.#project, prompt.name, args, prompt.digest);
      await this.#actions.send(sent.text);
      void this.load();
    } catch (err) {
      this.error = api.toAppError(err).message;
    }
  }

  cancel(): void {
    this.confirming = null;
  }
}
