// A project as the shell describes it, for screen tests.
import type { ManagedInfo, ProjectInfo, ProjectSettings, SandboxStatus, TrustReport } from '../lib/bindings';

export const sandbox: SandboxStatus = {
  workspace_mode: 'agent_workspace',
  workspace_root: '/home/u/proj/.agent-workspace',
  engine: { engine: 'bubblewrap', version: '0.8.0' },
  protections: (['writes', 'secrets', 'sockets', 'network', 'lifetime', 'terminal'] as const).map((kind) => ({
    kind,
    state: 'enforced' as const,
    detail: `${kind} held`,
  })),
  writable_roots: ['/home/u/proj/.agent-workspace', '/tmp/paddock-x'],
  readable_roots: ['/home/u/proj', '/home/u/.cargo'],
  engines: [
    { engine: 'bubblewrap', works: true, why: '' },
    { engine: 'namespaces', works: true, why: '' },
    { engine: 'landlock', works: true, why: '' },
  ],
  fully_confined: true,
  bash_runs: true,
  summary: 'bubblewrap 0.8.0: every protection enforced',
};

export const settings: ProjectSettings = {
  version: 1,
  provider: 'anthropic',
  model: 'claude-x',
  preset: 'readonly',
  tools: { bash: 'ask' },
  workspace: 'agent_workspace',
  bashNetwork: false,
  allowUnconfinedBash: false,
};

/** A folder whose settings are trusted (nothing pending). */
export const trusted: TrustReport = { folder: '/home/u/proj', pending: [], trusted: [], declined: false };

/** No managed policy on the machine. */
export const unmanaged: ManagedInfo = {
  files: [],
  summary: [],
  deny_rules: [],
  require_wall: false,
  forbid_bash_network: false,
  network_fixed: false,
};

export const project = (over: Partial<ProjectInfo> = {}): ProjectInfo => ({
  path: '/home/u/proj',
  name: 'proj',
  settings,
  workspace_root: sandbox.workspace_root,
  sandbox,
  trust: trusted,
  managed: unmanaged,
  ...over,
});
