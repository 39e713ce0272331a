// Groups the grants list for the screen: built-in tools, then MCP tools by server.
import type { ToolGrantInfo } from './bindings';

export interface McpGroup {
  server: string;
  tools: { info: ToolGrantInfo; tool: string }[];
}

export interface GrantGroups {
  builtIn: ToolGrantInfo[];
  mcp: McpGroup[];
}

/**
 * Splits `mcp__<server>__<tool>` names. Known server names win (a server name may itself
 * contain "__"); otherwise the server is the part before the next "__".
 */
export function splitMcpName(name: string, servers: string[] = []): { server: string; tool: string } | null {
  if (!name.startsWith('mcp__')) return null;
  const rest = name.slice('mcp__'.length);
  const known = servers
    .filter((s) => rest.startsWith(`${s}__`))
    .sort((a, b) => b.length - a.length)[0];
  if (known !== undefined) return { server: known, tool: rest.slice(known.length + 2) };
  const at = rest.indexOf('__');
  if (at <= 0) return null;
  return { server: rest.slice(0, at), tool: rest.slice(at + 2) };
}

/** Every server named in `servers` gets a group, tools or not: one that failed to start still
 * shows, with its state. */
export function groupGrants(tools: ToolGrantInfo[], servers: string[] = []): GrantGroups {
  const builtIn: ToolGrantInfo[] = [];
  const byServer = new Map<string, McpGroup>(servers.map((server) => [server, { server, tools: [] }]));
  for (const info of tools) {
    const mcp = splitMcpName(info.name, servers);
    if (!mcp) {
      builtIn.push(info);
      continue;
    }
    const group = byServer.get(mcp.server) ?? { server: mcp.server, tools: [] };
    group.tools.push({ info, tool: mcp.tool });
    byServer.set(mcp.server, group);
  }
  const mcp = [...byServer.values()].sort((a, b) => a.server.localeCompare(b.server));
  return { builtIn, mcp };
}
