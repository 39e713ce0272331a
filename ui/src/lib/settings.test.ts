// The settings form states the kernel's defaults; a change on either side must show here.
import { describe, expect, it } from 'vitest';
import compaction from '../../../src-tauri/crates/core/src/compaction.rs?raw';
import runner from '../../../src-tauri/crates/core/src/runner.rs?raw';
import { DEFAULT_MAX_TURNS, DEFAULT_THRESHOLD } from './settings';

const rustConst = (source: string, name: string) => Number(new RegExp(`pub const ${name}: \\w+ = (\\d+);`).exec(source)?.[1]);

describe("the settings form's defaults", () => {
  it("are the kernel's", () => {
    expect(rustConst(runner, 'DEFAULT_MAX_TURNS')).toBe(DEFAULT_MAX_TURNS);
    expect(rustConst(compaction, 'DEFAULT_THRESHOLD_PERCENT')).toBe(DEFAULT_THRESHOLD);
  });
});
