/** The longest piece, in UTF-16 units: text without spaces (CJK, a long JSON value) still streams. */
const MAX_PIECE = 32;

const isSpace = (char: string | undefined): boolean => char !== undefined && /\s/.test(char);
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * Cuts streamed text into the pieces its `*.delta` events carry: each word with the spaces
 * before it, or at most MAX_PIECE units of a longer run. The cuts depend on the text only, never
 * on how a provider chunked it, so a stream replayed later from the stored text
 * (`GET /v1/responses/{id}?stream=true`) has the same events, with the same sequence numbers, as
 * the stream that delivered it live. A piece waits for the character after it (a space ends a
 * word), so the live stream lags the model by at most one word.
 */
export class TextPieces {
  private pending = '';

  /** Adds streamed text; returns the pieces it completed. */
  push(delta: string): string[] {
    this.pending += delta;
    return this.take(false);
  }

  /** The text ended: returns what is left as the last piece, if anything is. */
  flush(): string[] {
    return this.take(true);
  }

  private take(final: boolean): string[] {
    const pieces: string[] = [];
    for (;;) {
      const cut = this.nextCut(final);
      if (cut === 0) return pieces;
      pieces.push(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
  }

  /** Where the next piece ends, or 0 when it cannot be known yet. */
  private nextCut(final: boolean): number {
    const text = this.pending;
    let index = 0;
    while (index < text.length && index < MAX_PIECE && isSpace(text[index])) index += 1;
    while (index < text.length && index < MAX_PIECE && !isSpace(text[index])) index += 1;
    if (index >= MAX_PIECE) {
      // Never between the halves of a surrogate pair: both go in the next piece.
      return isHighSurrogate(text.charCodeAt(index - 1)) ? index - 1 : index;
    }
    if (index < text.length) return index;
    return final ? text.length : 0;
  }
}

/** The pieces of a whole text, exactly as a live stream of it would have sent them. */
export function textPieces(text: string): string[] {
  const pieces = new TextPieces();
  return [...pieces.push(text), ...pieces.flush()];
}
