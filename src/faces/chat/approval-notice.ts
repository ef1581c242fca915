import type { LedgerEntryRecord } from '../../domain/records.ts';

/**
 * What a chat client sees while a server call waits for a person's approval. Chat Completions has
 * no way to say "paused": a reply is text and calls the client runs, and an approval is neither.
 * So the reply is an assistant message (finish_reason `stop`) that names each waiting call and
 * the ledger endpoint that decides it; the request never waits for the person.
 *
 * The client sends that message back with its next request, as clients keep the transcript. Its
 * decide URLs are how Baton finds the conversation again: the request then goes on there (see the
 * engine's `ChatExchanges`), so the model sees the approved call's result.
 */

const DECIDE_URL = /POST \/v1\/tool-calls\/([A-Za-z0-9_-]{1,200})\/decision/g;

export function approvalNotice(approvals: readonly LedgerEntryRecord[]): string {
  const lines = approvals.map(
    (entry) =>
      `Waiting for approval: Baton runs \`${entry.toolName}\` with ${JSON.stringify(entry.arguments)} only once a ` +
      `person approves it. Decide with POST /v1/tool-calls/${entry.id}/decision and {"approve": true} or ` +
      `{"approve": false, "reason": "…"} (or in the console).`,
  );
  return [...lines, 'Then send another message to go on: the reply tells what came of it.'].join('\n');
}

/** The call ids of the approvals a notice (somewhere in `text`) names, in order. */
export function approvalIdsIn(text: string): string[] {
  return [...text.matchAll(DECIDE_URL)].map((match) => match[1] ?? '').filter((id) => id !== '');
}
