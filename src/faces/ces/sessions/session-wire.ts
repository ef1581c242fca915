import { z } from 'zod';

/**
 * `RunSessionRequest` as JSON (google.cloud.ces.v1 SessionService). Strict: an unknown field is
 * an INVALID_ARGUMENT naming it. Audio fields are accepted in the config (clients send them by
 * default) but audio and DTMF inputs are refused: Baton is a text-and-files server.
 */
const struct = z.record(z.string(), z.unknown());

const toolsetToolSchema = z.object({ toolset: z.string(), toolId: z.string() }).strict();

export const toolResponseSchema = z
  .object({
    id: z.string().max(200).optional(),
    tool: z.string().max(1_000).optional(),
    toolsetTool: toolsetToolSchema.optional(),
    displayName: z.string().max(200).optional(),
    response: struct,
  })
  .strict();

export type ToolResponseWire = z.infer<typeof toolResponseSchema>;

const mediaSchema = z.object({ mimeType: z.string().min(1).max(200), data: z.string().min(1) }).strict();

export const sessionInputSchema = z
  .object({
    text: z.string().max(100_000).optional(),
    dtmf: z.string().optional(),
    audio: z.string().optional(),
    toolResponses: z
      .object({ toolResponses: z.array(toolResponseSchema).min(1).max(128) })
      .strict()
      .optional(),
    image: mediaSchema.optional(),
    blob: mediaSchema.optional(),
    variables: struct.optional(),
    event: z
      .object({ event: z.string().min(1).max(200) })
      .strict()
      .optional(),
    willContinue: z.boolean().optional(),
  })
  .strict();

export type SessionInputWire = z.infer<typeof sessionInputSchema>;

/** The members of the SessionInput oneof `input_type`. */
export const SESSION_INPUT_MEMBERS = [
  'text',
  'dtmf',
  'audio',
  'toolResponses',
  'image',
  'blob',
  'variables',
  'event',
] as const;

const audioConfig = z
  .object({
    audioEncoding: z.string().optional(),
    sampleRateHertz: z.number().int().optional(),
    noiseSuppressionLevel: z.string().optional(),
  })
  .strict();

export const sessionConfigSchema = z
  .object({
    session: z.string().min(1),
    inputAudioConfig: audioConfig.optional(),
    outputAudioConfig: audioConfig.optional(),
    historicalContexts: z.array(struct).optional(),
    entryAgent: z.string().optional(),
    deployment: z.string().optional(),
    timeZone: z.string().max(100).optional(),
    useToolFakes: z.boolean().optional(),
    remoteDialogflowQueryParameters: struct.optional(),
    enableTextStreaming: z.boolean().optional(),
  })
  .strict();

export const runSessionRequestSchema = z
  .object({
    config: sessionConfigSchema,
    inputs: z.array(sessionInputSchema).min(1).max(64),
  })
  .strict();

export type RunSessionRequest = z.infer<typeof runSessionRequestSchema>;

/** One `SessionOutput`: exactly one of text / toolCalls / endSession, plus the turn markers. */
export interface SessionOutput {
  text?: string;
  toolCalls?: { toolCalls: ToolCallWire[] };
  endSession?: { metadata?: Record<string, unknown> };
  turnIndex: number;
  turnCompleted?: boolean;
  /** Only on the `turnCompleted` output: what happened out of the client's sight (server tools). */
  diagnosticInfo?: { messages: MessageWire[] };
}

/** A tool reference: a Tool resource name, or one tool of a toolset. */
export type ToolRefWire = { tool: string } | { toolsetTool: { toolset: string; toolId: string } };

export type ToolCallWire = ToolRefWire & {
  id: string;
  displayName: string;
  args: Record<string, unknown>;
};

export type ToolResponseOutWire = ToolRefWire & {
  id: string;
  displayName: string;
  /** `{output: …}` for a result, `{error: …}` for a failure (the CES convention). */
  response: { output: unknown } | { error: unknown };
};

/** A CES `Message`: a role ("user", an agent's name, "system" for Baton's notes) and its chunks. */
export interface MessageWire {
  role: string;
  chunks: Record<string, unknown>[];
  eventTime: string;
}
