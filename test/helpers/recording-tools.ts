import type { ServerCall } from '../../src/engine/ports/tool-provider.ts';
import type { ServerTools } from '../../src/resources/tools/server-tools.ts';
import type { ClientToolDefinition } from '../../src/domain/records.ts';

/** A server tool `lookup_price {sku}` from the Tool resource `lookup-price`. */
export const lookupPriceTool: ClientToolDefinition = {
  name: 'lookup_price',
  description: 'Price of a product.',
  parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  server: { collection: 'tools', resourceId: 'lookup-price' },
};

/** A server tool `refund {amount ≤ 100}` that needs a person's approval before each call. */
export const refundTool: ClientToolDefinition = {
  name: 'refund',
  description: 'Refund an amount.',
  parameters: { type: 'object', properties: { amount: { type: 'number', maximum: 100 } }, required: ['amount'] },
  server: { collection: 'tools', resourceId: 'refund' },
  requireApproval: true,
};

/**
 * A stand-in for the tools layer: offers `tools` to every agent and records every call it runs,
 * answering `{ran, args}`. A tool named in `delaysMs` answers only after that long.
 */
export class RecordingTools implements ServerTools {
  readonly runs: ServerCall[] = [];

  constructor(
    private readonly tools: readonly ClientToolDefinition[],
    private readonly delaysMs: Readonly<Record<string, number>> = {},
  ) {}

  async listServerTools(): Promise<ClientToolDefinition[]> {
    return [...this.tools];
  }

  async run(call: ServerCall) {
    this.runs.push(call);
    const delay = this.delaysMs[call.tool.name];
    if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay).unref());
    return {
      output: [{ type: 'text' as const, text: JSON.stringify({ ran: call.tool.name, args: call.arguments }) }],
      isError: false,
    };
  }

  count(name: string): number {
    return this.runs.filter((run) => run.tool.name === name).length;
  }
}
