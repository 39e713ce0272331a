// Argument rules as the settings hold them: `{"allow": "git status"}` and its kin.
import type { Grant, RuleEntry } from './bindings';

export const ruleAction = (entry: RuleEntry): Grant =>
  'allow' in entry ? 'allow' : 'ask' in entry ? 'ask' : 'deny';

export const rulePattern = (entry: RuleEntry): string =>
  'allow' in entry ? entry.allow : 'ask' in entry ? entry.ask : entry.deny;

export const entryOf = (action: Grant, pattern: string): RuleEntry =>
  action === 'allow' ? { allow: pattern } : action === 'ask' ? { ask: pattern } : { deny: pattern };
