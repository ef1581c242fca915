import { useEffect, useRef } from 'preact/hooks';
import type { AnswerOutcome } from './api-types.ts';
import { STATE_LABEL } from './call-labels.ts';
import { href } from './hash-route.ts';

/** What answering did: the call's new state and, when the turn resumed, the agent's reply. */
export function AnswerOutcomeView({ outcome }: { outcome: AnswerOutcome }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The form is gone once answered; focus goes to what replaced it.
  useEffect(() => heading.current?.focus(), [outcome]);
  const message = outcome.response?.choices[0]?.message;
  const nextCalls = message?.tool_calls ?? [];
  return (
    <section class="card outcome" aria-labelledby="outcome-title">
      <h2 id="outcome-title" tabIndex={-1} ref={heading}>
        {STATE_LABEL[outcome.tool_call.state]}
      </h2>
      {outcome.resumed ? (
        <>
          <p>The agent resumed{message?.content ? ' and replied:' : '.'}</p>
          {message?.content && <blockquote class="reply">{message.content}</blockquote>}
          {nextCalls.length > 0 && (
            <p>
              It is now waiting on:{' '}
              {nextCalls.map((call, index) => (
                <span key={call.id}>
                  {index > 0 && ', '}
                  <a href={href.call(call.id)}>{call.name}</a>
                </span>
              ))}
            </p>
          )}
        </>
      ) : (
        <p>Recorded. The turn resumes once the other pending calls of the same step are answered.</p>
      )}
    </section>
  );
}
