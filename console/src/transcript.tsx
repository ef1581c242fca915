import type { MessageToolCall, ThreadMessage, ToolResultBlock } from './api-types.ts';
import { prettyJson } from './call-labels.ts';
import { href } from './hash-route.ts';
import { fullTime } from './relative-time.ts';

/** Executors meaning Baton ran the tool itself (a server tool or a fake), not a client. */
const BATON_EXECUTORS = new Set(['server', 'fake']);

interface Props {
  messages: ThreadMessage[];
  /** The call the page is about, marked so it stands out in a long conversation. */
  highlight?: string;
}

/** A conversation as the Threads API returns it: text, tool calls with their input, tool results. */
export function Transcript({ messages, highlight }: Props) {
  const calls = new Map<string, MessageToolCall>();
  for (const message of messages) for (const call of message.tool_calls ?? []) calls.set(call.id, call);
  if (messages.length === 0) return <p class="empty">No messages yet.</p>;
  return (
    <ol class="transcript">
      {messages.map((message) => (
        <li key={message.id} class={`message message-${role(message)}`}>
          <p class="message-head">
            <strong>{ROLE_LABEL[role(message)]}</strong>{' '}
            <time dateTime={message.created_at} class="muted">
              {fullTime(message.created_at)}
            </time>
          </p>
          <MessageContent content={message.content} calls={calls} highlight={highlight} />
          {message.tool_calls?.map((call) => (
            <div key={call.id} class={`tool-call${call.id === highlight ? ' highlighted' : ''}`}>
              <p class="tool-call-head">
                Calls <strong>{call.name}</strong>
                {call.executor && BATON_EXECUTORS.has(call.executor) && (
                  <span class="badge badge-server">run by Baton</span>
                )}
                {call.id === highlight ? (
                  <span class="badge badge-current">this call</span>
                ) : (
                  <a href={href.call(call.id)} class="small-link">
                    open call
                  </a>
                )}
              </p>
              <pre class="json" aria-label={`Input of ${call.name}`}>
                {prettyJson(call.input)}
              </pre>
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}

type Role = 'user' | 'assistant' | 'system' | 'tool';
const ROLE_LABEL: Record<Role, string> = {
  user: 'User',
  assistant: 'Assistant',
  system: 'System',
  tool: 'Tool results',
};

/** A user message made only of tool_result blocks is the tools speaking, not the person. */
function role(message: ThreadMessage): Role {
  if (message.role !== 'user' || !Array.isArray(message.content) || message.content.length === 0) return message.role;
  return message.content.every((block) => block.type === 'tool_result') ? 'tool' : 'user';
}

function MessageContent({
  content,
  calls,
  highlight,
}: {
  content: ThreadMessage['content'];
  calls: Map<string, MessageToolCall>;
  highlight: string | undefined;
}) {
  if (content === null || content === '') return null;
  if (typeof content === 'string') return <p class="message-text">{content}</p>;
  return (
    <>
      {content.map((block, index) => {
        if (block.type === 'text')
          return (
            <p key={index} class="message-text">
              {String(block['text'] ?? '')}
            </p>
          );
        if (block.type === 'tool_result')
          return (
            <ToolResult
              key={index}
              block={block as unknown as ToolResultBlock}
              call={calls.get(String(block['tool_call_id']))}
              highlight={highlight}
            />
          );
        return (
          <p key={index} class="muted">
            [{block.type}]
          </p>
        );
      })}
    </>
  );
}

function ToolResult({
  block,
  call,
  highlight,
}: {
  block: ToolResultBlock;
  call: MessageToolCall | undefined;
  highlight: string | undefined;
}) {
  const byBaton = call?.executor !== undefined && BATON_EXECUTORS.has(call.executor);
  return (
    <div
      class={`tool-result${block.is_error ? ' is-error' : ''}${block.tool_call_id === highlight ? ' highlighted' : ''}`}
      data-tool-call-id={block.tool_call_id}
    >
      <p class="tool-call-head">
        Result of <strong>{call?.name ?? block.tool_call_id}</strong>
        {block.is_error && <span class="badge badge-error">error</span>}
        {byBaton && <span class="badge badge-server">by Baton</span>}
        {block.synthetic && <span class="badge">synthetic</span>}
      </p>
      <pre class="json">{resultText(block.content)}</pre>
    </div>
  );
}

function resultText(content: unknown): string {
  if (content === undefined || content === null || content === '') return '(empty)';
  if (Array.isArray(content)) {
    return content
      .map((part: { type?: string; text?: string }) =>
        part.type === 'text' ? prettyJson(part.text ?? '') : `[${part.type ?? 'part'}]`,
      )
      .join('\n');
  }
  return prettyJson(content);
}
