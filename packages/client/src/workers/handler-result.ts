import type { ToolInput } from '../tools/define-tool.ts';
import type { SubmitResultBody } from '../wire/ledger.ts';
import { messageOf } from './worker-failures.ts';
import type { WorkerContext, WorkerHandler } from './worker-options.ts';

/**
 * Runs a handler and turns whatever it does into the result to submit, as the tool loop does
 * for client tools: a string as is, nothing as an empty result, anything else as JSON, and a
 * throw (or a value JSON cannot carry) as an `is_error` result the model can read and react to.
 */
export async function handlerResult(handler: WorkerHandler, context: WorkerContext): Promise<SubmitResultBody> {
  const { call } = context;
  let value: unknown;
  try {
    // `then` makes a handler that throws synchronously fail like an async one.
    value = await Promise.resolve().then(() => handler(call.input as ToolInput, context));
  } catch (error) {
    return { content: messageOf(error) || `Tool '${call.name}' failed.`, is_error: true };
  }
  try {
    const content = typeof value === 'string' ? value : value === undefined ? undefined : JSON.stringify(value);
    return content === undefined ? { is_error: false } : { content, is_error: false };
  } catch (error) {
    return {
      content: `Tool '${call.name}' returned a value that cannot be sent as JSON: ${messageOf(error)}`,
      is_error: true,
    };
  }
}
