import { describe, expect, it } from 'vitest';
import { filterFields, matchesFilter, parseFilter } from '../../../src/resources/aip/filter.ts';
import { caught } from './caught.ts';

const HINT = 'Filters use AIP-160 syntax, e.g. displayName = "weather" AND createTime > "2026-01-01T00:00:00Z".';

const weather = {
  name: 'projects/p/locations/l/apps/a/tools/weather',
  displayName: 'Weather Lookup',
  description: 'Looks up the forecast',
  createTime: '2026-02-03T10:00:00Z',
  priority: 10,
  revision: '12',
  enabled: true,
  tags: ['forecast', 'public'],
  labels: { team: 'ops' },
  mcpToolset: { serverAddress: 'https://mcp.example.com', headers: {} },
  toolsets: [{ id: 'a' }, { id: 'b' }],
  empty: '',
  none: [],
  nothing: null,
};

const matches = (filter: string, resource: unknown = weather) => matchesFilter(parseFilter(filter), resource);

describe('parseFilter and matchesFilter (AIP-160)', () => {
  it('treats an empty or blank filter as matching everything', () => {
    expect(parseFilter('')).toEqual({ type: 'all' });
    expect(parseFilter('  \t\n ')).toEqual({ type: 'all' });
    expect(matches('')).toBe(true);
    expect(matchesFilter(parseFilter(' '), null)).toBe(true);
  });

  it('compares strings with =, != and the ordering operators', () => {
    expect(matches('displayName = "Weather Lookup"')).toBe(true);
    expect(matches('displayName = "weather lookup"')).toBe(false); // = is case-sensitive
    expect(matches('displayName != "Weather Lookup"')).toBe(false);
    expect(matches('displayName != "Other"')).toBe(true);
    expect(matches('displayName < "X"')).toBe(true);
    expect(matches('displayName <= "Weather Lookup"')).toBe(true);
    expect(matches('displayName > "Weather Lookup"')).toBe(false);
    expect(matches('displayName >= "Weather"')).toBe(true);
  });

  it('compares RFC 3339 timestamps as strings', () => {
    expect(matches('createTime > "2026-01-01T00:00:00Z"')).toBe(true);
    expect(matches('createTime < "2026-01-01T00:00:00Z"')).toBe(false);
    expect(matches('createTime >= "2026-02-03T10:00:00Z" AND createTime <= "2026-02-03T10:00:00Z"')).toBe(true);
  });

  it('compares numbers numerically, including int64 values serialized as strings', () => {
    expect(matches('priority > 9')).toBe(true); // as text, "10" < "9"
    expect(matches('priority = 10.0')).toBe(true);
    expect(matches('priority < 10')).toBe(false);
    expect(matches('priority >= -5')).toBe(true);
    expect(matches('priority = "10"')).toBe(true);
    expect(matches('priority = "ten"')).toBe(false);
    expect(matches('revision > 9')).toBe(true);
    expect(matches('revision = 12')).toBe(true);
    expect(matches('displayName = 12')).toBe(false);
  });

  it('compares booleans with true and false', () => {
    expect(matches('enabled = true')).toBe(true);
    expect(matches('enabled = false')).toBe(false);
    expect(matches('enabled != false')).toBe(true);
    expect(matches('enabled = "true"')).toBe(true);
  });

  it('accepts double- and single-quoted strings with backslash escapes', () => {
    expect(matches("displayName = 'Weather Lookup'")).toBe(true);
    expect(matches('q = "say \\"hi\\""', { q: 'say "hi"' })).toBe(true);
    expect(matches("q = 'it\\'s'", { q: "it's" })).toBe(true);
    expect(matches('q = "a\\\\b"', { q: 'a\\b' })).toBe(true);
    expect(matches('q = "line\\nbreak"', { q: 'line\nbreak' })).toBe(true);
    expect(parseFilter('a = "x(y) AND z"')).toMatchObject({
      type: 'compare',
      value: { kind: 'string', text: 'x(y) AND z' },
    });
  });

  it('accepts bare words as values, with true/false and numbers typed', () => {
    expect(parseFilter('kind = MCP')).toEqual({
      type: 'compare',
      field: 'kind',
      operator: '=',
      value: { kind: 'string', text: 'MCP', wildcard: null },
    });
    expect(parseFilter('n = -2.5e3')).toMatchObject({ value: { kind: 'number', value: -2500 } });
    expect(parseFilter('b = false')).toMatchObject({ value: { kind: 'boolean', value: false } });
    expect(parseFilter('b = "false"')).toMatchObject({ value: { kind: 'string', text: 'false' } });
    expect(matches('kind = MCP', { kind: 'MCP' })).toBe(true);
  });

  it('matches wildcards in = with a string containing *', () => {
    expect(matches('displayName = "Weather*"')).toBe(true);
    expect(matches('displayName = "weather*"')).toBe(false);
    expect(matches('displayName = "*Lookup"')).toBe(true);
    expect(matches('displayName = "W*r L*p"')).toBe(true);
    expect(matches('displayName = "*Forecast*"')).toBe(false);
    expect(matches('displayName != "Weather*"')).toBe(false);
    expect(matches('displayName = Weather*')).toBe(true);
    // Regex characters in the pattern are literal.
    expect(matches('q = "a.c*"', { q: 'abc' })).toBe(false);
    expect(matches('q = "a.c*"', { q: 'a.cd' })).toBe(true);
  });

  it('treats an escaped \\* as a literal star, not a wildcard', () => {
    expect(matches('q = "a\\*"', { q: 'a*' })).toBe(true);
    expect(matches('q = "a\\*"', { q: 'abc' })).toBe(false);
    expect(parseFilter('q = "a\\*"')).toMatchObject({ value: { text: 'a*', wildcard: null } });
  });

  it('uses : as a case-insensitive substring test on strings', () => {
    expect(matches('description:"FORECAST"')).toBe(true);
    expect(matches('description : forecast')).toBe(true);
    expect(matches('description:"weather"')).toBe(false);
    expect(matches('description:"looks*forecast"')).toBe(true);
  });

  it('uses : as membership on lists and key presence on maps', () => {
    expect(matches('tags:"public"')).toBe(true);
    expect(matches('tags:public')).toBe(true);
    expect(matches('tags:"pub"')).toBe(false); // membership, not substring
    expect(matches('labels:team')).toBe(true);
    expect(matches('labels:owner')).toBe(false);
    expect(matches('priority:10')).toBe(true);
  });

  it('uses field:* for present and non-empty', () => {
    expect(matches('displayName:*')).toBe(true);
    expect(matches('tags:*')).toBe(true);
    expect(matches('mcpToolset:*')).toBe(true);
    expect(matches('enabled:*')).toBe(true);
    expect(matches('missing:*')).toBe(false);
    expect(matches('empty:*')).toBe(false);
    expect(matches('none:*')).toBe(false);
    expect(matches('nothing:*')).toBe(false);
    expect(matches('mcpToolset.headers:*')).toBe(false);
    expect(matches('NOT missing:*')).toBe(true);
  });

  it('reads nested values through dotted field paths, and across lists', () => {
    expect(matches('mcpToolset.serverAddress = "https://mcp.example.com"')).toBe(true);
    expect(matches('mcpToolset.serverAddress:"EXAMPLE"')).toBe(true);
    expect(matches('mcpToolset.missing = "x"')).toBe(false);
    expect(matches('displayName.length = 14')).toBe(false); // no reading properties of strings
    expect(matches('toolsets.id:b')).toBe(true);
    expect(matches('toolsets.id:c')).toBe(false);
    expect(matches('constructor:*', {})).toBe(false); // own properties only
  });

  it('matches an absent field only with !=, and lists and objects only with :', () => {
    expect(matches('missing = "x"')).toBe(false);
    expect(matches('missing < "x"')).toBe(false);
    expect(matches('missing != "x"')).toBe(true);
    expect(matches('nothing != "x"')).toBe(true);
    expect(matches('tags = "public"')).toBe(false);
    expect(matches('tags != "public"')).toBe(false);
    expect(matches('mcpToolset = "x"')).toBe(false);
  });

  it('combines with AND, OR, NOT, prefix - and parentheses', () => {
    expect(matches('priority = 10 AND enabled = true')).toBe(true);
    expect(matches('priority = 10 AND enabled = false')).toBe(false);
    expect(matches('priority = 1 OR enabled = true')).toBe(true);
    expect(matches('priority = 1 OR enabled = false')).toBe(false);
    expect(matches('NOT priority = 1')).toBe(true);
    expect(matches('NOT priority = 10')).toBe(false);
    expect(matches('-priority = 10')).toBe(false);
    expect(matches('-(priority = 1 OR enabled = false)')).toBe(true);
    expect(matches('NOT (priority = 10 AND enabled = true)')).toBe(false);
    expect(matches('(priority = 10)')).toBe(true);
  });

  it('binds OR tighter than AND, as AIP-160 says', () => {
    expect(parseFilter('a = 1 OR b = 2 AND c = 3')).toMatchObject({
      type: 'and',
      operands: [{ type: 'or', operands: [{ field: 'a' }, { field: 'b' }] }, { field: 'c' }],
    });
    // (a OR b) AND c, not a OR (b AND c):
    expect(matches('a = 1 OR b = 2 AND c = 3', { a: 1, b: 0, c: 0 })).toBe(false);
    expect(matches('a = 1 AND b = 2 OR c = 3', { a: 1, b: 0, c: 3 })).toBe(true);
  });

  it('reads juxtaposed terms as AND', () => {
    expect(parseFilter('a = 1 b = 2')).toMatchObject({ type: 'and', operands: [{ field: 'a' }, { field: 'b' }] });
    expect(matches('priority = 10 enabled = true')).toBe(true);
    expect(matches('priority = 10 enabled = false')).toBe(false);
    expect(matches('priority = 10 -enabled = false')).toBe(true);
    expect(parseFilter('a = 1 b = 2 OR c = 3')).toMatchObject({
      type: 'and',
      operands: [{ field: 'a' }, { type: 'or' }],
    });
  });

  it('lists the field paths a filter uses, once each', () => {
    expect(filterFields(parseFilter(''))).toEqual([]);
    expect(
      filterFields(
        parseFilter('displayName = "x" OR NOT (mcpToolset.serverAddress:* AND displayName != "y") createTime > "z"'),
      ),
    ).toEqual(['displayName', 'mcpToolset.serverAddress', 'createTime']);
  });
});

describe('parseFilter syntax errors', () => {
  it('names the filter, the position and the syntax', () => {
    const error = caught(() => parseFilter('displayName = '));
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('invalid_filter');
    expect(error.param).toBe('filter');
    expect(error.message).toBe(`Invalid filter 'displayName = ': expected a value after '=' at position 14. ${HINT}`);
    expect(error.details).toEqual({ filter: 'displayName = ', position: 14 });
  });

  it.each([
    ['displayName = AND x = 1', "expected a value after '=' at position 14 but found 'AND'"],
    ['displayName = )', "expected a value after '=' at position 14 but found ')'"],
    [
      'displayName "x"',
      "expected a comparison operator (=, !=, <, <=, >, >=, :) after 'displayName' at position 12 but found '\"x\"'",
    ],
    ['displayName', "expected a comparison operator (=, !=, <, <=, >, >=, :) after 'displayName' at position 11"],
    ['a = "open', 'unterminated string starting at position 4; close it with "'],
    ["a = 'x\\'", "unterminated string starting at position 4; close it with '"],
    ['a = 1)', "unexpected ')' at position 5"],
    ['(a = 1', "expected ')' at position 6 to close the '(' at position 0"],
    ['(a = 1 b', "expected a comparison operator (=, !=, <, <=, >, >=, :) after 'b' at position 8"],
    ['()', `expected a comparison such as field = "value" after '(' at position 1 but found ')'`],
    ['NOT', `expected a comparison such as field = "value" after 'NOT' at position 3`],
    ['a = 1 AND', `expected a comparison such as field = "value" after 'AND' at position 9`],
    ['a = 1 OR', `expected a comparison such as field = "value" after 'OR' at position 8`],
    ['AND a = 1', `expected a comparison such as field = "value" at position 0 but found 'AND'`],
    ['"a" = 1', `expected a comparison such as field = "value" at position 0 but found '"a"'`],
    ['3x = 1', "'3x' at position 0 is not a field path; use names such as displayName or mcpToolset.serverAddress"],
    ['a..b = 1', "'a..b' at position 0 is not a field path; use names such as displayName or mcpToolset.serverAddress"],
    ['a ! b', "unexpected '!' at position 2; use '!=' or NOT"],
    ['a = 1 = 2', "unexpected '=' at position 6"],
  ])('rejects %j', (filter, problem) => {
    const error = caught(() => parseFilter(filter));
    expect(error.code).toBe('invalid_filter');
    expect(error.param).toBe('filter');
    expect(error.message).toBe(`Invalid filter '${filter}': ${problem}. ${HINT}`);
  });

  it('rejects deep nesting with a 400 rather than overflowing the stack', () => {
    expect(parseFilter(`${'('.repeat(60)}a = 1${')'.repeat(60)}`)).toMatchObject({ field: 'a' });
    const error = caught(() => parseFilter(`${'('.repeat(10_000)}a = 1${')'.repeat(10_000)}`));
    expect(error.code).toBe('invalid_filter');
    expect(error.message).toContain('nested more than 64 levels deep at position 64');
    expect(caught(() => parseFilter(`${'NOT '.repeat(10_000)}a = 1`)).code).toBe('invalid_filter');
  });
});
