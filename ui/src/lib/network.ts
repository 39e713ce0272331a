// Wording and bookkeeping for the grants screen's Network section.
import type { NetworkPreset, NetworkSettings, NetworkView } from './bindings';

export type RuleList = 'allow' | 'ask' | 'deny';

export const RULE_LISTS: readonly RuleList[] = ['allow', 'ask', 'deny'];

/**
 * The view with every list present: the settings file (and so the shell's answer) leaves an
 * empty list out (`skip_serializing_if`), though the generated type says it is there.
 */
export function filledView(view: NetworkView): NetworkView {
  const w: Partial<NetworkSettings> = view.written ?? {};
  return {
    ...view,
    written: { allow: w.allow ?? [], ask: w.ask ?? [], deny: w.deny ?? [], presets: w.presets ?? [] },
    waiting: view.waiting ?? [],
    presets: view.presets ?? [],
  };
}

/** What bash's network is, in one line. */
export function bashNetworkText(view: NetworkView): string {
  const { allow, ask, deny, presets } = view.written;
  const rules = allow.length + ask.length + deny.length;
  switch (view.bash) {
    case 'none':
      return 'No network: bash reaches no host. A rule or a preset below gives it an allow-list through Paddock’s proxy.';
    case 'whole':
      return 'Whole network (bashNetwork): bash reaches every host directly; the rules below are not used for bash.';
    case 'allow_list': {
      const ticked = presets.length ? `, ${presets.length === 1 ? 'preset' : 'presets'} ${presets.join(', ')}` : '';
      return `Allow-list through Paddock’s proxy (${rules} ${rules === 1 ? 'rule' : 'rules'}${ticked}): hosts no rule names are asked about.`;
    }
  }
}

/** The list a refused save names (`network.allow[1]: …`), or presets; null when none. */
export function listOfError(message: string): RuleList | 'presets' | null {
  const m = /network\.(allow|ask|deny|presets)\b/.exec(message);
  return m ? (m[1] as RuleList | 'presets') : null;
}

/** The settings with `rule` added to `list` (trimmed; unchanged when already there). */
export function withRule(s: NetworkSettings, list: RuleList, rule: string): NetworkSettings {
  const r = rule.trim();
  return s[list].includes(r) ? s : { ...s, [list]: [...s[list], r] };
}

/** The settings without the rule at `at` of `list`. */
export const withoutRule = (s: NetworkSettings, list: RuleList, at: number): NetworkSettings => ({
  ...s,
  [list]: s[list].filter((_, i) => i !== at),
});

/** The settings with `preset` ticked or not, in the order presets are offered. */
export function withPreset(s: NetworkSettings, preset: NetworkPreset, on: boolean, order: NetworkPreset[]): NetworkSettings {
  const next = new Set(s.presets);
  if (on) next.add(preset);
  else next.delete(preset);
  return { ...s, presets: order.filter((p) => next.has(p)) };
}

/** Whether the preset waits for the user's trust (a folder's settings ticked it). */
export const presetWaits = (view: NetworkView, preset: NetworkPreset): boolean =>
  view.waiting.includes(`preset ${preset}`);
