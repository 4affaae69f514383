import type { Document } from 'mongodb';
import type { Having } from '../../lib/query/aggregate-ast';
import type { Filter } from '../../lib/query/ast';
import type { Catalog, FieldInfo, ModelInfo } from '../../lib/resource/model-info';
import { mapFilter } from '../../lib/query/walk';
import { CompileContext } from './compile-context';
import { compileFilterStages } from './compile-filter';

const ANSWER = '__answer';

/** Where each answer column sits in a `$group` output document: group values in `_id`. */
const path = (key: string): string => (key.startsWith('g') ? `_id.${key}` : key);

/**
 * `having` (decision 84) as a `$match` over the grouped documents (after the measures are
 * finished): the list's condition compiler, over a model whose fields are the answer's columns,
 * so its values, nulls and negations mean what they mean in `oper`.
 */
export function compileHaving(having: Having | null | undefined): Document[] {
  if (!having) return [];
  const fields: Record<string, FieldInfo> = {};
  for (const [key, info] of Object.entries(having.fields)) fields[path(key)] = { ...info, name: path(key) };
  const model: ModelInfo = {
    name: ANSWER,
    key: '\u0000',
    idType: 'objectId',
    fields,
    relations: {},
    hiddenRelations: {},
    fillable: [],
    fieldsByRole: {},
    hierarchyField: null,
    owner: null,
    softDelete: null,
    timestamps: false,
  };
  const catalog: Catalog = { model: () => model, has: (name) => name === ANSWER, all: () => [model] };
  const filter = mapFilter(having.filter, ANSWER, () => ANSWER, (node): Filter => (node.kind === 'condition' ? { ...node, field: path(node.field) } : node));
  return compileFilterStages(filter, ANSWER, new CompileContext(catalog, { [ANSWER]: { collection: ANSWER } }));
}
