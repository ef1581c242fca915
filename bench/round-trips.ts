import { APPROVAL, SEED_TEXT } from './engine-driver.ts';
import type { HttpClient } from './load.ts';

/**
 * The round trips `npm run bench` drives (bench/run.ts): the echo ceiling's two POSTs, and Baton's
 * pause/resume through the Threads face and through the Responses face.
 */

const SEED_BODY = JSON.stringify({ role: 'user', content: SEED_TEXT });
const resultBody = (callId: string) =>
  JSON.stringify({ role: 'user', content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVAL }] });

export function echoRoundTrip(http: HttpClient) {
  const second = resultBody('call_0123456789abcdefghijklmn');
  return async () => {
    const first = await http.post('/echo', SEED_BODY);
    if (first.status !== 200) throw new Error(`echo answered ${first.status}`);
    JSON.parse(first.text);
    const next = await http.post('/echo', second);
    if (next.status !== 200) throw new Error(`echo answered ${next.status}`);
    JSON.parse(next.text);
  };
}

/** One Baton round trip: the seed message pauses on request_approval, the result resumes it. */
export async function batonRoundTrip(http: HttpClient, threadId: string): Promise<void> {
  const first = await http.post(`/v1/threads/${threadId}/messages`, SEED_BODY);
  if (first.status !== 200) throw new Error(`seed message answered ${first.status}: ${first.text.slice(0, 300)}`);
  const paused = JSON.parse(first.text);
  const choice = paused.choices?.[0];
  const callId = choice?.message?.tool_calls?.[0]?.id;
  if (choice?.finish_reason !== 'tool_use' || typeof callId !== 'string')
    throw new Error(`expected tool_use: ${first.text.slice(0, 300)}`);
  const second = await http.post(`/v1/threads/${threadId}/messages`, resultBody(callId));
  if (second.status !== 200) throw new Error(`tool_result answered ${second.status}: ${second.text.slice(0, 300)}`);
  if (JSON.parse(second.text).choices?.[0]?.finish_reason !== 'stop')
    throw new Error(`expected stop: ${second.text.slice(0, 300)}`);
}

/**
 * The same round trip through the Responses face: the seed message continues the client's
 * chain (previous_response_id), pauses on request_approval, and the function_call_output resumes it.
 */
export async function responsesRoundTrip(http: HttpClient, chain: { last: string | null }): Promise<void> {
  const first = await http.post(
    '/v1/responses',
    JSON.stringify({
      model: 'refund-desk',
      input: SEED_TEXT,
      ...(chain.last ? { previous_response_id: chain.last } : {}),
    }),
  );
  if (first.status !== 200) throw new Error(`responses seed answered ${first.status}: ${first.text.slice(0, 300)}`);
  const paused = JSON.parse(first.text);
  const call = paused.output?.find((item: { type: string }) => item.type === 'function_call');
  if (paused.baton_run?.status !== 'requires_action' || typeof call?.call_id !== 'string')
    throw new Error(`expected a function_call: ${first.text.slice(0, 300)}`);
  const second = await http.post(
    '/v1/responses',
    JSON.stringify({
      model: 'refund-desk',
      previous_response_id: paused.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: APPROVAL }],
    }),
  );
  if (second.status !== 200)
    throw new Error(`function_call_output answered ${second.status}: ${second.text.slice(0, 300)}`);
  const answered = JSON.parse(second.text);
  if (answered.status !== 'completed' || answered.baton_run?.status !== 'completed')
    throw new Error(`expected completed: ${second.text.slice(0, 300)}`);
  chain.last = answered.id;
}

export async function createThreadsOverHttp(http: HttpClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await http.post('/v1/threads', JSON.stringify({ agent: 'refund-desk' }));
    if (created.status !== 200) throw new Error(`create thread answered ${created.status}: ${created.text}`);
    ids.push(JSON.parse(created.text).id);
  }
  return ids;
}
