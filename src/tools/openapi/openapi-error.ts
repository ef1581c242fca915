/**
 * The one error type of the OpenAPI toolset code. Its message is meant for the person who wrote
 * the spec or the toolset (an INVALID_ARGUMENT "toolset not created" answer), so it always says
 * what is wrong and, when known, where: `where` is a dotted path into the document such as
 * `paths./pets.get.responses`.
 */
export class OpenApiError extends Error {
  override readonly name = 'OpenApiError';
  readonly where: string | undefined;

  constructor(message: string, where?: string) {
    super(where === undefined ? message : `${where}: ${message}`);
    this.where = where;
  }
}

/** A dotted location for messages; path keys stay readable (`paths./pets/{id}.get`). */
export function joinWhere(parts: readonly (string | number)[]): string {
  return parts.map(String).join('.');
}
