import type { Kysely, Selectable } from 'kysely';
import type { AgentDefinition, AgentRecord, AgentVersionRecord } from '../../domain/records.ts';
import type { AgentRepo } from '../store.ts';
import { atomically } from './atomically.ts';
import type { AgentVersionsTable, AgentsTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';
import { decodeOptionalCursor, fetchSize, isObject, toPage } from './pagination.ts';

interface AgentCursor {
  name: string;
}

function isAgentCursor(value: unknown): value is AgentCursor {
  return isObject(value) && typeof value.name === 'string';
}

function toRecord(row: Selectable<AgentsTable>): AgentRecord {
  return {
    id: row.id,
    appId: row.app_id,
    name: row.name,
    version: row.version,
    definition: fromJsonText<AgentDefinition>(row.definition),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toVersionRecord(row: Selectable<AgentVersionsTable>): AgentVersionRecord {
  return {
    agentId: row.agent_id,
    version: row.version,
    definition: fromJsonText<AgentDefinition>(row.definition),
    createdAt: row.created_at,
  };
}

export function createAgentRepo(db: Kysely<Database>): AgentRepo {
  return {
    async insert(agent) {
      const definition = toJsonText(agent.definition);
      await atomically(db, async (tx) => {
        await insertOrDuplicate('agents', () =>
          tx
            .insertInto('agents')
            .values({
              id: agent.id,
              app_id: agent.appId,
              name: agent.name,
              version: agent.version,
              definition,
              created_at: agent.createdAt,
              updated_at: agent.updatedAt,
            })
            .execute(),
        );
        await insertOrDuplicate('agent_versions', () =>
          tx
            .insertInto('agent_versions')
            .values({ agent_id: agent.id, version: agent.version, definition, created_at: agent.updatedAt })
            .execute(),
        );
      });
    },

    async get(appId, name) {
      const row = await db
        .selectFrom('agents')
        .selectAll()
        .where('app_id', '=', appId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async getById(id) {
      const row = await db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async list(appId, page) {
      const after = decodeOptionalCursor(page.cursor, isAgentCursor);
      let query = db.selectFrom('agents').selectAll().where('app_id', '=', appId);
      if (after) query = query.where('name', '>', after.name);
      const rows = await query.orderBy('name').limit(fetchSize(page.limit)).execute();
      return toPage(rows.map(toRecord), page.limit, (agent) => ({ name: agent.name }));
    },

    async update(appId, name, expectedVersion, definition, updatedAt) {
      const definitionText = toJsonText(definition);
      return atomically(db, async (tx) => {
        // One conditional UPDATE: the version check and the bump are a single statement, so of
        // two writers holding the same expectedVersion exactly one matches a row.
        const row = await tx
          .updateTable('agents')
          .set((eb) => ({ definition: definitionText, version: eb('version', '+', 1), updated_at: updatedAt }))
          .where('app_id', '=', appId)
          .where('name', '=', name)
          .where('version', '=', expectedVersion)
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        await insertOrDuplicate('agent_versions', () =>
          tx
            .insertInto('agent_versions')
            .values({ agent_id: row.id, version: row.version, definition: definitionText, created_at: updatedAt })
            .execute(),
        );
        return toRecord(row);
      });
    },

    async delete(appId, name) {
      const result = await db
        .deleteFrom('agents')
        .where('app_id', '=', appId)
        .where('name', '=', name)
        .executeTakeFirst();
      return (result.numDeletedRows ?? 0n) > 0n;
    },

    async getVersion(agentId, version) {
      const row = await db
        .selectFrom('agent_versions')
        .selectAll()
        .where('agent_id', '=', agentId)
        .where('version', '=', version)
        .executeTakeFirst();
      return row && toVersionRecord(row);
    },
  };
}
