// The tool card's expanded input. (Its one-line summary comes from the tool itself, in Rust.)

/** Pretty JSON for the expanded input. */
export function prettyInput(input: unknown): string {
  if (input === undefined) return '(not recorded)';
  return JSON.stringify(input, null, 2) ?? String(input);
}
