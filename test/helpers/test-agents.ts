import type { AgentWire } from '../../src/resources/agents/agent-config-form.ts';

/** Scripted programs and agents shared by the Threads tests. */
export const weatherTool = {
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

export const testPrograms = {
  parallel: {
    rules: [
      {
        when: { user: 'weather' },
        calls: [
          { tool: 'get_weather', arguments: { city: 'SF' } },
          { tool: 'get_weather', arguments: { city: 'NYC' } },
        ],
      },
      { when: { tool_error: true }, say: 'A tool failed: {{result}}' },
      { when: { tool_result: 'get_weather' }, say: 'Weather report: {{result}}' },
      { say: 'Ask me about the weather.' },
    ],
  },
  invalid: {
    rules: [
      { when: { user: 'bad' }, call: { tool: 'get_weather', arguments: { town: 'SF' } } },
      { when: { user: 'ghost' }, call: { tool: 'no_such_tool', arguments: {} } },
      { when: { tool_error: true }, say: 'I could not call the tool correctly.' },
      { say: 'fine' },
    ],
  },
  flaky: {
    rules: [
      { when: { user: 'flaky' }, fail: { status: 503, message: 'upstream overloaded', retry_after_ms: 1 } },
      { say: 'recovered' },
    ],
  },
};

export const weatherAgent: AgentWire = { name: 'weather', model: 'scripted:parallel', tools: [weatherTool] };
export const invalidAgent: AgentWire = { name: 'clumsy', model: 'scripted:invalid', tools: [weatherTool] };
export const flakyAgent: AgentWire = { name: 'flaky', model: 'scripted:flaky', tools: [] };
