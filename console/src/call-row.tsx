import type { ToolCall } from './api-types.ts';
import { KIND_LABEL, previewJson } from './call-labels.ts';
import { href } from './hash-route.ts';
import { When } from './when.tsx';
import { WorkerBadge, WorkerFacts } from './worker-facts.tsx';

/** One pending call in the inbox: what, for whom, how long it has waited, with what arguments. */
export function CallRow({ call, now }: { call: ToolCall; now: number }) {
  const metaId = `meta-${call.id}`;
  return (
    <li class="call-row" data-call-id={call.id}>
      <div class="call-row-head">
        <a class="call-name" href={href.call(call.id)} aria-describedby={metaId}>
          {call.name}
        </a>
        <span class={`badge badge-${call.kind}`}>{KIND_LABEL[call.kind]}</span>
        <WorkerBadge call={call} />
      </div>
      <dl class="call-meta" id={metaId}>
        <div>
          <dt>Agent</dt>
          <dd>{call.agent}</dd>
        </div>
        <div>
          <dt>Thread</dt>
          <dd>
            <a href={href.thread(call.thread_id)} class="mono">
              {call.thread_id}
            </a>
          </dd>
        </div>
        <div>
          <dt>Waiting since</dt>
          <dd>
            <When at={call.created_at} now={now} />
          </dd>
        </div>
        {call.deadline_at && (
          <div>
            <dt>Deadline</dt>
            <dd>
              <When at={call.deadline_at} now={now} />
            </dd>
          </div>
        )}
        <WorkerFacts call={call} now={now} />
      </dl>
      <p class="args-preview">
        <span class="visually-hidden">Arguments: </span>
        <code>{previewJson(call.input)}</code>
      </p>
    </li>
  );
}
