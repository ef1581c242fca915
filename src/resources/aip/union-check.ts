import { BatonError } from '../../domain/errors/baton-error.ts';
import { wordList } from '../word-list.ts';

export interface OneOfOptions {
  /** Whether one member must be set. */
  required: boolean;
  /** The oneof's proto name (e.g. `toolset_type`), quoted in the message when given. */
  name?: string;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * Enforces a proto oneof on a JSON object: at most one member set (null counts as unset), and
 * exactly one when `required`. `path` is where the object sits in the request (e.g.
 * `toolset.apiAuthentication`, or '' for the top level); it prefixes `param`.
 */
export function assertOneOf(
  object: Record<string, unknown>,
  members: readonly string[],
  path: string,
  options: OneOfOptions,
): void {
  const set = members.filter((member) => Object.hasOwn(object, member) && isSet(object[member]));
  const subject = path === '' ? 'The request' : path;
  const prefix = path === '' ? '' : `${path}.`;
  const oneof = options.name ? `the oneof ${options.name}` : 'one oneof';
  if (set.length > 1) {
    const both = set.length === 2 ? `both ${wordList(set, 'and')}` : wordList(set, 'and');
    throw new BatonError(
      'union_conflict',
      `${subject} sets ${both}; these are alternatives of ${oneof}: set exactly one.`,
      {
        param: `${prefix}${set[1]}`,
        details: { members: [...members], set },
      },
    );
  }
  if (set.length === 0 && options.required) {
    throw new BatonError(
      'union_missing',
      `${subject} sets none of ${wordList(members, 'or')}; set exactly one (they are alternatives of ${oneof}).`,
      {
        param: path === '' ? (members[0] ?? null) : path,
        details: { members: [...members], set },
      },
    );
  }
}
