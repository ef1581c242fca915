import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const LIMIT = 160;

/**
 * Prettier lays code out at 120 columns but never breaks a string; this keeps long messages
 * and templates from growing lines past what a reviewer reads without scrolling.
 */
describe('source lines', () => {
  it(`fit in ${LIMIT} columns`, () => {
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx', '*.mjs', '*.js'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => file !== '' && !file.includes('node_modules/') && !file.includes('/dist/'));
    expect(files.length).toBeGreaterThan(300);
    const long = files.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, index) => (line.length > LIMIT ? [`${file}:${index + 1} (${line.length})`] : [])),
    );
    expect(long).toEqual([]);
  });
});
