// Builders for event streams and messages shaped like the kernel's (runner.rs, executor.rs,
// approval.rs), so reducer tests read as the run they describe.
import type { AgentEvent, ContentBlock, Message, TokenUsage, ToolCall } from '../lib/bindings';

export const usage = (input_tokens: number, output_tokens: number, cache_read_tokens = 0): TokenUsage => ({
  input_tokens,
  output_tokens,
  cache_read_tokens,
});

export const call = (id: string, name: string, input: unknown = {}): ToolCall => ({
  id,
  name,
  input,
});

export const userText = (text: string): Message => ({
  role: 'user',
  content: [{ type: 'text', text }],
});

export const assistant = (...content: ContentBlock[]): Message => ({ role: 'assistant', content });

export const text = (t: string): ContentBlock => ({ type: 'text', text: t });

export const toolUse = (c: ToolCall): ContentBlock => ({ type: 'tool_call', ...c });

export const results = (...r: [id: string, content: string, isError?: boolean][]): Message => ({
  role: 'user',
  content: r.map(([id, content, isError]) => ({
    type: 'tool_result',
    tool_call_id: id,
    content,
    is_error: isError ?? false,
  })),
});

/** What the session file keeps (kernel session/writer.rs `worth_keeping`). */
export function kept(events: AgentEvent[]): AgentEvent[] {
  const keep = (e: AgentEvent): boolean => {
    switch (e.type) {
      case 'text_delta':
      case 'thinking_delta':
      case 'turn_started':
      case 'tool_call_started':
        return false;
      // A teammate's call starts are kept: its messages are not stored.
      case 'delegated':
        return e.event.type === 'tool_call_started' || keep(e.event);
      default:
        return true;
    }
  };
  return events.filter(keep);
}

export const delegated = (callId: string, agent: string, event: AgentEvent): AgentEvent => ({
  type: 'delegated',
  agent,
  depth: 1,
  call_id: callId,
  event,
});
