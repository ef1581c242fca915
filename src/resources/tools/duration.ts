/** A protobuf Duration in JSON (`"30s"`, `"1.5s"`) in seconds; undefined when malformed. */
export function parseDurationSeconds(text: string): number | undefined {
  const match = /^(\d+(?:\.\d{1,9})?)s$/.exec(text);
  return match ? Number(match[1]) : undefined;
}
