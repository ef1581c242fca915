import { createInterface } from 'node:readline/promises';
import { stdin, stdout } from 'node:process';
import { Baton, BatonError, type RunCall, type ToolContext } from '@baton/client';

/**
 * `baton chat AGENT`: a person talks to the agent and answers each client-executed call at a
 * prompt — the seeds' "human approval" case, for real. The SDK's runner does the loop: every
 * answer of a step goes back in one message, and a call that needs approval is decided here too.
 * Type `!` before an answer to send it as an error.
 */
export async function runChat(args: string[]): Promise<number> {
  const agent = args[0];
  if (!agent) {
    console.error('Usage: baton chat AGENT');
    return 1;
  }
  const apiKey = process.env.BATON_API_KEY ?? process.env.BATON_ADMIN_KEY;
  if (!apiKey) {
    console.error('Set BATON_API_KEY to an API key of the server (the first admin key is printed at its first start).');
    return 1;
  }
  const baton = new Baton({ baseURL: process.env.BATON_URL ?? 'http://127.0.0.1:8080', apiKey });
  const prompt = createInterface({ input: stdin, output: stdout });
  // The runner runs a step's handlers at once; a person answers one prompt at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(ask: () => Promise<T>): Promise<T> => {
    const next = queue.then(ask);
    queue = next.catch(() => {});
    return next;
  };

  const answerCall = (input: unknown, context: ToolContext): Promise<string> =>
    oneAtATime(async () => {
      console.log(`\n[tool call ${context.callId}] ${context.toolName} ${JSON.stringify(input, null, 2)}`);
      const answer = await prompt.question(`result for ${context.toolName} (text or JSON; prefix ! for an error)> `);
      // A thrown error is sent as an `is_error` result carrying its message.
      if (answer.startsWith('!')) throw new Error(answer.slice(1).trim());
      return answer;
    });

  const decide = (call: RunCall): Promise<{ approve: boolean; reason?: string }> =>
    oneAtATime(async () => {
      console.log(`\n[approval ${call.id}] ${call.name} ${JSON.stringify(call.input, null, 2)}`);
      const answer = (await prompt.question(`approve ${call.name}? (y, or a reason to deny)> `)).trim();
      return /^y(es)?$/i.test(answer)
        ? { approve: true }
        : { approve: false, reason: answer || 'denied at the terminal' };
    });

  try {
    const thread = await baton.threads.create({ agent });
    console.log(`Thread ${thread.id} with agent ${agent}. Type a message; an empty line or Ctrl+D quits.`);
    for (;;) {
      const line = await prompt.question('you> ').catch(() => '');
      if (line.trim() === '') return 0;
      await baton.threads.run(thread.id, line, {
        fallback: answerCall,
        onApproval: decide,
        // A person may take their time.
        handlerTimeoutMs: Number.POSITIVE_INFINITY,
        onEvent: (event) => {
          if (event.type === 'message' && event.message.text) console.log(`${agent}> ${event.message.text}`);
        },
      });
    }
  } catch (error) {
    console.error(error instanceof BatonError ? `Baton: ${error.message}` : error);
    return 1;
  } finally {
    prompt.close();
  }
}
