import { useEffect, useState } from 'preact/hooks';
import { AGE_OPTIONS, type AgeFilter, type InboxFilters } from './inbox-filters.ts';
import { useSession } from './session-context.ts';

interface Props {
  filters: InboxFilters;
  onChange(filters: InboxFilters): void;
}

/**
 * Agent, tool and age filters. Each applies on the native change event (a select's pick, or Enter
 * / leaving the tool field), so typing a tool name does not refetch on every key.
 */
export function InboxFilterForm({ filters, onChange }: Props) {
  const { client } = useSession();
  const [agents, setAgents] = useState<string[]>([]);
  const [tools, setTools] = useState<string[]>([]);
  const [tool, setTool] = useState(filters.tool);

  useEffect(() => setTool(filters.tool), [filters.tool]);
  useEffect(() => {
    let alive = true;
    // Only for the choices; the filter works without them (an unknown agent simply matches nothing).
    client
      .listAgents({ limit: 200 })
      .then((page) => {
        if (!alive) return;
        setAgents(page.data.map((agent) => agent.name).sort());
        setTools([...new Set(page.data.flatMap((agent) => agent.tools.map((entry) => entry.name)))].sort());
      })
      .catch(() => {});
    return () => {
      alive = false;
    };
  }, [client]);

  const agentChoices = filters.agent !== '' && !agents.includes(filters.agent) ? [filters.agent, ...agents] : agents;
  const active = filters.agent !== '' || filters.tool !== '' || filters.age !== '';

  return (
    <form
      class="filters"
      aria-label="Filter pending calls"
      onSubmit={(event) => {
        event.preventDefault();
        onChange({ ...filters, tool: tool.trim() });
      }}
    >
      <div class="field">
        <label for="filter-agent">Agent</label>
        <select
          id="filter-agent"
          value={filters.agent}
          onChange={(event) => onChange({ ...filters, agent: event.currentTarget.value })}
        >
          <option value="">Any agent</option>
          {agentChoices.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-tool">Tool</label>
        <input
          id="filter-tool"
          type="search"
          list="filter-tool-names"
          value={tool}
          placeholder="Any tool"
          onInput={(event) => setTool(event.currentTarget.value)}
          onChange={(event) => onChange({ ...filters, tool: event.currentTarget.value.trim() })}
        />
        <datalist id="filter-tool-names">
          {tools.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </div>
      <div class="field">
        <label for="filter-age">Age</label>
        <select
          id="filter-age"
          value={filters.age}
          onChange={(event) => onChange({ ...filters, age: event.currentTarget.value as AgeFilter })}
        >
          {AGE_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <div class="filter-actions">
        <button type="submit" class="quiet">
          Apply
        </button>
        {active && (
          <button type="button" class="quiet" onClick={() => onChange({ agent: '', tool: '', age: '' })}>
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}
