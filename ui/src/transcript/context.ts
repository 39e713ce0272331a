// The transcript's way to answer approvals, given by the panel that owns the live run. A
// stored or finished transcript has none, so its cards show no buttons.
import { getContext, setContext } from 'svelte';
import type { ApprovalDecision } from '../lib/bindings';

/** Resolves true when the answer was delivered. */
export type Approver = (requestId: string, decision: ApprovalDecision) => Promise<boolean>;

const KEY = Symbol('approver');

export const setApprover = (approver: () => Approver | null) => setContext(KEY, approver);

/** A getter, so the panel can switch between live and stored without remounting. */
export const getApprover = (): (() => Approver | null) =>
  getContext<(() => Approver | null) | undefined>(KEY) ?? (() => null);

export const APPROVER_KEY = KEY;
