import type { Document } from 'mongodb';
import type { Having } from '../../lib/query/aggregate-ast';
import type { Filter } from '../../lib/query/ast';
import type { FieldInfo } from '../../lib/resource/model-info';
import { ANSWER, answerCatalog } from '../../lib/query/answer-catalog';
import { mapFilter } from '../../lib/query/walk';
import { CompileContext } from './compile-context';
import { compileFilterStages } from './compile-filter';

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
  const catalog = answerCatalog(fields, 'objectId');
  const filter = mapFilter(having.filter, ANSWER, () => ANSWER, (node): Filter => (node.kind === 'condition' ? { ...node, field: path(node.field) } : node));
  return compileFilterStages(filter, ANSWER, new CompileContext(catalog, { [ANSWER]: { collection: ANSWER } }));
}
