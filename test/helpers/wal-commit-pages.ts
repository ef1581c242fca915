import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/**
 * The commits in `filename`'s WAL, oldest first, each as the page numbers it wrote, one per frame.
 * Read from the WAL's frames (https://www.sqlite.org/fileformat.html, "The WAL File Format"):
 * frames of the current salt; a commit ends at a frame that gives the database's size.
 */
export function walCommits(filename: string): number[][] {
  const wal = readFileSync(`${filename}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const commits: number[][] = [];
  let current: number[] = [];
  for (let offset = WAL_HEADER_BYTES; offset + FRAME_HEADER_BYTES + pageSize <= wal.length;) {
    if (wal.readUInt32BE(offset + 8) !== salts[0] || wal.readUInt32BE(offset + 12) !== salts[1]) break;
    current.push(wal.readUInt32BE(offset));
    if (wal.readUInt32BE(offset + 4) !== 0) {
      commits.push(current);
      current = [];
    }
    offset += FRAME_HEADER_BYTES + pageSize;
  }
  return commits;
}

/**
 * The B-trees (tables and indexes, by name) whose pages the last commit in `filename`'s WAL
 * wrote, one name per page, from SQLite's `dbstat` table of which page belongs to which B-tree.
 * Page 1, the database header, is named `sqlite_schema`, as `dbstat` names it.
 */
export function lastCommitPages(filename: string): string[] {
  const last = walCommits(filename).at(-1) ?? [];
  const reader = new Database(filename, { readonly: true });
  try {
    const rows = reader.prepare('select name, pageno from dbstat').all() as { name: string; pageno: number }[];
    const owner = new Map(rows.map((row) => [row.pageno, row.name]));
    return last.map((page) => owner.get(page) ?? `page ${page}`);
  } finally {
    reader.close();
  }
}
