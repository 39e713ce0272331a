import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolProbeReport } from '../lib/bindings';
import ToolProbe from './ToolProbe.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const report = (over: Partial<ToolProbeReport>): ToolProbeReport => ({
  mode: 'native',
  streaming: true,
  first_token_ms: 120,
  total_ms: 900,
  context_window: 32768,
  window_source: 'server',
  advice: [],
  detail: 'a native call of get_time with {}',
  ...over,
});

beforeEach(() => vi.resetAllMocks());

describe('ToolProbe', () => {
  it('asks the server with the current provider, address and model, and says what came back', async () => {
    api.testToolCalling.mockResolvedValue(report({}));
    render(ToolProbe, { props: { provider: 'openai-compatible', baseUrl: 'http://localhost:8080/v1', model: ' qwen ' } });
    await fireEvent.click(screen.getByTestId('test-tool-calling'));
    const result = await screen.findByTestId('tool-probe-result');
    expect(api.testToolCalling).toHaveBeenCalledWith('openai-compatible', 'http://localhost:8080/v1', 'qwen');
    expect(result).toHaveAttribute('data-mode', 'native');
    expect(result).toHaveTextContent('natively');
    expect(result).toHaveTextContent('32,768 tokens (server)');
  });

  it('shows the advice when calls are not native, and the error when the probe fails', async () => {
    api.testToolCalling.mockResolvedValueOnce(
      report({ mode: 'none', streaming: false, advice: ['start llama-server with --jinja'] }),
    );
    render(ToolProbe, { props: { provider: 'openai-compatible', baseUrl: null, model: 'm' } });
    await fireEvent.click(screen.getByTestId('test-tool-calling'));
    const result = await screen.findByTestId('tool-probe-result');
    expect(result).toHaveAttribute('data-mode', 'none');
    expect(result).toHaveTextContent('--jinja');
    expect(result).toHaveTextContent('without streaming');
    api.testToolCalling.mockRejectedValueOnce({ code: 'provider', message: 'server unreachable' });
    await fireEvent.click(screen.getByTestId('test-tool-calling'));
    await vi.waitFor(() =>
      expect(screen.getByTestId('tool-probe-result')).toHaveTextContent('server unreachable'),
    );
  });

  it('says when the tools went in the prompt because the server refused them', async () => {
    api.testToolCalling.mockResolvedValue(
      report({
        mode: 'prompted',
        detail: 'with the tools described in the prompt, a text call of get_time with {}',
        advice: ['llama-server was started without --jinja, so it refuses the tools parameter'],
      }),
    );
    render(ToolProbe, { props: { provider: 'openai-compatible', baseUrl: null, model: 'm' } });
    await fireEvent.click(screen.getByTestId('test-tool-calling'));
    const result = await screen.findByTestId('tool-probe-result');
    expect(result).toHaveAttribute('data-mode', 'prompted');
    expect(result).toHaveTextContent('describes the tools in the prompt');
    expect(result).toHaveTextContent('without --jinja');
  });

  it('says when runs use prompted tool calls from now on, and why', async () => {
    api.testToolCalling.mockResolvedValue(
      report({
        mode: 'text_fallback',
        prompted_from_now_on: "the server did not parse the model's tool call (it came back as text)",
      }),
    );
    render(ToolProbe, { props: { provider: 'openai-compatible', baseUrl: null, model: 'm' } });
    await fireEvent.click(screen.getByTestId('test-tool-calling'));
    const remembered = await screen.findByTestId('tool-probe-remembered');
    expect(remembered).toHaveTextContent('from now on');
    expect(remembered).toHaveTextContent('came back as text');
  });

  it('needs a model', () => {
    render(ToolProbe, { props: { provider: 'anthropic', baseUrl: null, model: '  ' } });
    expect(screen.getByTestId('test-tool-calling')).toBeDisabled();
  });
});
