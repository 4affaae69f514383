import { BadRequestError } from '../errors';
import { filterField } from '../query/check-field';
import { decodeParam, isAbsent } from '../query/json-param';
import { relationStep } from '../query/relation-path';
import type { RelationLoad } from '../query/ast';
import type { Catalog, ModelInfo } from '../resource/model-info';

/** One exported column: its header (as the client named it) and where its value is in a row. */
export interface ExportColumn {
  header: string;
  /** null: a root field; else the to-one relation holding `field`. */
  relation: string | null;
  field: string;
  /**
   * A root field that is also the key of a belongs-to of the same name (a mongoose ref path
   * `writer`): when that relation is loaded the row holds the record there, so the cell is its key.
   */
  keyOf?: string;
}

const MAX_COLUMNS = 200;

/** `columns` as an array, a JSON array or a comma-separated string (decision 53); null when absent. */
function readColumns(raw: unknown): string[] | null {
  const value = decodeParam('columns', raw);
  if (isAbsent(value)) return null;
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) {
    throw new BadRequestError('Parameter "columns" must be an array of strings or a comma-separated string.', 'columns');
  }
  const names = (items as string[]).map((i) => i.trim()).filter((i) => i !== '');
  if (names.length > MAX_COLUMNS) throw new BadRequestError(`Parameter "columns" may name at most ${MAX_COLUMNS} columns.`, 'columns');
  return names;
}

/**
 * The export's columns, every one checked before any byte is sent: root fields, or `relation.field`
 * through one to-one relation in RELATIONS. Default: `id`, then `select` when given, else fillable.
 * Write-only fields are unknown here as everywhere.
 */
export function exportColumns(raw: unknown, select: string[] | null, model: ModelInfo, catalog: Catalog): ExportColumn[] {
  // the default leaves out fields the caller may not read (write-only in their view)
  const names = readColumns(raw) ?? [model.key, ...(select ?? model.fillable).filter((f) => f !== model.key && !model.fields[f]?.writeOnly)];
  if (names.length === 0) throw new BadRequestError('Parameter "columns" must name at least one column.', 'columns');
  return names.map((name): ExportColumn => {
    const dot = name.indexOf('.');
    if (dot < 0) {
      const field = filterField(model, name, 'columns', 'columns').name;
      const same = model.relations[field];
      const keyOf = same?.kind === 'belongsTo' && same.foreignKey === field && catalog.has(same.target) ? catalog.model(same.target).key : undefined;
      return keyOf ? { header: name, relation: null, field, keyOf } : { header: name, relation: null, field };
    }
    const relationName = name.slice(0, dot);
    const step = relationStep(model, relationName, catalog, 'columns');
    if (step.relation.kind !== 'belongsTo' && step.relation.kind !== 'hasOne') {
      throw new BadRequestError(`Column "${name}": only to-one relations (belongsTo, hasOne) can be exported as columns.`, 'columns');
    }
    return { header: name, relation: relationName, field: filterField(step.target, name.slice(dot + 1), `columns (${relationName})`, 'columns').name };
  });
}

/** The root columns and relation loads the export needs (relation keys come with the loads). */
export function exportReads(columns: ExportColumn[], model: ModelInfo): { select: string[]; relations: RelationLoad[] } {
  const select = new Set<string>([model.key]);
  const loads = new Map<string, Set<string>>();
  for (const column of columns) {
    if (!column.relation) select.add(column.field);
    else {
      const rel = model.relations[column.relation];
      if (rel.kind === 'belongsTo') select.add(rel.foreignKey);
      const fields = loads.get(column.relation) ?? new Set<string>();
      fields.add(column.field);
      loads.set(column.relation, fields);
    }
  }
  const relations = [...loads].map(([name, fields]): RelationLoad => ({ name, columns: [...fields], children: [], filter: null }));
  return { select: [...select], relations };
}

/** The value of a column in a row. */
export function cellValue(row: Record<string, unknown>, column: ExportColumn): unknown {
  if (!column.relation) {
    const value = row[column.field];
    return column.keyOf && value && typeof value === 'object' && !(value instanceof Date) ? (value as Record<string, unknown>)[column.keyOf] : value;
  }
  const related = row[column.relation] as Record<string, unknown> | null | undefined;
  return related ? related[column.field] : null;
}
