// A project as the shell describes it, for screen tests.
import type { ProjectInfo, ProjectSettings, SandboxStatus, TrustReport } from '../lib/bindings';

export const sandbox: SandboxStatus = {
  workspace_mode: 'agent_workspace',
  workspace_root: '/home/u/proj/.agent-workspace',
  filesystem: { state: 'landlock', abi: 6 },
  network: { state: 'namespace' },
  writable_roots: ['/home/u/proj/.agent-workspace', '/tmp/paddock-x'],
  fully_confined: true,
  bash_runs: true,
  summary: 'Landlock ABI 6; network isolated (namespace)',
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

export const project = (over: Partial<ProjectInfo> = {}): ProjectInfo => ({
  path: '/home/u/proj',
  name: 'proj',
  settings,
  workspace_root: sandbox.workspace_root,
  sandbox,
  trust: trusted,
  ...over,
});
