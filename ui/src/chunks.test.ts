// @vitest-environment node
// The picker window loads only its own code (issue 18: the web process's memory). A static
// import from the picker's side into the project window's code would undo that silently. And
// the scripts are ASCII, which WebKit keeps at one byte a character (see vite.config.ts).
import { build, type Rollup } from 'vite';
import { describe, expect, it } from 'vitest';

type Chunk = Rollup.OutputChunk;

async function chunks(): Promise<Chunk[]> {
  const out = await build({ logLevel: 'silent', build: { write: false } });
  const outputs = (Array.isArray(out) ? out : [out]) as Rollup.RollupOutput[];
  return outputs.flatMap((o) => o.output.filter((c): c is Chunk => c.type === 'chunk'));
}

/** Every module a window that starts at `from` loads before it renders: static imports only. */
function loaded(all: Chunk[], from: Chunk): string[] {
  const byName = new Map(all.map((c) => [c.fileName, c]));
  const seen = new Set<string>();
  const walk = (c: Chunk) => {
    if (seen.has(c.fileName)) return;
    seen.add(c.fileName);
    for (const name of c.imports) {
      const next = byName.get(name);
      if (next) walk(next);
    }
  };
  walk(from);
  return [...seen].flatMap((name) => Object.keys(byName.get(name)?.modules ?? {}));
}

describe('the bundle', () => {
  it('gives the picker none of the project window, Markdown or highlighting', async () => {
    const all = await chunks();
    const entry = all.find((c) => c.isEntry);
    const picker = all.find((c) => c.facadeModuleId?.endsWith('/picker/Picker.svelte'));
    const project = all.find((c) => c.facadeModuleId?.endsWith('/project/ProjectWindow.svelte'));
    expect(entry && picker && project).toBeTruthy();
    if (!entry || !picker || !project) return;

    const pickerModules = [...loaded(all, entry), ...loaded(all, picker)];
    const heavy = /\/src\/(project|transcript|settings|workspace|diff)\/|\/node_modules\/(marked|highlight\.js|dompurify)\//;
    expect(pickerModules.filter((m) => heavy.test(m))).toEqual([]);
    expect(pickerModules.some((m) => m.endsWith('/picker/Picker.svelte'))).toBe(true);
    // The project window does get them, so the pattern above still names real modules.
    expect(loaded(all, project).filter((m) => heavy.test(m)).length).toBeGreaterThan(10);

    // The source has characters above U+00FF ('…', '→'); the output spells them as escapes.
    const wide = /[^\t\n\r -~]/;
    expect(all.filter((c) => wide.test(c.code)).map((c) => c.fileName)).toEqual([]);
    expect(all.some((c) => c.code.includes('\\u2026'))).toBe(true);
  }, 60_000);
});
