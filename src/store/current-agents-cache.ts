import type { AgentRecord } from '../domain/records.ts';
import type { Signals } from './signals.ts';
import type { AgentRepo } from './store.ts';

/** How long a looked-up agent is trusted without reading it again (the bound where notices do not cross processes). */
export const AGENT_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 1_000;

/**
 * The agent repository, with `getById` (the current version of a conversation's agent, read
 * by every new turn) kept in memory for a second. Any agent write through this process forgets
 * every cached agent at once and tells the other processes on the database, which forget theirs
 * when the notice arrives (PostgreSQL, milliseconds). Where notices do not cross processes
 * (several SQLite processes on one file), an edit reaches the others within AGENT_CACHE_TTL_MS.
 * Agent writes are rare; clearing everything keeps the rule simple.
 */
export function cachingCurrentAgents(agents: AgentRepo, signals: Signals): AgentRepo {
  const entries = new Map<string, { agent: AgentRecord; expiresAt: number }>();
  signals.subscribe('agents', () => entries.clear());
  const changed = (appId: string) => {
    entries.clear();
    signals.publish('agents', appId);
  };
  return {
    ...agents,
    async getById(id) {
      const now = Date.now();
      const cached = entries.get(id);
      if (cached && cached.expiresAt > now) return cached.agent;
      const agent = await agents.getById(id);
      if (!agent) {
        entries.delete(id);
        return undefined;
      }
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(id, { agent, expiresAt: now + AGENT_CACHE_TTL_MS });
      return agent;
    },
    async insert(agent) {
      try {
        await agents.insert(agent);
      } finally {
        changed(agent.appId);
      }
    },
    async update(appId, name, expectedVersion, definition, updatedAt) {
      try {
        return await agents.update(appId, name, expectedVersion, definition, updatedAt);
      } finally {
        changed(appId);
      }
    },
    async delete(appId, name) {
      try {
        return await agents.delete(appId, name);
      } finally {
        changed(appId);
      }
    },
  };
}
