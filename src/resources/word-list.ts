/** Words as a sentence lists them: `'a', 'b' or 'c'`, each in `quote`s, the last joined by `conjunction`. */
export function wordList(words: readonly string[], conjunction: string, quote = "'"): string {
  const quoted = words.map((word) => `${quote}${word}${quote}`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} ${conjunction} ${quoted.at(-1)}`;
}
