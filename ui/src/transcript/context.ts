// The transcript's way to answer approvals, given by the panel that owns the live run. A
// stored or finished transcript has none, so its cards show no buttons.
import { getContext, setContext } from 'svelte';
import type { ApprovalDecision } from '../lib/bindings';
import type { AlwaysAllow, AlwaysAllowHost } from '../lib/transcript';

export type { AlwaysAllow, AlwaysAllowHost };

export type Answer = ApprovalDecision | AlwaysAllow | AlwaysAllowHost;

/** Resolves true when the answer was delivered. */
export type Approver = (requestId: string, answer: Answer) => Promise<boolean>;

const KEY = Symbol('approver');

export const setApprover = (approver: () => Approver | null) => setContext(KEY, approver);

/** A getter, so the panel can switch between live and stored without remounting. */
export const getApprover = (): (() => Approver | null) =>
  getContext<(() => Approver | null) | undefined>(KEY) ?? (() => null);

export const APPROVER_KEY = KEY;

/** A point of the session to rewind to. */
export interface RewindTarget {
  /** The prompt, 1-based: the run's place in the transcript. */
  prompt: number;
  /** 0: before the prompt; else before that turn's tools ran. */
  turn: number;
  /** The workspace was recorded there, so the files can be rewound too. */
  checkpoint: boolean;
}

/** What the transcript may do with the session it shows. */
export interface SessionLink {
  project: string;
  sessionId: string | null;
  /** A run of this session is live (or it is being compacted): nothing is rewound meanwhile. */
  running: boolean;
  /** Opens the rewind dialog for this point. */
  rewind: (target: RewindTarget) => void;
  /** Undoes the session's last rewind. */
  undo: () => Promise<void>;
  /** Undoes the session's latest compaction; rejects with the AppError to show. */
  undoCompaction: () => Promise<void>;
  /** Replaces the latest compaction's summary; rejects with the AppError to show. */
  editCompaction: (id: string, summary: string) => Promise<void>;
  /** Sends "Continue where you left off." in this session. */
  continueRun: () => void;
  /** Opens the grants screen's Network section with `rule` ready to add to `network.allow`. */
  allowHost?: (rule: string) => void;
}

const LINK_KEY = Symbol('session-link');

export const setSessionLink = (link: () => SessionLink | null) => setContext(LINK_KEY, link);

/** A getter, like the approver's; null where no session is behind the transcript. */
export const getSessionLink = (): (() => SessionLink | null) =>
  getContext<(() => SessionLink | null) | undefined>(LINK_KEY) ?? (() => null);

export const SESSION_LINK_KEY = LINK_KEY;
