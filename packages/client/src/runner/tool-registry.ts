import type { DefinedTool, ToolEntry, ToolHandler, ToolsInput } from '../tools/define-tool.ts';
import type { JsonSchema } from '../tools/from-schema.ts';

export interface RegisteredTool extends ToolEntry {
  name: string;
}

/** A tool the model can be told about: a name, a description and the JSON Schema of the input. */
export interface ToolDeclarationSource {
  name: string;
  description: string | undefined;
  parameters: JsonSchema;
}

/** The run's handlers by name, whatever form they were given in, plus the fallback. */
export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();

  constructor(
    tools: ToolsInput | undefined,
    private readonly fallback: ToolHandler | undefined,
  ) {
    if (Array.isArray(tools)) {
      for (const tool of tools as readonly DefinedTool[]) {
        if (this.byName.has(tool.name)) throw new TypeError(`Tool '${tool.name}' is defined twice in tools.`);
        this.byName.set(tool.name, registered(tool.name, tool));
      }
    } else if (tools) {
      for (const [name, value] of Object.entries(tools as Readonly<Record<string, ToolHandler | ToolEntry>>)) {
        this.byName.set(name, typeof value === 'function' ? { name, handler: value } : registered(name, value));
      }
    }
  }

  /** The handler for a call: the tool's own, else the fallback, else none. */
  get(name: string): RegisteredTool | undefined {
    const tool = this.byName.get(name);
    if (tool) return tool;
    return this.fallback ? { name, handler: this.fallback } : undefined;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Tools with a schema, for faces that take per-request tool declarations. */
  declarations(): ToolDeclarationSource[] {
    return [...this.byName.values()].flatMap((tool) =>
      tool.parameters ? [{ name: tool.name, description: tool.description, parameters: tool.parameters }] : [],
    );
  }
}

/** Copies an entry's settings; the handler is called on its object, so class-based tools keep `this`. */
function registered(name: string, entry: ToolEntry): RegisteredTool {
  return {
    name,
    handler: (input, context) => entry.handler(input, context),
    timeoutMs: entry.timeoutMs,
    description: entry.description,
    parameters: entry.parameters,
  };
}
