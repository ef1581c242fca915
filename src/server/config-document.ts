import { isNode, LineCounter, parseDocument } from 'yaml';
import type { ConfigIssue } from './config-issues.ts';

/** baton.yaml read as YAML: its value, every syntax error, and where each value sits. */
export interface ConfigDocument {
  /** The file's value (`{}` for an empty file); what YAML could read of it when it has errors. */
  value: unknown;
  /** Syntax errors (bad indentation, a duplicate key…), each with its line. */
  issues: ConfigIssue[];
  /** The line of the value at `path`, or of its nearest ancestor present in the file. */
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

/** Reads YAML text (already interpolated), collecting every syntax error rather than stopping at the first. */
export function readConfigDocument(text: string): ConfigDocument {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const issues = document.errors.map((error) => ({
    path: '',
    // The message ends with " at line L, column C:" and a snippet; the line is reported apart.
    message: `YAML: ${(error.message.split('\n')[0] ?? error.code).replace(/ at line \d+, column \d+:?$/, '')}`,
    ...(error.linePos ? { line: error.linePos[0].line } : {}),
  }));
  let value: unknown;
  try {
    value = document.toJS() ?? {};
  } catch (error) {
    // Too many aliases and the like: the syntax errors above, if any, say more.
    issues.push({ path: '', message: `YAML: ${(error as Error).message}` });
    value = {};
  }
  return {
    value,
    issues,
    lineOf(path) {
      for (let length = path.length; length > 0; length -= 1) {
        const node: unknown = document.getIn(path.slice(0, length), true);
        if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
      }
      return undefined;
    },
  };
}
