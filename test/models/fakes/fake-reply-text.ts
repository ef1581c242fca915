/**
 * How the OpenAI and Anthropic fakes cut the text they generate into stream deltas and count it for
 * usage. (The Gemini fake does both its own way: it streams text in two halves and counts at least
 * one token even for nothing.)
 */

/** `text` in pieces of `size` characters, as successive deltas; none for empty text. */
export function chunkText(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/** A rough token count, about four characters a token (so at least one for any text), for usage a script does not give. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}
