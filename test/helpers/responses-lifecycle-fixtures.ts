/**
 * Shared fixtures of the Responses lifecycle tests (test/responses/lifecycle*.test.ts): the weather
 * tool as the `openai` client sends it, the demo agent's refund request and its approval, and small
 * readers of what a response carries.
 */
import type OpenAI from 'openai';
import type { Response as OpenAIResponse } from 'openai/resources/responses/responses';
import { expect } from 'vitest';

export const getWeather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Get current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name' } },
    required: ['city'],
  },
  strict: null,
};

export const REFUND_REQUEST = 'I need approval to process a $500 refund';
export const APPROVED = JSON.stringify({ approved: true, approved_by: 'manager@company.com' });

export interface BatonRun {
  id: string;
  conversation_id: string;
  status: string;
  pending_tool_call_ids: string[];
}

export function batonRun(response: unknown): BatonRun {
  return (response as { baton_run: BatonRun }).baton_run;
}

export function functionCalls(response: Pick<OpenAIResponse, 'output'>) {
  return response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
}

/** A response paused on the demo agent's `request_approval`. */
export async function pausedRefund(client: OpenAI, previousResponseId?: string) {
  const response = await client.responses.create(
    previousResponseId
      ? { previous_response_id: previousResponseId, input: REFUND_REQUEST }
      : { model: 'refund-desk', input: REFUND_REQUEST },
  );
  expect(batonRun(response).status).toBe('requires_action');
  const calls = functionCalls(response);
  expect(calls).toHaveLength(1);
  return { response, callId: calls[0]!.call_id };
}
