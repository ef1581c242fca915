import { expect, it } from 'vitest';
import { startTestBaton } from '../helpers/test-baton.ts';
it('spy', async () => {
  const server = await startTestBaton();
  const ledger = server.baton.store.ledger;
  const original = ledger.resolve.bind(ledger);
  let calls = 0, lost = 0;
  ledger.resolve = async (...args: Parameters<typeof original>) => { calls++; const r = await original(...args); if (!r) lost++; return r; };
  for (let round = 0; round < 3; round++) {
  const t = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
  const m = await server.request('POST', `/v1/threads/${t.body.id}/messages`, { content: 'I need approval to process a $500 refund' });
  const callId = m.body.choices[0].message.tool_calls[0].id;
  calls = 0; lost = 0;
  let open!: () => void; const gate = new Promise<void>((r) => (open = r));
  const ps = Array.from({ length: 50 }, async (_, i) => { await gate; return fetch(`${server.url}/v1/tool-calls/${callId}/result`, { method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json', 'idempotency-key': `k${round}-${i}` }, body: JSON.stringify({ content: 'ok' }) }).then((r) => r.status); });
  open();
  const st = await Promise.all(ps);
  console.log('resolve calls', calls, 'lost', lost, st.filter((s) => s === 200).length);
  }
  await server.close();
});
