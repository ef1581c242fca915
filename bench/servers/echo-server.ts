import Fastify from 'fastify';

/**
 * The ceiling: a bare Fastify server whose POST /echo returns the parsed JSON body. Same
 * framework, same JSON parsing and serialisation, same loopback path as Baton, and nothing else.
 * Reports its address over IPC and stops on disconnect or SIGTERM.
 */
const app = Fastify({ logger: false });
app.post('/echo', async (request) => request.body);
app.get('/healthz', async () => ({ ok: true }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ type: 'ready', url, pid: process.pid });

const stop = async () => {
  await app.close();
  process.exit(0);
};
process.on('disconnect', () => void stop());
process.on('SIGTERM', () => void stop());
