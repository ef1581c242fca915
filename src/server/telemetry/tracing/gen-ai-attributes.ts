/**
 * The attribute names of OpenTelemetry's GenAI semantic conventions that Baton's spans carry,
 * and Baton's own (`baton.*`). Written out rather than imported: the conventions' package marks
 * them incubating, and these names are what trace backends already read.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  /** The provider, in the conventions' older name, which most backends still read. */
  system: 'gen_ai.system',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  errorType: 'error.type',
} as const;

export const BATON = {
  appId: 'baton.app.id',
  turnId: 'baton.turn.id',
  /** What set the run going: start, resume, takeover. */
  turnRun: 'baton.turn.run',
  turnStatus: 'baton.turn.status',
  /** How a tool call came to run: server, approved, fake. */
  toolRun: 'baton.tool.run',
  toolFaked: 'baton.tool.faked',
  callKind: 'baton.call.kind',
  callState: 'baton.call.state',
  /** Why a span links to another: `paused` (the run that paused on the calls this one resumes). */
  linkReason: 'baton.link.reason',
} as const;

/** The conventions' provider names for Baton's built-in providers; others keep their own name. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  ollama: 'ollama',
  scripted: 'baton.scripted',
};

/** `provider:model-id` split into the conventions' provider name and the model id. */
export function providerAndModel(model: string): { provider: string; model: string } {
  const colon = model.indexOf(':');
  if (colon < 0) return { provider: model, model };
  const provider = model.slice(0, colon);
  return { provider: PROVIDER_NAMES[provider] ?? provider, model: model.slice(colon + 1) };
}
