/**
 * Small, dependency-free text heuristics for the scripted models: tokenising, stop words,
 * crude stemming and extraction of "values" (numbers, ids, emails, names…) from a user message.
 * Everything here is deterministic on purpose: the scripted models must answer the same way for
 * the same prompt so that tests and demos are reproducible.
 */

/**
 * Words that carry no signal when matching a message against tool names and descriptions.
 * Generic request verbs ("get", "need", "please") are included because nearly every tool name or
 * request contains them, so they would make every tool look relevant.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'about',
  'all',
  'also',
  'am',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'been',
  'both',
  'but',
  'by',
  'can',
  'could',
  'did',
  'do',
  'does',
  'for',
  'from',
  'get',
  'give',
  'got',
  'had',
  'has',
  'have',
  'hello',
  'help',
  'hi',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'just',
  'let',
  'like',
  'me',
  'my',
  'need',
  'of',
  'on',
  'or',
  'our',
  'please',
  'plus',
  'set',
  'should',
  'so',
  'some',
  'than',
  'that',
  'the',
  'their',
  'them',
  'then',
  'there',
  'these',
  'they',
  'this',
  'those',
  'to',
  'up',
  'us',
  'use',
  'want',
  'was',
  'we',
  'what',
  'whats',
  'when',
  'where',
  'which',
  'who',
  'why',
  'will',
  'with',
  'would',
  'you',
  'your',
]);

/**
 * Capitalised words that start sentences in requests but are never names ("Check the weather in
 * Paris"): without this list they would be taken as city or person names.
 */
const COMMON_SENTENCE_STARTERS: ReadonlySet<string> = new Set([
  'book',
  'cancel',
  'check',
  'compute',
  'convert',
  'create',
  'delete',
  'find',
  'fetch',
  'look',
  'lookup',
  'make',
  'ok',
  'okay',
  'open',
  'order',
  'schedule',
  'search',
  'send',
  'show',
  'tell',
  'thanks',
  'thank',
  'update',
  'yes',
  'no',
]);

export interface WordToken {
  /** The word as written. */
  readonly text: string;
  /** Lower-cased form. */
  readonly lower: string;
  /** Character offset in the source text. */
  readonly start: number;
  readonly end: number;
  /** Position among the words of the text, used for proximity scoring. */
  readonly index: number;
}

export function tokenize(text: string): WordToken[] {
  const tokens: WordToken[] = [];
  const re = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
  for (const match of text.matchAll(re)) {
    const start = match.index;
    const raw = match[0];
    tokens.push({
      text: raw,
      // "what's" and "whats" must compare equal, so apostrophes are dropped in the lower form.
      lower: raw.toLowerCase().replace(/['’]/g, ''),
      start,
      end: start + raw.length,
      index: tokens.length,
    });
  }
  return tokens;
}

/** Lower-cased words of the text without stop words. */
export function contentWords(text: string): string[] {
  return tokenize(text)
    .map((token) => token.lower)
    .filter((word) => !STOP_WORDS.has(word));
}

/** Splits identifiers such as `get_weather`, `lookup-order` or `sendEmail` into lower-case words. */
export function splitIdentifier(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.toLowerCase())
    .filter((part) => part.length > 0);
}

/** A deliberately crude stemmer: enough to make "refunds"/"refund" or "processing"/"process" equal. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3 && !w.endsWith('ss')) {
      return w.slice(0, -suffix.length);
    }
  }
  return w;
}

/**
 * Whether two words are "the same" for matching purposes: equal stems, or a long shared prefix
 * ("approve"/"approval", "cancel"/"cancellation") since the stemmer does not handle derivations.
 */
export function wordsMatch(a: string, b: string): boolean {
  return stemsMatch(stem(a), stem(b));
}

/** `wordsMatch` of two words given by their stems (`stem`), for words compared many times. */
export function stemsMatch(sa: string, sb: string): boolean {
  if (sa === sb) return true;
  const shortest = Math.min(sa.length, sb.length);
  if (shortest < 4) return false;
  let common = 0;
  while (common < shortest && sa[common] === sb[common]) common += 1;
  return common >= 5 || (common === shortest && common >= 4);
}

/** Whether the message signals that it asks for several things ("Paris and Lisbon", "a, b", "both"). */
export function asksForSeveral(text: string): boolean {
  return /\b(?:and|both|plus|also|as well as)\b|,|&|;/i.test(text);
}

export interface Clause {
  readonly text: string;
  /** Offset of the clause in the full message, to translate found-value positions. */
  readonly start: number;
}

/** Splits a request into clauses at conjunctions, for "do X and do Y" style messages. */
export function splitClauses(text: string): Clause[] {
  const clauses: Clause[] = [];
  const separator = /\s*(?:,|;|&|\band\b|\balso\b|\bthen\b|\bplus\b|\bas well as\b)\s*/gi;
  let start = 0;
  const push = (end: number): void => {
    const raw = text.slice(start, end);
    const trimmed = raw.trim();
    if (trimmed !== '') clauses.push({ text: trimmed, start: start + raw.indexOf(trimmed) });
  };
  for (const match of text.matchAll(separator)) {
    push(match.index);
    start = match.index + match[0].length;
  }
  push(text.length);
  return clauses;
}

/** A value found in the message, with its character offset so callers can avoid reusing it. */
export interface FoundValue<T> {
  readonly value: T;
  readonly start: number;
  readonly end: number;
}

export interface FoundNumber extends FoundValue<number> {
  /** Written with a currency sign or unit ("$500", "500 USD"): a strong hint for amount-like fields. */
  readonly currency: boolean;
  readonly integer: boolean;
}

export function findNumbers(text: string): FoundNumber[] {
  const found: FoundNumber[] = [];
  // The look-behind/ahead keep digits that belong to ids ("ORD-12345", "A1") out of the numbers.
  const re = /(?<![\p{L}\p{N}_.\-/])([$€£]\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\p{L}\p{N}_\-@]|\.\d)/gu;
  for (const match of text.matchAll(re)) {
    const digits = (match[2] ?? '').replace(/,/g, '');
    const decimals = match[3] ?? '';
    const value = Number(`${digits}${decimals}`);
    if (!Number.isFinite(value)) continue;
    const end = match.index + match[0].length;
    const after = text.slice(end, end + 12).toLowerCase();
    const currency = match[1] !== undefined || /^\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b/.test(after);
    found.push({ value, start: match.index, end, currency, integer: decimals === '' });
  }
  return found;
}

export function findQuoted(text: string): FoundValue<string>[] {
  const found: FoundValue<string>[] = [];
  // Single quotes only count when they are not apostrophes ("what's").
  const re = /"([^"]+)"|“([^”]+)”|(?<![\p{L}\p{N}])'([^']+)'(?![\p{L}\p{N}])/gu;
  for (const match of text.matchAll(re)) {
    const value = match[1] ?? match[2] ?? match[3] ?? '';
    if (value.trim() === '') continue;
    found.push({ value, start: match.index, end: match.index + match[0].length });
  }
  return found;
}

export function findEmails(text: string): FoundValue<string>[] {
  return [...text.matchAll(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g)].map((match) => ({
    value: match[0],
    start: match.index,
    end: match.index + match[0].length,
  }));
}

export function findUrls(text: string): FoundValue<string>[] {
  return [...text.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((match) => {
    const value = match[0].replace(/[.,;:!?)\]]+$/, '');
    return { value, start: match.index, end: match.index + value.length };
  });
}

export function findDates(text: string): FoundValue<string>[] {
  return [
    ...text.matchAll(/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?\b/g),
  ].map((match) => ({ value: match[0], start: match.index, end: match.index + match[0].length }));
}

/**
 * Id-like tokens: "ORD-12345", "A1B2", "#4411", "user_42", or bare numbers of 3+ digits that are
 * not amounts. Pure words are never ids.
 */
export function findIds(text: string): FoundValue<string>[] {
  const found: FoundValue<string>[] = [];
  const re = /(?<![\p{L}\p{N}_@.$€£-])#?([\p{L}\p{N}]+(?:[-_][\p{L}\p{N}]+)*)(?![\p{L}\p{N}_@-]|\.\p{L})/gu;
  for (const match of text.matchAll(re)) {
    const token = match[1] ?? '';
    const hasDigit = /\d/.test(token);
    const hasLetter = /\p{L}/u.test(token);
    const isId = (hasDigit && hasLetter) || (hasDigit && !hasLetter && token.replace(/\D/g, '').length >= 3);
    if (!isId) continue;
    // Numbers followed by a currency word are amounts, not ids.
    const end = match.index + match[0].length;
    if (!hasLetter && /^\s?(?:usd|eur|gbp|dollars?|euros?|%)/i.test(text.slice(end, end + 8))) continue;
    found.push({ value: token, start: match.index, end });
  }
  return found;
}

/**
 * Proper names: runs of capitalised words ("Paris", "New York", "San Francisco"). Words that are
 * only capitalised because they start a sentence, stop words, and words listed in `ignore` (the
 * tool's own vocabulary, e.g. "Email" in "Email Bob") are skipped.
 */
export function findProperNames(text: string, ignore: ReadonlySet<string> = new Set()): FoundValue<string>[] {
  const tokens = tokenize(text);
  const found: FoundValue<string>[] = [];
  let run: WordToken[] = [];
  const flush = (): void => {
    const first = run[0];
    const last = run[run.length - 1];
    if (first !== undefined && last !== undefined) {
      const value = text.slice(first.start, last.end).replace(/['’]s$/, '');
      found.push({ value, start: first.start, end: last.end });
    }
    run = [];
  };
  tokens.forEach((token, position) => {
    const capitalised = /^\p{Lu}\p{Ll}/u.test(token.text);
    const previous = tokens[position - 1];
    const gap = previous === undefined ? '' : text.slice(previous.end, token.start);
    const startsSentence = previous === undefined || /[.!?]/.test(gap);
    const excluded =
      !capitalised ||
      STOP_WORDS.has(token.lower) ||
      ignore.has(token.lower) ||
      (startsSentence && COMMON_SENTENCE_STARTERS.has(token.lower));
    // A run continues only across plain spaces: "Paris, Lisbon" is two names, "New York" is one.
    if (run.length > 0 && (excluded || gap !== ' ')) flush();
    if (!excluded) run.push(token);
  });
  flush();
  return found;
}

/** Occurrences of yes/no/true/false, the only words the scripted models read as booleans. */
export function findBooleans(text: string): FoundValue<boolean>[] {
  return [...text.matchAll(/\b(yes|no|true|false)\b/gi)].map((match) => {
    const word = (match[1] ?? '').toLowerCase();
    return { value: word === 'yes' || word === 'true', start: match.index, end: match.index + match[0].length };
  });
}

/** Truncates to about `max` characters on a word boundary, marking the cut with an ellipsis. */
export function truncate(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > max * 0.6 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

/** Rough token count: whitespace-separated words. Good enough for usage accounting of a fake model. */
export function countTokens(text: string): number {
  // A character loop rather than split(): it runs over the whole prompt on every model call,
  // and allocating one string per word made the fake model's cost grow with the history.
  let count = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const isSpace =
      code === 32 ||
      (code >= 9 && code <= 13) ||
      code === 160 ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0xfeff ||
      (code >= 0x2000 && code <= 0x200a) ||
      code === 0x1680 ||
      code === 0x202f ||
      code === 0x205f ||
      code === 0x3000 ||
      code === 0x85;
    if (isSpace) inWord = false;
    else if (!inWord) {
      inWord = true;
      count += 1;
    }
  }
  return count;
}
