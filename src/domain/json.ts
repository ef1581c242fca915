/** JSON as stored and sent: what `JSON.parse` returns, and objects of it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
