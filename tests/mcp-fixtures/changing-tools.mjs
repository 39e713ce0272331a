// An MCP server (the official SDK, over stdio) whose tool list changes while it runs:
// `add_tool` registers `added`, `remove_tool` removes it; the SDK sends
// notifications/tools/list_changed each time. Paddock's MCP tests start it with node.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'changing-tools', version: '1.0.0' });
let added = null;

server.registerTool('add_tool', { description: 'Adds the tool `added`.' }, async () => {
  added ??= server.registerTool('added', { description: 'Exists only after add_tool.' }, async () => ({
    content: [{ type: 'text', text: 'added ran' }],
  }));
  return { content: [{ type: 'text', text: 'added is there' }] };
});

server.registerTool('remove_tool', { description: 'Removes the tool `added`.' }, async () => {
  added?.remove();
  added = null;
  return { content: [{ type: 'text', text: 'added is gone' }] };
});

await server.connect(new StdioServerTransport());
