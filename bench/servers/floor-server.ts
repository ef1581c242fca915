import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

/**
 * The floor: the least work the same durable pause needs, hand-written, to measure Baton against.
 * The same three requests and wire shapes as Threads (create a thread; user text → `tool_use`;
 * `tool_result` → the answer), on Fastify and better-sqlite3 opened as Baton opens it (WAL,
 * `synchronous=NORMAL`), with one transaction per request, prepared statements, a hashed bearer
 * key checked on every request and a compare-and-set of the ledger row. No model, no validation
 * beyond that, no idempotency, no streams. Reports its address over IPC as the other bench
 * servers do, and answers `create-threads` (fresh idle threads) like Baton's child.
 *
 * For the floor phase (bench/floor.ts) it also answers, as bench/servers/baton-server.ts does:
 * `memory`, `profile-start` / `profile-stop { file }`, `sql-stats-start` / `sql-stats-stop`,
 * `wal-frames { reset }`, and with BENCH_COUNT_STATEMENTS=1 `statements` and `commits`
 * (bench/statement-counter.ts). PORT
 * sets its port (default: any free one), for the start-up timing, which spawns it without IPC.
 */

/**
 * The bench's admin key (test/helpers/test-baton.ts's ADMIN_KEY), written out: importing it would
 * load Baton's whole server into the floor and count it in the floor's start-up and memory.
 */
const ADMIN_KEY = 'bk_test_admin_key_0123456789';
// The bench's own modules (pg comes with the counter) only when asked for, for the same reason.
const counter = process.env.BENCH_COUNT_STATEMENTS === '1' ? await import('../statement-counter.ts') : null;
counter?.countStatements();

const dir = mkdtempSync(join(tmpdir(), 'baton-floor-'));
const db = new Database(join(dir, 'floor.db'));
db.pragma('busy_timeout = 5000');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  create table keys (hash text primary key, app_id text not null);
  create table threads (id text primary key, app_id text not null, version integer not null, pending_call text);
  create table items (seq integer primary key autoincrement, thread_id text not null, payload text not null);
  create index items_thread on items (thread_id, seq);
  create table ledger (id text primary key, thread_id text not null, state text not null, arguments text not null,
    result text);
`);
const hash = (key: string) => createHash('sha256').update(key).digest('hex');
db.prepare('insert into keys (hash, app_id) values (?, ?)').run(hash(ADMIN_KEY), 'app_floor');

const findKey = db.prepare<[string], { app_id: string }>('select app_id from keys where hash = ?');
const insertThread = db.prepare('insert into threads (id, app_id, version, pending_call) values (?, ?, 0, null)');
const findThread = db.prepare<[string, string], { version: number; pending_call: string | null }>(
  'select version, pending_call from threads where id = ? and app_id = ?',
);
const moveThread = db.prepare<[string | null, string, number]>(
  'update threads set pending_call = ?, version = version + 1 where id = ? and version = ?',
);
const appendItem = db.prepare('insert into items (thread_id, payload) values (?, ?)');
const insertCall = db.prepare("insert into ledger (id, thread_id, state, arguments) values (?, ?, 'pending', ?)");
const resolveCall = db.prepare<[string, string, string]>(
  "update ledger set state = 'completed', result = ? where id = ? and thread_id = ? and state = 'pending'",
);

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;
const ARGUMENTS = { action: 'refund', amount: 500, reason: 'I need approval to process a $500 refund' };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The user's text pauses on one client call, in one transaction. */
const pause = db.transaction((threadId: string, appId: string, text: string) => {
  const thread = findThread.get(threadId, appId);
  if (!thread) throw new HttpError(404, 'thread not found');
  if (thread.pending_call !== null) throw new HttpError(409, 'tool calls pending');
  const callId = newId('call');
  appendItem.run(threadId, JSON.stringify({ role: 'user', content: text }));
  appendItem.run(threadId, JSON.stringify({ role: 'assistant', tool_calls: [{ id: callId, input: ARGUMENTS }] }));
  insertCall.run(callId, threadId, JSON.stringify(ARGUMENTS));
  if (moveThread.run(callId, threadId, thread.version).changes !== 1) throw new HttpError(409, 'concurrent update');
  return callId;
});

/** The result resumes: compare-and-set of the ledger row, the result and the answer, in one transaction. */
const resume = db.transaction((threadId: string, appId: string, callId: string, content: string) => {
  const thread = findThread.get(threadId, appId);
  if (!thread) throw new HttpError(404, 'thread not found');
  if (resolveCall.run(content, callId, threadId).changes !== 1) throw new HttpError(409, 'call not pending');
  const answer = `Here is the tool result:\n- request_approval: ${content}`;
  appendItem.run(threadId, JSON.stringify({ role: 'user', tool_result: { tool_call_id: callId, content } }));
  appendItem.run(threadId, JSON.stringify({ role: 'assistant', content: answer }));
  if (moveThread.run(null, threadId, thread.version).changes !== 1) throw new HttpError(409, 'concurrent update');
  return answer;
});

const app = Fastify({ logger: false });
app.addHook('onRequest', async (request, reply) => {
  if (request.url === '/healthz') return;
  const header = request.headers.authorization ?? '';
  const key = header.startsWith('Bearer ') ? findKey.get(hash(header.slice(7))) : undefined;
  if (!key) return reply.status(401).send({ error: { code: 'invalid_api_key', message: 'bad key' } });
  (request as unknown as { appId: string }).appId = key.app_id;
});
app.setErrorHandler(async (error, _request, reply) => {
  const status = error instanceof HttpError ? error.status : 500;
  return reply.status(status).send({ error: { message: error instanceof Error ? error.message : String(error) } });
});
const appOf = (request: unknown) => (request as { appId: string }).appId;

app.get('/healthz', async () => ({ ok: true }));
app.post('/v1/threads', async (request) => {
  const id = newId('thread');
  insertThread.run(id, appOf(request));
  return { id, object: 'thread', status: 'idle', pending_tool_calls: [] };
});
app.post<{ Params: { id: string }; Body: { content: unknown } }>('/v1/threads/:id/messages', async (request) => {
  const threadId = request.params.id;
  const content = request.body.content;
  const base = { id: newId('msg'), object: 'thread.message', thread_id: threadId };
  if (typeof content === 'string') {
    const callId = pause(threadId, appOf(request), content);
    return {
      ...base,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: callId, type: 'function', name: 'request_approval', input: ARGUMENTS }],
          },
          finish_reason: 'tool_use',
        },
      ],
    };
  }
  const [result] = content as { tool_call_id: string; content: string }[];
  if (!result) throw new HttpError(400, 'content must hold a tool_result');
  const answer = resume(threadId, appOf(request), result.tool_call_id, result.content);
  return { ...base, choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }] };
});

const url = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });

let inspector: Session | null = null;

async function handle(request: {
  id: number;
  cmd: string;
  count?: number;
  file?: string;
  reset?: boolean;
}): Promise<unknown> {
  switch (request.cmd) {
    case 'create-threads': {
      const ids: string[] = [];
      for (let i = 0; i < (request.count ?? 1); i++) {
        const id = newId('thread');
        insertThread.run(id, 'app_floor');
        ids.push(id);
      }
      return ids;
    }
    case 'memory':
      return process.memoryUsage();
    case 'profile-start':
      inspector = new Session();
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 500 });
      await inspector.post('Profiler.start');
      return null;
    case 'profile-stop': {
      if (!inspector || !request.file) throw new Error('profile-stop without profile-start or file');
      const { profile } = await inspector.post('Profiler.stop');
      inspector.disconnect();
      inspector = null;
      writeFileSync(request.file, JSON.stringify(profile));
      return request.file;
    }
    case 'sql-stats-start':
      (await import('../sql-stats.ts')).startSqlStats();
      return null;
    case 'sql-stats-stop':
      return (await import('../sql-stats.ts')).stopSqlStats();
    case 'statements':
      return counter?.statementsSoFar() ?? null;
    case 'commits':
      return counter?.commitsSoFar() ?? null;
    case 'wal-frames':
      if (request.reset) db.pragma('wal_checkpoint(TRUNCATE)');
      return (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
    default:
      throw new Error(`unknown command ${request.cmd}`);
  }
}

process.on('message', (request: Parameters<typeof handle>[0]) => {
  handle(request).then(
    (result) => process.send?.({ id: request.id, result }),
    (error: unknown) =>
      process.send?.({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.send?.({ type: 'ready', url, pid: process.pid });

const stop = async () => {
  await app.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('disconnect', () => void stop());
process.on('SIGTERM', () => void stop());
