// @vitest-environment node
// The picker window loads only its own code (issue 18: the web process's memory), and the
// project window loads Markdown and highlighting only when it first shows something to render.
// A static import would undo either silently. And
// the scripts are ASCII, which WebKit keeps at one byte a character (see vite.config.ts).
import { build, type Rollup } from 'vite';
import { describe, expect, it } from 'vitest';

type Chunk = Rollup.OutputChunk;

async function chunks(): Promise<Chunk[]> {
  // ui/, wherever vitest was started from (vite would take the working directory).
  const root = decodeURIComponent(new URL('..', import.meta.url).pathname);
  const out = await build({ root, logLevel: 'silent', build: { write: false } });
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
  it('gives the picker none of the project window, and neither window Markdown or highlighting at load', async () => {
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
    // The project window does get its own, so the pattern above still names real modules.
    const projectModules = [...loaded(all, entry), ...loaded(all, project)];
    expect(projectModules.filter((m) => heavy.test(m)).length).toBeGreaterThan(10);

    // Markdown and highlighting wait for the first transcript, diff or preview (lib/lazy.svelte.ts).
    const renderers = /\/node_modules\/(marked|highlight\.js|dompurify)\//;
    expect(projectModules.filter((m) => renderers.test(m))).toEqual([]);
    const everything = all.flatMap((c) => Object.keys(c.modules));
    expect(everything.filter((m) => renderers.test(m)).length).toBeGreaterThan(3);

    // The source has characters above U+00FF ('…', '→'); the output spells them as escapes.
    const wide = /[^\t\n\r -~]/;
    expect(all.filter((c) => wide.test(c.code)).map((c) => c.fileName)).toEqual([]);
    expect(all.some((c) => c.code.includes('\\u2026'))).toBe(true);
  }, 60_000);
});
