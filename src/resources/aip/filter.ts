import { BatonError } from '../../domain/errors/baton-error.ts';
import type { FilterExpression, FilterOperator, FilterValue } from './filter-expression.ts';
import { matchesFilter } from './filter-match.ts';

/**
 * The AIP-160 filter subset Baton's CES list endpoints accept. Parsing is separate from matching
 * so a list call parses once, lets the caller check `filterFields`, then matches every resource.
 */
export { matchesFilter };
export type { FilterExpression, FilterOperator, FilterValue };

const HINT = 'Filters use AIP-160 syntax, e.g. displayName = "weather" AND createTime > "2026-01-01T00:00:00Z".';
const OPERATORS: readonly FilterOperator[] = ['<=', '>=', '!=', '=', '<', '>', ':'];
const KEYWORDS = new Set(['AND', 'OR', 'NOT']);
const WORD_STOP = /[\s()=<>!:"']/;
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };
// Nesting is recursive; a cap turns a hostile `((((…` into a 400 rather than a stack overflow.
const MAX_DEPTH = 64;

interface Token {
  type: 'word' | 'string' | 'op' | '(' | ')' | '-' | 'end';
  position: number;
  raw: string;
  text: string;
  wildcard: string[] | null;
}

function fail(filter: string, problem: string, position: number): never {
  throw new BatonError('invalid_filter', `Invalid filter '${filter}': ${problem}. ${HINT}`, {
    param: 'filter',
    details: { filter, position },
  });
}

function lexString(filter: string, start: number): Token {
  const quote = filter[start];
  const pieces: string[] = [];
  let text = '';
  let piece = '';
  for (let i = start + 1; i < filter.length; i++) {
    const char = filter[i]!;
    if (char === quote) {
      const wildcard = pieces.length > 0 ? [...pieces, piece] : null;
      return { type: 'string', position: start, raw: filter.slice(start, i + 1), text, wildcard };
    }
    if (char === '*') {
      pieces.push(piece);
      piece = '';
      text += char;
      continue;
    }
    let literal = char;
    if (char === '\\') {
      const next = filter[++i];
      if (next === undefined) break;
      literal = ESCAPES[next] ?? next; // `\*` lands here, so it stays a literal star
    }
    text += literal;
    piece += literal;
  }
  return fail(filter, `unterminated string starting at position ${start}; close it with ${quote}`, start);
}

function lex(filter: string): Token[] {
  const tokens: Token[] = [];
  const push = (type: Token['type'], position: number, raw: string) =>
    tokens.push({ type, position, raw, text: raw, wildcard: null });
  let i = 0;
  while (i < filter.length) {
    const char = filter[i]!;
    if (/\s/.test(char)) {
      i++;
    } else if (char === '(' || char === ')') {
      push(char, i++, char);
    } else if (char === '"' || char === "'") {
      const token = lexString(filter, i);
      tokens.push(token);
      i += token.raw.length;
    } else if (OPERATORS.some((op) => filter.startsWith(op, i))) {
      const op = OPERATORS.find((candidate) => filter.startsWith(candidate, i))!;
      push('op', i, op);
      i += op.length;
    } else if (char === '!') {
      fail(filter, `unexpected '!' at position ${i}; use '!=' or NOT`, i);
    } else if (char === '-' && tokens.at(-1)?.type !== 'op') {
      // A leading '-' negates the next term; right after a comparator it is a number's sign.
      push('-', i++, char);
    } else {
      let end = i + 1;
      while (end < filter.length && !WORD_STOP.test(filter[end]!)) end++;
      const raw = filter.slice(i, end);
      tokens.push({ type: 'word', position: i, raw, text: raw, wildcard: raw.includes('*') ? raw.split('*') : null });
      i = end;
    }
  }
  push('end', filter.length, '');
  return tokens;
}

function combine(type: 'and' | 'or', operands: FilterExpression[]): FilterExpression {
  return operands.length === 1 ? operands[0]! : { type, operands };
}

function toValue(token: Token): FilterValue {
  if (token.type === 'string') return { kind: 'string', text: token.text, wildcard: token.wildcard };
  if (token.text === 'true' || token.text === 'false')
    return { kind: 'boolean', text: token.text, value: token.text === 'true' };
  if (NUMBER.test(token.text)) return { kind: 'number', text: token.text, value: Number(token.text) };
  return { kind: 'string', text: token.text, wildcard: token.wildcard };
}

/** Parses an AIP-160 filter; an empty or blank filter matches everything. */
export function parseFilter(filter: string): FilterExpression {
  const tokens = lex(filter);
  let index = 0;
  let depth = 0;
  const peek = (): Token => tokens[index]!; // the 'end' token is never consumed past
  const next = (): Token => tokens[Math.min(index++, tokens.length - 1)]!;
  const keyword = (token: Token, word: string) => token.type === 'word' && token.text === word;
  const found = (token: Token) => (token.type === 'end' ? '' : ` but found '${token.raw}'`);
  const startsTerm = (token: Token) =>
    token.type === '(' ||
    token.type === '-' ||
    token.type === 'string' ||
    (token.type === 'word' && !keyword(token, 'AND') && !keyword(token, 'OR'));

  const deeper = (token: Token) => {
    if (++depth > MAX_DEPTH)
      fail(filter, `nested more than ${MAX_DEPTH} levels deep at position ${token.position}`, token.position);
  };

  // AIP-160 precedence: expression = sequence {AND sequence}; sequence = factor {factor};
  // factor = term {OR term}; so OR binds tighter than AND, and juxtaposition means AND.
  function expression(after?: Token): FilterExpression {
    const operands = [sequence(after)];
    while (keyword(peek(), 'AND')) operands.push(sequence(next()));
    return combine('and', operands);
  }

  function sequence(after?: Token): FilterExpression {
    const operands = [factor(after)];
    while (startsTerm(peek())) operands.push(factor());
    return combine('and', operands);
  }

  function factor(after?: Token): FilterExpression {
    const operands = [term(after)];
    while (keyword(peek(), 'OR')) operands.push(term(next()));
    return combine('or', operands);
  }

  function term(after?: Token): FilterExpression {
    const token = peek();
    if (keyword(token, 'NOT') || token.type === '-') {
      next();
      deeper(token);
      const operand = term(token);
      depth--;
      return { type: 'not', operand };
    }
    return simple(after);
  }

  function simple(after?: Token): FilterExpression {
    const token = next();
    if (token.type === '(') {
      deeper(token);
      const inner = expression(token);
      depth--;
      const close = next();
      if (close.type !== ')')
        fail(
          filter,
          `expected ')' at position ${close.position} to close the '(' at position ${token.position}${found(close)}`,
          close.position,
        );
      return inner;
    }
    if (token.type !== 'word' || KEYWORDS.has(token.text)) {
      const where = after ? `after '${after.raw}' ` : '';
      return fail(
        filter,
        `expected a comparison such as field = "value" ${where}at position ${token.position}${found(token)}`,
        token.position,
      );
    }
    if (!FIELD_PATH.test(token.text)) {
      fail(
        filter,
        `'${token.text}' at position ${token.position} is not a field path; use names such as displayName or mcpToolset.serverAddress`,
        token.position,
      );
    }
    const op = next();
    if (op.type !== 'op') {
      fail(
        filter,
        `expected a comparison operator (=, !=, <, <=, >, >=, :) after '${token.text}' at position ${op.position}${found(op)}`,
        op.position,
      );
    }
    const value = next();
    if (value.type !== 'string' && (value.type !== 'word' || KEYWORDS.has(value.text))) {
      fail(filter, `expected a value after '${op.text}' at position ${value.position}${found(value)}`, value.position);
    }
    return { type: 'compare', field: token.text, operator: op.text as FilterOperator, value: toValue(value) };
  }

  if (peek().type === 'end') return { type: 'all' };
  const result = expression();
  const rest = peek();
  if (rest.type !== 'end') fail(filter, `unexpected '${rest.raw}' at position ${rest.position}`, rest.position);
  return result;
}

/** The field paths a filter reads, in first-use order, so callers can reject unknown fields. */
export function filterFields(expression: FilterExpression): string[] {
  const fields = new Set<string>();
  const walk = (node: FilterExpression): void => {
    if (node.type === 'compare') fields.add(node.field);
    else if (node.type === 'not') walk(node.operand);
    else if (node.type === 'and' || node.type === 'or') node.operands.forEach(walk);
  };
  walk(expression);
  return [...fields];
}
