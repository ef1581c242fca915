import { BatonError } from '../../../domain/errors/baton-error.ts';
import type { Engine } from '../../../engine/index.ts';
import { appResourceName, type Resources } from '../../../resources/index.ts';
import type { Principal } from '../../../domain/principal.ts';
import type { AppRecord } from '../../../domain/records.ts';
import { matchesFilter, parseFilter, filterFields } from '../../../resources/aip/filter.ts';
import { parseOrderBy, sortKeyFor } from '../../../resources/aip/order-by.ts';
import { readPageSize } from '../../../resources/aip/page-token.ts';
import { paginate } from '../../../resources/aip/paginate.ts';
import { conversationView, type ConversationView } from './conversation-views.ts';
import { ToolCallNames } from './tool-call-names.ts';
import { conversationExportView, type ConversationExport } from '../../kit/conversation-export-view.ts';

export interface AppPath {
  project: string;
  location: string;
  app: string;
}

export interface ListConversationsQuery {
  pageSize?: unknown;
  pageToken?: string;
  filter?: string;
  orderBy?: string;
}

const FILTERABLE = new Set(['name', 'startTime', 'endTime', 'turnCount', 'entryAgent', 'source', 'inputTypes']);

/** Conversations: the readable (and deletable) record of CES sessions. */
export class ConversationService {
  constructor(
    private readonly resources: Resources,
    private readonly engine: Engine,
  ) {}

  async list(
    principal: Principal,
    path: AppPath,
    query: ListConversationsQuery,
  ): Promise<{ conversations: ConversationView[]; nextPageToken?: string }> {
    const app = await this.resources.resolveApp(principal, path);
    const pageSize = readPageSize(query.pageSize);
    const filter = parseFilter(query.filter ?? '');
    for (const field of filterFields(filter)) {
      const top = field.split('.')[0] ?? field;
      if (!FILTERABLE.has(top)) {
        throw new BatonError(
          'invalid_filter',
          `filter names '${field}', which conversations do not have; use one of ${[...FILTERABLE].join(', ')}.`,
          { param: 'filter' },
        );
      }
    }
    const order = parseOrderBy(query.orderBy, ['name', 'create_time']);
    const views = (await this.engine.sessions.list(app.id)).map(({ session, agentName }) =>
      conversationView(app, session, agentName),
    );
    const page = paginate(
      views.filter((view) => matchesFilter(filter, view)),
      {
        pageSize,
        pageToken: query.pageToken,
        query: JSON.stringify([appResourceName(app), query.filter ?? '', query.orderBy ?? '']),
        order,
        sortKey: sortKeyFor(order, (view: ConversationView, field) =>
          field === 'create_time' ? view.startTime : view.name,
        ),
        codec: this.resources.pageTokens,
      },
    );
    return { conversations: page.page, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }

  async get(principal: Principal, path: AppPath, conversationId: string): Promise<ConversationView> {
    const app = await this.resources.resolveApp(principal, path);
    const found = await this.engine.sessions.get(app.id, conversationId).catch(notFoundIn(app, conversationId));
    const names = await ToolCallNames.load(this.resources.toolCatalog, app, found.agent);
    return conversationView(app, found.session, found.conversation.agentName, found.items, names);
  }

  /** The conversation as `baton.conversation-export/v1` (`GET …/conversations/{id}:export`), recorded in the audit trail. */
  async export(principal: Principal, path: AppPath, conversationId: string): Promise<ConversationExport> {
    const app = await this.resources.resolveApp(principal, path);
    const found = await this.engine.sessions.get(app.id, conversationId).catch(notFoundIn(app, conversationId));
    const dump = await this.engine.lifecycle.exportConversation(app.id, found.conversation.id, principal.keyId);
    return conversationExportView(dump);
  }

  /** Deletes the conversation and its session; a paused turn's calls are cancelled first, a running turn refuses (409). */
  async delete(principal: Principal, path: AppPath, conversationId: string): Promise<Record<string, never>> {
    const app = await this.resources.resolveApp(principal, path);
    await this.engine.sessions.delete(app.id, conversationId, principal.keyId).catch(notFoundIn(app, conversationId));
    return {};
  }
}

/** A missing session, named as the conversation resource the client asked for. */
function notFoundIn(app: AppRecord, conversationId: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof BatonError && error.code === 'conversation_not_found') {
      throw new BatonError(
        'conversation_not_found',
        `Conversation '${appResourceName(app)}/conversations/${conversationId}' was not found; list them with GET /v1/${appResourceName(app)}/conversations.`,
      );
    }
    throw error;
  };
}
