import type { FieldType } from '../resource/model-info';
import type { Registry, ResourceEntry } from '../service/declarations/registry';
import { idSchema, writeSchema, type JsonSchema } from './json-schema';

const PIVOT_TYPES: Record<FieldType, JsonSchema> = {
  string: { type: ['string', 'null'] },
  number: { type: ['number', 'null'] },
  integer: { type: ['integer', 'null'] },
  boolean: { type: ['boolean', 'null'] },
  date: { type: ['string', 'null'], format: 'date-time' },
  id: { type: ['string', 'integer', 'null'] },
  array: { type: 'array', items: {} },
  object: { type: 'object' },
};

const arrayOf = (items: JsonSchema, description?: string): JsonSchema => (description ? { type: 'array', items, description } : { type: 'array', items });

/** A body schema without the foreign key to the parent (the server sets it: decision 58). */
function withoutField(schema: JsonSchema, field: string): JsonSchema {
  const properties = { ...((schema.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  delete properties[field];
  const required = ((schema.required as string[] | undefined) ?? []).filter((f) => f !== field);
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

/**
 * Decision 58 in the API description: the Create and Update bodies of a resource that opts
 * relations in to nested writes carry them, inline (so the typed client types them too).
 * One-to-many: records to create on POST, `{create, update, delete}` on PUT/PATCH; many-to-many:
 * ids or `{id, <pivot columns>}` to attach on POST, an array (sync) or `{attach, detach, sync}`.
 */
export function addNestedSchemas(entry: ResourceEntry, registry: Registry, create: JsonSchema, update: JsonSchema, hidden: (model: string) => ReadonlySet<string>): void {
  const info = entry.info;
  const createProps = (create.properties ??= {}) as Record<string, JsonSchema>;
  const updateProps = (update.properties ??= {}) as Record<string, JsonSchema>;
  for (const declared of entry.declaration.nestedWrites ?? []) {
    const name = typeof declared === 'string' ? declared : declared.relation;
    const relation = info.relations[name] ?? info.hiddenRelations[name];
    if (!relation || !registry.has(relation.target)) continue;
    const target = registry.entry(relation.target);
    const id = idSchema(target.info.idType);
    if (relation.kind === 'hasMany') {
      const off = hidden(target.info.name);
      const child = withoutField(writeSchema(target.info, target.declaration.validation?.create, off), relation.foreignKey);
      const changed = withoutField(writeSchema(target.info, target.declaration.validation?.update, off), relation.foreignKey);
      delete changed.required;
      (changed.properties as Record<string, JsonSchema>).id = id;
      changed.required = ['id'];
      createProps[name] = arrayOf(child, `Nested write: ${target.info.name} records created with this one (${relation.foreignKey} is set by the server; sent, it is a 422).`);
      updateProps[name] = {
        type: 'object',
        description: `Nested write: ${target.info.name} records of this one to create, update or delete (another record's id is a 404 naming it).`,
        properties: { create: arrayOf(child), update: arrayOf(changed), delete: arrayOf(id) },
        additionalProperties: false,
      };
      continue;
    }
    if (relation.kind !== 'belongsToMany' || !relation.pivot) continue;
    const declaredColumns = typeof declared === 'string' ? undefined : declared.pivotColumns;
    const columns = declaredColumns && declaredColumns.length > 0 ? declaredColumns : relation.pivot.columns;
    const pivotProps: Record<string, JsonSchema> = { id };
    for (const column of columns) pivotProps[column] = PIVOT_TYPES[relation.pivot.columnTypes[column] ?? 'string'] ?? {};
    const link: JsonSchema = { oneOf: [id, { type: 'object', properties: pivotProps, required: ['id'] }] };
    createProps[name] = arrayOf(link, `Nested write: ${target.info.name} ids (or {id, ${columns.join(', ') || 'pivot columns'}}) to link to this one.`);
    updateProps[name] = {
      description: `Nested write: an array replaces the linked ${target.info.name} records (sync); or attach, detach and sync.`,
      oneOf: [arrayOf(link), { type: 'object', properties: { attach: arrayOf(link), detach: arrayOf(id), sync: arrayOf(link) }, additionalProperties: false }],
    };
  }
}
