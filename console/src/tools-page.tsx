import { AlertRegion } from './alert-region.tsx';
import type { CesResource } from './api-types.ts';
import { usePagedList, type PagedList } from './paged-list.ts';
import { useSession } from './session-context.ts';
import { ListFooter } from './list-footer.tsx';

const TOOL_KINDS = ['clientFunction', 'openApiTool', 'jsFunction'] as const;
const TOOLSET_KINDS = ['mcpToolset', 'openApiToolset'] as const;
const KIND_LABEL: Record<string, string> = {
  clientFunction: 'Client function',
  openApiTool: 'OpenAPI tool',
  jsFunction: 'JavaScript function',
  mcpToolset: 'MCP toolset',
  openApiToolset: 'OpenAPI toolset',
};

function kindOf(resource: CesResource, kinds: readonly (keyof CesResource)[]): string {
  const kind = kinds.find((name) => resource[name] !== undefined);
  return kind ? (KIND_LABEL[kind] ?? kind) : 'Other';
}

function shortName(resource: CesResource): string {
  return resource.displayName ?? resource.name.split('/').pop() ?? resource.name;
}

/** The app's CES tools and toolsets (Google-style pages), with what needs approval. */
export function ToolsPage() {
  const { client, principal } = useSession();
  const app = principal.app.resource_name;
  const tools = usePagedList(`tools:${app}`, async (token) => {
    const page = await client.listCes(app, 'tools', token);
    return { items: page.tools ?? [], next: page.nextPageToken || null };
  });
  const toolsets = usePagedList(`toolsets:${app}`, async (token) => {
    const page = await client.listCes(app, 'toolsets', token);
    return { items: page.toolsets ?? [], next: page.nextPageToken || null };
  });

  return (
    <>
      <h1 tabIndex={-1}>Tools</h1>
      <p class="lede">
        Resources of <span class="mono">{app}</span>. Client functions are answered from the inbox; the other kinds run
        on Baton, and those that require approval wait in the inbox first.
      </p>
      <ResourceSection title="Tools" list={tools} kinds={TOOL_KINDS} empty="No tools yet." />
      <ResourceSection title="Toolsets" list={toolsets} kinds={TOOLSET_KINDS} empty="No toolsets yet." />
    </>
  );
}

function ResourceSection({
  title,
  list,
  kinds,
  empty,
}: {
  title: string;
  list: PagedList<CesResource>;
  kinds: readonly (keyof CesResource)[];
  empty: string;
}) {
  const id = `${title.toLowerCase()}-title`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <AlertRegion messages={list.error ? [list.error] : []} />
      {!list.loading && list.items.length === 0 && !list.error && <p class="empty">{empty}</p>}
      <ul class="card-list" aria-label={title}>
        {list.items.map((resource) => {
          const description =
            resource.description ??
            resource.clientFunction?.description ??
            resource.jsFunction?.description ??
            resource.openApiTool?.description;
          return (
            <li key={resource.name} class="card-row">
              <h3 class="row-title">{shortName(resource)}</h3>
              <span class="badge">{kindOf(resource, kinds)}</span>
              {resource.requireApproval && <span class="badge badge-approval">requires approval</span>}
              {resource.executionType === 'ASYNCHRONOUS' && <span class="badge">asynchronous</span>}
              {description && <p>{description}</p>}
              <p class="muted mono">{resource.name}</p>
            </li>
          );
        })}
      </ul>
      <ListFooter list={list} noun={title.toLowerCase()} />
    </section>
  );
}
