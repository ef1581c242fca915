import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { secretsKeyPath } from '../../src/tools/secrets/secrets-key.ts';
import { BatonProcess, makeWorkspace } from './baton-process.ts';

/**
 * The README's SQLite backups, taken while Baton runs and calls are pending, restore into a
 * working server: `VACUUM INTO` and the online backup API (what `sqlite3 .backup` uses) each give
 * a copy whose pending call can be answered after the restore, and whose answer resumes the turn.
 */

const SEED = 'I need approval to process a $500 refund';
const APPROVED = '{"approved": true, "approved_by": "manager@company.com"}';

describe('SQLite backups taken while calls are pending', () => {
  const workspace = makeWorkspace('baton-backup-');
  const processes: BatonProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((baton) => baton.kill()));
    workspace.remove();
  });

  type BackUp = (source: Database.Database, target: string) => Promise<unknown> | void;
  const vacuumInto: BackUp = (source, target) => void source.exec(`VACUUM INTO '${target}'`);
  const onlineBackup: BackUp = (source, target) => source.backup(target);
  it.each([
    ['VACUUM INTO', vacuumInto],
    ['the online backup API', onlineBackup],
  ] as const)(
    'restores a copy made with %s, and the pending call resumes',
    async (_name, backUp) => {
      const live = await BatonProcess.start({ dataDir: workspace.dataDir, configFile: workspace.configFile });
      processes.push(live);
      const thread = await live.request('POST', '/v1/threads', { agent: 'refund-desk' });
      const paused = await live.request('POST', `/v1/threads/${thread.body.id as string}/messages`, { content: SEED });
      const callId = paused.body.choices[0].message.tool_calls[0].id as string;

      // The backup is taken from a second connection while the server keeps running.
      const restoredDir = join(workspace.dir, `restored-${processes.length}`);
      mkdirSync(restoredDir, { recursive: true });
      const source = new Database(join(workspace.dataDir, 'baton.db'), { readonly: true });
      try {
        await backUp(source, join(restoredDir, 'baton.db'));
      } finally {
        source.close();
      }
      // Stored secrets are read with the key beside the database: it is part of the backup.
      copyFileSync(secretsKeyPath(workspace.dataDir), secretsKeyPath(restoredDir));
      await live.kill();

      const restored = await BatonProcess.start({ dataDir: restoredDir, configFile: workspace.configFile });
      processes.push(restored);
      const entry = await restored.request('GET', `/v1/tool-calls/${callId}`);
      expect(entry.body.state).toBe('pending');
      const answered = await restored.request('POST', `/v1/tool-calls/${callId}/result`, { content: APPROVED });
      expect(answered.status, answered.text).toBe(200);
      expect(answered.body.resumed).toBe(true);
      const state = await restored.request('GET', `/v1/threads/${thread.body.id as string}`);
      expect(state.body.status).toBe('idle');
      await restored.kill();
    },
    60_000,
  );
});
