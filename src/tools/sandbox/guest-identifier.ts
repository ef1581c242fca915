/**
 * Names of guest functions.
 *
 * The host looks functions up by evaluating their name in the guest's global scope, so a name
 * must be a plain identifier: nothing else may ever be spliced into guest source. Tool names and
 * ids allow characters JavaScript identifiers do not (`get-weather`, `1st`), so they are mapped
 * the way the fake contract spells it: every other character becomes `_`.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Reserved words (and words reserved in strict mode or in some positions): never function names. */
const RESERVED = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export extends false finally ' +
    'for function if implements import in instanceof interface let new null package private protected public return ' +
    'static super switch this throw true try typeof var void while with yield'
  ).split(' '),
);

export function isGuestIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/** `get-weather` → `get_weather`; a leading digit gets a `_` prefix (`1st` → `_1st`). */
export function toGuestIdentifier(name: string): string {
  const mapped = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[0-9]/.test(mapped) ? `_${mapped}` : mapped || '_';
}
