import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';

/**
 * Guest-side helpers, evaluated in each fresh context before the tool's code.
 *
 * The host keeps handles to these functions, so whatever the tool's code later does to the
 * globals (replacing JSON.parse, patching String.prototype) cannot change which function the host
 * calls. They are pure guest JavaScript: the sandbox still has no host functions at all.
 *
 * - parse / stringify: the pristine JSON functions, for inputs in and the result out.
 * - describe(error, max): name, message and stack of anything thrown, as clipped strings; reading
 *   them may run guest getters, so it runs under the deadline like all guest code.
 * - console.log / info / warn / error / debug: captured into a bounded in-guest buffer that the
 *   host reads after the run (readLogs); nothing is printed on the server.
 */

/** At most this many console lines are kept, each clipped, with a total character budget. */
const MAX_LOG_LINES = 100;
const MAX_LOG_LINE_CHARS = 1000;
const MAX_LOG_TOTAL_CHARS = 16 * 1024;
/** Error messages and stacks are clipped to this many characters. */
export const MAX_ERROR_TEXT_CHARS = 2000;

const PRELUDE_SOURCE = `(() => {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const slice = String.prototype.slice;
  const apply = Reflect.apply;
  const clip = (text, max) => (text.length > max ? apply(slice, text, [0, max]) + '…' : text);
  const show = (value) => {
    if (typeof value === 'string') return value;
    try {
      const json = stringify(value);
      if (typeof json === 'string') return json;
    } catch {}
    try { return String(value); } catch { return '(unprintable value)'; }
  };
  const describe = (error, max) => {
    let name = '', message = '', stack = '';
    try {
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        const n = error.name, m = error.message, s = error.stack;
        if (typeof n === 'string') name = n;
        message = typeof m === 'string' ? m : show(error);
        if (typeof s === 'string') stack = s;
      } else {
        message = show(error);
      }
    } catch {
      message = '(the thrown value could not be read)';
    }
    return [clip(name, 200), clip(message, max), clip(stack, max)];
  };
  const lines = [];
  let chars = 0, dropped = 0;
  const write = (level, args) => {
    let line = level === 'log' ? '' : level + ': ';
    for (let i = 0; i < args.length; i++) line += (i > 0 ? ' ' : '') + show(args[i]);
    line = clip(line, ${MAX_LOG_LINE_CHARS});
    if (lines.length >= ${MAX_LOG_LINES} || chars + line.length > ${MAX_LOG_TOTAL_CHARS}) { dropped++; return; }
    lines[lines.length] = line;
    chars += line.length;
  };
  const console = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) console[level] = (...args) => write(level, args);
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true, enumerable: false });
  const readLogs = () => {
    const out = [];
    for (let i = 0; i < lines.length; i++) out[i] = lines[i];
    if (dropped > 0) out[out.length] = '(' + dropped + ' more console lines dropped)';
    return out;
  };
  return { parse, stringify, describe, readLogs };
})()`;

export interface PreludeHandles {
  readonly parse: QuickJSHandle;
  readonly stringify: QuickJSHandle;
  readonly describe: QuickJSHandle;
  readonly readLogs: QuickJSHandle;
}

/** Evaluates the prelude; `track` takes ownership of every handle (disposed with the run). */
export function installPrelude(
  context: QuickJSContext,
  track: <T extends QuickJSHandle>(handle: T) => T,
): PreludeHandles {
  const result = context.evalCode(PRELUDE_SOURCE, 'baton-prelude.js', { type: 'global', strict: true });
  if (result.error) {
    track(result.error);
    throw new Error('the sandbox prelude failed to evaluate'); // a Baton bug, not the guest's
  }
  const helpers = track(result.value);
  const get = (key: keyof PreludeHandles): QuickJSHandle => track(context.getProp(helpers, key));
  return { parse: get('parse'), stringify: get('stringify'), describe: get('describe'), readLogs: get('readLogs') };
}

/** Reads a guest array of strings (one the prelude built: own data properties, no getters). */
export function readStringArray(context: QuickJSContext, array: QuickJSHandle, maxItems: number): string[] {
  const lengthHandle = context.getProp(array, 'length');
  const length = context.typeof(lengthHandle) === 'number' ? context.getNumber(lengthHandle) : 0;
  lengthHandle.dispose();
  const out: string[] = [];
  for (let i = 0; i < Math.min(length, maxItems); i++) {
    const item = context.getProp(array, i);
    if (context.typeof(item) === 'string') out.push(context.getString(item));
    item.dispose();
  }
  return out;
}

/** The number of console lines readLogs can return (kept lines plus the "dropped" line). */
export const MAX_LOG_ITEMS = MAX_LOG_LINES + 1;
