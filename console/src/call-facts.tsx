import type { ToolCall } from './api-types.ts';
import { href } from './hash-route.ts';
import { When } from './when.tsx';
import { WorkerFacts } from './worker-facts.tsx';

/**
 * Who, where and when of a call, as a description list. `now` is the page's clock, so the facts
 * and the answer section agree on whether a worker's lease still holds the call.
 */
export function CallFacts({ call, now }: { call: ToolCall; now: number }) {
  return (
    <dl class="facts">
      <div>
        <dt>Agent</dt>
        <dd>{call.agent}</dd>
      </div>
      <div>
        <dt>Thread</dt>
        <dd>
          <a class="mono" href={href.thread(call.thread_id)}>
            {call.thread_id}
          </a>
        </dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          <When at={call.created_at} now={now} />
        </dd>
      </div>
      <div>
        <dt>Deadline</dt>
        <dd>
          {call.deadline_at ? (
            <>
              <When at={call.deadline_at} now={now} />{' '}
              <span class="muted">(then: {call.timeout_policy.replace('_', ' ')})</span>
            </>
          ) : (
            'None'
          )}
        </dd>
      </div>
      {call.submitted_at && (
        <div>
          <dt>Answered</dt>
          <dd>
            <When at={call.submitted_at} now={now} />
            {call.submitted_by && <span class="muted"> by {call.submitted_by}</span>}
          </dd>
        </div>
      )}
      <WorkerFacts call={call} now={now} />
    </dl>
  );
}
