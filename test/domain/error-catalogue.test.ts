import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, isErrorCode, type ErrorEntry } from '../../src/domain/errors/error-catalogue.ts';
import { ERROR_DOCS_PATH, renderErrorDocs } from '../../scripts/generate-error-docs.ts';

/**
 * The catalogue against the code: every code thrown is catalogued, every catalogued code is
 * thrown somewhere, every entry is documented, and docs/errors.md is what the catalogue says.
 * TypeScript already types `BatonError`'s code; these checks also catch what the type system lets
 * through: a cast (`'x' as ErrorCode`), and turn error codes, which are stored as plain strings.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const CATALOGUE_FILE = join(SRC, 'domain', 'errors', 'error-catalogue.ts');

interface CodeUse {
  code: string;
  /** `src/…/file.ts:line`, for the failure message. */
  where: string;
}

interface ScanResult {
  /** Codes in a code position: `new BatonError('…'`, an `ErrorCode` argument of a helper, `'…' as ErrorCode`… */
  uses: CodeUse[];
  /** Every string literal value (outside type positions): what "a code is used" looks for. */
  literals: Set<string>;
}

interface ScanOptions {
  /** Also read `{ code: '…', message }` object literals: turn errors, whose code is a plain string (src/engine). */
  turnErrors?: boolean;
}

/** A function, method or arrow function taking an `ErrorCode`, and at which argument positions. */
interface Helper {
  name: string;
  positions: number[];
  exported: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function isErrorCodeType(type: ts.TypeNode | undefined): boolean {
  return (
    type !== undefined &&
    ts.isTypeReferenceNode(type) &&
    ts.isIdentifier(type.typeName) &&
    type.typeName.text === 'ErrorCode'
  );
}

/** The string literals an expression can evaluate to, through casts, parentheses and conditionals. */
function literalsOf(node: ts.Expression): ts.StringLiteralLike[] {
  if (ts.isStringLiteralLike(node)) return [node];
  if (
    ts.isParenthesizedExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node) ||
    ts.isTypeAssertionExpression(node) ||
    ts.isNonNullExpression(node)
  )
    return literalsOf(node.expression);
  if (ts.isConditionalExpression(node)) return [...literalsOf(node.whenTrue), ...literalsOf(node.whenFalse)];
  if (ts.isBinaryExpression(node)) {
    const operator = node.operatorToken.kind;
    if (operator === ts.SyntaxKind.QuestionQuestionToken || operator === ts.SyntaxKind.BarBarToken)
      return [...literalsOf(node.left), ...literalsOf(node.right)];
    if (operator === ts.SyntaxKind.AmpersandAmpersandToken) return literalsOf(node.right);
  }
  return [];
}

function isExported(node: ts.Node): boolean {
  const statement = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  return (
    ts.canHaveModifiers(statement) &&
    (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
  );
}

/** Functions of a file that take an `ErrorCode`; their defaults for it are code uses too. */
function helpersOf(source: ts.SourceFile, defaults: ts.Expression[]): Helper[] {
  const helpers: Helper[] = [];
  const visit = (node: ts.Node): void => {
    let name: string | undefined;
    let fn: ts.SignatureDeclaration | undefined;
    if (
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) &&
      node.name &&
      !ts.isComputedPropertyName(node.name)
    ) {
      name = node.name.text;
      fn = node;
    } else if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    ) {
      name = node.name.text;
      fn = node.initializer;
    }
    if (name !== undefined && fn !== undefined) {
      const positions: number[] = [];
      fn.parameters.forEach((parameter, index) => {
        if (!isErrorCodeType(parameter.type)) return;
        positions.push(index);
        if (parameter.initializer) defaults.push(parameter.initializer);
      });
      if (positions.length > 0) helpers.push({ name, positions, exported: isExported(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return helpers;
}

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

function hasProperty(object: ts.ObjectLiteralExpression, name: string): boolean {
  return object.properties.some(
    (property) => property.name !== undefined && ts.isIdentifier(property.name) && property.name.text === name,
  );
}

/**
 * Scans files (name → text) for error codes. Helpers taking an `ErrorCode` are found first, so a
 * call of an exported one is checked in every file, a call of a local one in its own file.
 */
function scanSources(files: ReadonlyMap<string, string>, options: (fileName: string) => ScanOptions): ScanResult {
  const parsed = [...files].map(([fileName, text]) => ({ fileName, source: parse(fileName, text) }));
  const defaults = new Map<string, ts.Expression[]>();
  const helpers = new Map<string, Helper[]>();
  for (const { fileName, source } of parsed) {
    const found: ts.Expression[] = [];
    helpers.set(fileName, helpersOf(source, found));
    defaults.set(fileName, found);
  }
  const exported = [...helpers.values()].flat().filter((helper) => helper.exported);

  const uses: CodeUse[] = [];
  const literals = new Set<string>();
  for (const { fileName, source } of parsed) {
    const where = (node: ts.Node) =>
      `${relative(ROOT, fileName).split(sep).join('/')}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const seen = new Set<ts.Node>();
    const use = (expression: ts.Expression | undefined) => {
      if (!expression) return;
      for (const literal of literalsOf(expression)) {
        // `new BatonError('x' as ErrorCode…` is met twice (the argument, then the cast): count it once.
        if (seen.has(literal)) continue;
        seen.add(literal);
        uses.push({ code: literal.text, where: where(literal) });
      }
    };
    const known = [...exported, ...(helpers.get(fileName) ?? []).filter((helper) => !helper.exported)];
    const { turnErrors = false } = options(fileName);
    for (const expression of defaults.get(fileName) ?? []) use(expression);

    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'BatonError')
        use(node.arguments?.[0]);
      if (ts.isCallExpression(node)) {
        const name = calleeName(node);
        for (const helper of known.filter((candidate) => candidate.name === name))
          for (const position of helper.positions) use(node.arguments[position]);
      }
      if (
        (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isTypeAssertionExpression(node)) &&
        isErrorCodeType(node.type)
      )
        use(node.expression);
      if (turnErrors && ts.isObjectLiteralExpression(node) && hasProperty(node, 'message')) {
        for (const property of node.properties)
          if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) && property.name.text === 'code')
            use(property.initializer);
      }
      if (ts.isStringLiteralLike(node) && !ts.isLiteralTypeNode(node.parent)) literals.add(node.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { uses, literals };
}

function scanSrc(): ScanResult {
  const files = new Map(
    sourceFiles(SRC)
      .filter((file) => file !== CATALOGUE_FILE)
      .map((file) => [file, readFileSync(file, 'utf8')] as const),
  );
  return scanSources(files, (fileName) => ({ turnErrors: fileName.startsWith(join(SRC, 'engine') + sep) }));
}

const entries = Object.entries(ERROR_CATALOGUE) as [string, ErrorEntry][];

describe('the error catalogue against src', () => {
  const { uses, literals } = scanSrc();

  it('finds the codes src throws (the scan itself works)', () => {
    expect(uses.length).toBeGreaterThan(200);
    expect(uses.map((entry) => entry.code)).toEqual(
      expect.arrayContaining(['tool_calls_pending', 'invalid_field', 'model_error', 'tool_not_found']),
    );
  });

  it('catalogues every code used in src', () => {
    const missing = uses.filter((entry) => !isErrorCode(entry.code)).map((entry) => `${entry.code} (${entry.where})`);
    expect(missing, `codes used in src but missing from ERROR_CATALOGUE: ${missing.join(', ')}`).toEqual([]);
  });

  it('uses every catalogued code somewhere in src', () => {
    const unused = entries.map(([code]) => code).filter((code) => !literals.has(code));
    expect(unused, `codes in ERROR_CATALOGUE that src never uses (remove them): ${unused.join(', ')}`).toEqual([]);
  });
});

describe('the scan', () => {
  it('sees codes behind casts, conditionals, helpers and in turn errors', () => {
    const fixture = `
      import { BatonError } from './baton-error.ts';
      import type { ErrorCode } from './error-catalogue.ts';
      export function fail(message: string, code: ErrorCode = 'default_code'): never {
        throw new BatonError(code, message);
      }
      const local = (code: ErrorCode) => new BatonError(code, 'x');
      throw new BatonError('cast_code' as ErrorCode, 'x');
      throw new BatonError(<ErrorCode>'asserted_code', 'x');
      throw new BatonError(('wide_code' as string) as ErrorCode, 'x');
      throw new BatonError(flag ? 'when_true' : 'when_false', 'x');
      const stored = 'stored_code' as unknown as ErrorCode;
      fail('not a code', 'helper_code');
      local('local_code');
      const error = { code: 'turn_code', message: 'x' };
      const other = { code: 'not_a_turn_error' };
      type Kind = 'type_only';
    `;
    const { uses, literals } = scanSources(new Map([['fixture.ts', fixture]]), () => ({ turnErrors: true }));
    expect(uses.map((entry) => entry.code).sort()).toEqual(
      [
        'asserted_code',
        'cast_code',
        'default_code',
        'helper_code',
        'local_code',
        'stored_code',
        'turn_code',
        'when_false',
        'when_true',
        'wide_code',
      ].sort(),
    );
    expect(literals.has('not_a_turn_error')).toBe(true);
    expect(literals.has('type_only')).toBe(false);
  });
});

describe('the catalogue entries', () => {
  it('are in alphabetical order', () => {
    const codes = entries.map(([code]) => code);
    expect(codes).toEqual([...codes].sort());
  });

  it.each(entries)('%s has a meaning and the faces that render it', (code, entry) => {
    const meaning = entry.meaning.trim();
    expect(meaning, `${code}: write its meaning`).not.toBe('');
    expect(meaning, `${code}: write its meaning`).not.toMatch(/^TODO\b/i);
    expect(meaning.endsWith('.'), `${code}: the meaning must end with a period`).toBe(true);
    expect(entry.faces.length, `${code}: list the faces that render it`).toBeGreaterThan(0);
    expect(new Set(entry.faces).size, `${code}: a face is listed twice`).toBe(entry.faces.length);
    if (entry.faces.includes('all')) expect(entry.faces, `${code}: 'all' stands alone`).toEqual(['all']);
  });
});

describe('docs/errors.md', () => {
  it('is what the catalogue generates', () => {
    let page = '';
    try {
      page = readFileSync(ERROR_DOCS_PATH, 'utf8');
    } catch {
      // A missing page fails below, with the same advice.
    }
    expect(page, 'docs/errors.md is out of date: run `npm run docs:errors` and commit it').toBe(renderErrorDocs());
  });
});
