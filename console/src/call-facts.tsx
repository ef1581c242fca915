import type { ToolCall } from './api-types.ts';
import { href } from './hash-route.ts';
import { fullTime, relativeTime, useNow } from './relative-time.ts';

/** Who, where and when of a call, as a description list. */
export function CallFacts({ call }: { call: ToolCall }) {
  const now = useNow();
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
          <time dateTime={call.created_at} title={fullTime(call.created_at)}>
            {relativeTime(call.created_at, now)}
          </time>
        </dd>
      </div>
      <div>
        <dt>Deadline</dt>
        <dd>
          {call.deadline_at ? (
            <>
              <time dateTime={call.deadline_at} title={fullTime(call.deadline_at)}>
                {relativeTime(call.deadline_at, now)}
              </time>{' '}
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
            <time dateTime={call.submitted_at} title={fullTime(call.submitted_at)}>
              {relativeTime(call.submitted_at, now)}
            </time>
            {call.submitted_by && <span class="muted"> by {call.submitted_by}</span>}
          </dd>
        </div>
      )}
    </dl>
  );
}
