import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerClientCalls,
  collect,
  itemsOf,
  runOf,
  startDesk,
  type DeskBaton,
  type Item,
} from './server-call-fixtures.ts';

/**
 * Server calls that wait for a person's approval, on the Responses face: the `baton:tool_call`
 * carries `approval` ({status, decide_url}), `baton_run.pending_approval_ids` lists them, the
 * client cannot answer them, and GET shows the outcome once the decision resumed the turn.
 */
describe('Responses face: server calls waiting for approval', () => {
  let desk: DeskBaton;
  beforeAll(async () => {
    desk = await startDesk();
  });
  afterAll(async () => desk.server.close());

  it('shows the pending approval; after POST /v1/tool-calls/{id}/decision, GET shows the result and the final text', async () => {
    const { client, server, tools } = desk;
    const before = tools.count('refund');
    const paused = await client.responses.create({ model: 'desk', input: 'refund me' });
    expect(paused.status).toBe('completed');
    expect(itemsOf(paused)).toHaveLength(1);
    const call = itemsOf(paused)[0] as Item;
    expect(call).toMatchObject({ type: 'baton:tool_call', name: 'refund', executor: 'server', status: 'completed' });
    expect(call.approval).toEqual({ status: 'pending', decide_url: `/v1/tool-calls/${call.call_id}/decision` });
    expect(runOf(paused)).toMatchObject({
      status: 'requires_action',
      pending_tool_call_ids: [],
      pending_approval_ids: [call.call_id],
    });

    // Nothing for the client to send meanwhile: new input is refused with what to do instead.
    const early = await server.request('POST', '/v1/responses', {
      model: 'desk',
      previous_response_id: paused.id,
      input: 'any news?',
    });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: 'approvals_pending',
      param: 'previous_response_id',
      pending_approval_ids: [call.call_id],
    });
    expect(early.body.error.message).toContain(call.approval.decide_url);
    const asOutput = await server.request('POST', '/v1/responses', {
      previous_response_id: paused.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'approved by me' }],
    });
    expect(asOutput.status).toBe(400);
    expect(asOutput.body.error).toMatchObject({
      code: 'server_executed_call',
      param: 'input[0]',
      type: 'invalid_request_error',
    });
    expect(asOutput.body.error.message).toContain(call.approval.decide_url);
    expect(tools.count('refund')).toBe(before);

    const decided = await server.request('POST', call.approval.decide_url, { approve: true });
    expect(decided.status).toBe(200);
    expect(decided.body.resumed).toBe(true);
    expect(tools.count('refund')).toBe(before + 1);

    const finished = await client.responses.retrieve(paused.id);
    expect(finished.status).toBe('completed');
    expect(itemsOf(finished).map((item) => item.type)).toEqual(['baton:tool_call', 'baton:tool_result', 'message']);
    expect(itemsOf(finished)[0]?.approval).toEqual({ status: 'approved', decide_url: null });
    expect(itemsOf(finished)[1]).toMatchObject({
      call_id: call.call_id,
      output: expect.stringContaining('"amount":5'),
      is_error: false,
    });
    expect(finished.output_text).toContain('Done');
    expect(runOf(finished)).toMatchObject({ status: 'completed', pending_tool_call_ids: [], pending_approval_ids: [] });
  });

  it('a denied approval shows as denied, with an error result', async () => {
    const paused = await desk.client.responses.create({ model: 'desk', input: 'refund, maybe' });
    const call = itemsOf(paused)[0] as Item;
    expect(
      (await desk.server.request('POST', call.approval.decide_url, { approve: false, reason: 'no receipt' })).status,
    ).toBe(200);
    const finished = await desk.client.responses.retrieve(paused.id);
    expect(itemsOf(finished)[0]?.approval).toEqual({ status: 'denied', decide_url: null });
    expect(itemsOf(finished)[1]).toMatchObject({
      type: 'baton:tool_result',
      is_error: true,
      output: expect.stringContaining('no receipt'),
    });
    expect(finished.output_text).toContain('Failed');
  });

  it('streams the pending approval on the call item itself', async () => {
    const events = await collect(
      await desk.client.responses.create({ model: 'desk', input: 'refund please', stream: true }),
    );
    const done = events
      .filter((event) => event.type === 'response.output_item.done')
      .map((event) => event.item as Item);
    expect(done).toHaveLength(1);
    expect(done[0]?.approval).toEqual({ status: 'pending', decide_url: `/v1/tool-calls/${done[0]?.call_id}/decision` });
    const last = events[events.length - 1] as Item;
    expect(last.type).toBe('response.completed');
    expect(itemsOf(last.response)).toEqual(done);
  });

  it('a client call next to an approval: outputs wait for the decision, then resume the turn with both results', async () => {
    const { client, server, tools } = desk;
    const before = tools.count('refund');
    const paused = await client.responses.create({ model: 'desk', input: 'weather and refund' });
    const output = itemsOf(paused);
    expect(output.map((item) => item.type)).toEqual(['function_call', 'baton:tool_call']);
    const approval = output[1] as Item;
    expect(runOf(paused)).toMatchObject({
      pending_tool_call_ids: [output[0]?.call_id],
      pending_approval_ids: [approval.call_id],
    });

    const tooEarly = await answerClientCalls(client, paused.id, output).then(
      () => null,
      (error: unknown) => error,
    );
    expect(tooEarly).toMatchObject({ status: 409, code: 'approvals_pending', param: 'previous_response_id' });

    const decided = await server.request('POST', approval.approval.decide_url, { approve: true });
    expect(decided.body.resumed).toBe(false);
    // The tool ran; its result shows at once, though it enters the transcript with the client's output.
    const waiting = await client.responses.retrieve(paused.id);
    expect(itemsOf(waiting).map((item) => item.type)).toEqual([
      'function_call',
      'baton:tool_call',
      'baton:tool_result',
    ]);
    expect(itemsOf(waiting)[1]?.approval).toEqual({ status: 'approved', decide_url: null });
    expect(runOf(waiting)).toMatchObject({ pending_tool_call_ids: [output[0]?.call_id], pending_approval_ids: [] });

    const second = await answerClientCalls(client, paused.id, output);
    expect(second.status).toBe('completed');
    expect(second.output_text).toContain('Done');
    expect(tools.count('refund')).toBe(before + 1);
    expect(itemsOf(await client.responses.retrieve(paused.id))).toEqual(itemsOf(waiting));
  });
});
