import type { JsonSchema } from './api-types.ts';
import { initialDraft, kindOf, type Draft, type FieldPath } from './schema-model.ts';

interface FieldProps {
  schema: JsonSchema;
  draft: Draft;
  path: FieldPath;
  label: string;
  required: boolean;
  onChange(path: FieldPath, value: Draft): void;
}

/** Ids must be unique and valid; property names may hold anything. */
function fieldId(path: FieldPath): string {
  return `rf-${path.map((part) => part.replace(/[^A-Za-z0-9_-]/g, '_')).join('-') || 'root'}`;
}

/**
 * A form generated from a tool's response schema: text, select (enum), number, checkbox,
 * fieldsets for nested objects, repeatable inputs for arrays of scalars, and a JSON box for
 * anything else. The draft lives with the caller; this only renders it and reports edits.
 */
export function SchemaForm({
  schema,
  draft,
  onChange,
}: {
  schema: JsonSchema;
  draft: Draft;
  onChange(path: FieldPath, value: Draft): void;
}) {
  if (kindOf(schema) === 'object') {
    return <ObjectFields schema={schema} draft={draft} path={[]} onChange={onChange} />;
  }
  return (
    <SchemaField
      schema={schema}
      draft={draft}
      path={[]}
      label={schema.title ?? 'Result'}
      required
      onChange={onChange}
    />
  );
}

function ObjectFields({
  schema,
  draft,
  path,
  onChange,
}: {
  schema: JsonSchema;
  draft: Draft;
  path: FieldPath;
  onChange: FieldProps['onChange'];
}) {
  const fields = typeof draft === 'object' && !Array.isArray(draft) ? draft : {};
  const required = new Set(schema.required ?? []);
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, child]) => (
        <SchemaField
          key={name}
          schema={child}
          draft={fields[name] ?? initialDraft(child)}
          path={[...path, name]}
          label={child.title ?? name}
          required={required.has(name)}
          onChange={onChange}
        />
      ))}
    </>
  );
}

function Hint({ id, schema }: { id: string; schema: JsonSchema }) {
  return schema.description ? (
    <p class="hint" id={`${id}-hint`}>
      {schema.description}
    </p>
  ) : null;
}

function LabelText({ label, required }: { label: string; required: boolean }) {
  return (
    <>
      {label}
      {required && <span class="required"> (required)</span>}
    </>
  );
}

export function SchemaField(props: FieldProps) {
  const { schema, draft, path, label, required, onChange } = props;
  const id = fieldId(path);
  const describedBy = schema.description ? `${id}-hint` : undefined;
  const kind = kindOf(schema);

  if (kind === 'object') {
    return (
      <fieldset class="nested">
        <legend>
          <LabelText label={label} required={required} />
        </legend>
        <Hint id={id} schema={schema} />
        <ObjectFields schema={schema} draft={draft} path={path} onChange={onChange} />
      </fieldset>
    );
  }
  if (kind === 'array') return <ArrayField {...props} />;
  if (kind === 'boolean') {
    return (
      <div class="field checkbox">
        <input
          id={id}
          type="checkbox"
          checked={draft === true}
          aria-describedby={describedBy}
          onChange={(event) => onChange(path, event.currentTarget.checked)}
        />
        <label for={id}>{label}</label>
        <Hint id={id} schema={schema} />
      </div>
    );
  }
  return (
    <div class="field">
      <label for={id}>
        <LabelText label={label} required={required} />
      </label>
      <Hint id={id} schema={schema} />
      <ScalarInput
        id={id}
        schema={schema}
        value={typeof draft === 'string' ? draft : ''}
        required={required}
        describedBy={describedBy}
        onInput={(value) => onChange(path, value)}
      />
    </div>
  );
}

interface ScalarProps {
  id: string;
  schema: JsonSchema;
  value: string;
  required: boolean;
  describedBy: string | undefined;
  onInput(value: string): void;
  ariaLabel?: string;
}

function ScalarInput({ id, schema, value, required, describedBy, onInput, ariaLabel }: ScalarProps) {
  const kind = kindOf(schema);
  const common = { id, 'aria-describedby': describedBy, 'aria-required': required, 'aria-label': ariaLabel };
  if (kind === 'enum') {
    return (
      <select {...common} value={value} onChange={(event) => onInput(event.currentTarget.value)}>
        <option value="">— choose —</option>
        {(schema.enum ?? []).map((option) => (
          <option key={String(option)} value={String(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  }
  if (kind === 'number' || kind === 'integer') {
    return (
      <input
        {...common}
        type="number"
        inputMode={kind === 'integer' ? 'numeric' : 'decimal'}
        step={kind === 'integer' ? 1 : 'any'}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
    );
  }
  if (kind === 'json') {
    return (
      <textarea
        {...common}
        class="json-input"
        rows={4}
        spellcheck={false}
        value={value}
        placeholder="JSON"
        onInput={(event) => onInput(event.currentTarget.value)}
      />
    );
  }
  // Booleans inside arrays are typed as true/false; anything else is text.
  return <input {...common} type="text" value={value} onInput={(event) => onInput(event.currentTarget.value)} />;
}

/** Arrays of scalars: one input per item, with add and remove buttons named after the field. */
function ArrayField({ schema, draft, path, label, required, onChange }: FieldProps) {
  const items = Array.isArray(draft) ? draft : [];
  const itemSchema: JsonSchema =
    kindOf(schema.items ?? {}) === 'boolean' ? { type: 'string', enum: ['true', 'false'] } : (schema.items ?? {});
  const id = fieldId(path);
  return (
    <fieldset class="nested">
      <legend>
        <LabelText label={label} required={required} />
      </legend>
      <Hint id={id} schema={schema} />
      {items.length === 0 && <p class="hint">No items.</p>}
      {items.map((item, index) => (
        <div class="array-item" key={index}>
          <ScalarInput
            id={`${id}-${index}`}
            schema={itemSchema}
            value={typeof item === 'string' ? item : String(item)}
            required={false}
            describedBy={undefined}
            ariaLabel={`${label} item ${index + 1}`}
            onInput={(value) => onChange([...path, String(index)], value)}
          />
          <button
            type="button"
            class="quiet"
            aria-label={`Remove ${label} item ${index + 1}`}
            onClick={() =>
              onChange(
                path,
                items.filter((_, at) => at !== index),
              )
            }
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="quiet" onClick={() => onChange(path, [...items, ''])}>
        Add {label} item
      </button>
    </fieldset>
  );
}
