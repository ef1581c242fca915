/** The value of every label past a `BoundedLabel`'s limit. */
export const OTHER_LABEL_VALUE = '_other';

/**
 * The values of one label whose values come from configuration (agent names, model ids), kept
 * bounded: the first `limit` distinct values are used as they are, any later one is reported as
 * `_other`. Agents and models are created through the API, so without a bound an app could make
 * the metrics' series grow without end.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number) {}

  value(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return OTHER_LABEL_VALUE;
    this.seen.add(value);
    return value;
  }
}
