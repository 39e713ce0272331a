// The composer's `@` list: asks the shell for the workspace's matches as the user types
// (each answer only if it is for the latest query) and keeps the files picked for the
// prompt.
import * as api from '../lib/api';
import type { MentionCandidate } from '../lib/bindings';

/** Wait after a keystroke before asking (the list is kept in the shell: a few ms a query). */
const ASK_AFTER_MS = 40;

export class MentionPicker {
  readonly #project: () => string;
  /** Matches of the latest query; null while no `@` word is being typed. */
  items = $state.raw<MentionCandidate[] | null>(null);
  /** The files and folders this prompt takes along. */
  picked = $state.raw<MentionCandidate[]>([]);
  error = $state<string | null>(null);
  #asked = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `project` gives the project's path (a getter: the panel's session may change). */
  constructor(project: () => string) {
    this.#project = project;
  }

  get project(): string {
    return this.#project();
  }

  /** The `@` word now reads `query` (null: none is being typed). */
  query(query: string | null): void {
    clearTimeout(this.#timer);
    const n = ++this.#asked;
    if (query === null) {
      this.items = null;
      return;
    }
    this.#timer = setTimeout(() => {
      api
        .mentionCandidates(this.project, query)
        .then((found) => {
          if (n !== this.#asked) return;
          this.items = found;
          this.error = null;
        })
        .catch((e: unknown) => {
          if (n !== this.#asked) return;
          this.items = [];
          this.error = api.toAppError(e).message;
        });
    }, ASK_AFTER_MS);
  }

  pick(candidate: MentionCandidate): void {
    if (!this.picked.some((p) => p.path === candidate.path)) this.picked = [...this.picked, candidate];
    this.query(null);
  }

  remove(path: string): void {
    this.picked = this.picked.filter((p) => p.path !== path);
  }

  /** The picked files go with a prompt: the list starts empty again. */
  take(): MentionCandidate[] {
    const picked = this.picked;
    this.picked = [];
    return picked;
  }

  /** Files a failed send gives back, before any picked since. */
  putBack(taken: MentionCandidate[]): void {
    const now = this.picked;
    this.picked = [...taken.filter((t) => !now.some((p) => p.path === t.path)), ...now];
  }
}
