import { UnknownFieldsError } from '../errors';
import type { Catalog, ModelInfo, FieldInfo } from '../resource/model-info';

/** One column of an import file, as the header names it. */
export type ImportColumn =
  | { kind: 'field'; index: number; header: string; field: FieldInfo }
  /** `user.email`: the foreign key of a belongsTo, found through a unique field of the target. */
  | { kind: 'relation'; index: number; header: string; target: string; via: string; foreignKey: FieldInfo }
  /** A column a record carries but nobody writes (`id`, timestamps, `deleted_at`, the version): ignored (77). */
  | { kind: 'ignored'; index: number; header: string }
  /** The owner field when it is not writable: checked against the caller (a different value is a row error). */
  | { kind: 'owner'; index: number; header: string; field: FieldInfo };

export interface ImportColumnRules {
  /** Fields the caller's roles may not write (fieldsByRole). */
  prohibited: ReadonlySet<string>;
  /** The caller's view of the catalog: a field they may not read cannot be a lookup. */
  catalog: Catalog;
}

const isUnique = (model: ModelInfo, field: string) => field === model.key || (model.uniqueKeys ?? []).some((set) => set.length === 1 && set[0] === field);

/**
 * Decision 82: the header row read into columns, every problem a 422 naming the column before any
 * row is read: a repeated header, a name that is no field and no to-one path, a field the caller
 * may not write, a path through a field that is not unique on the related model.
 */
export function importColumns(headers: unknown[], model: ModelInfo, rules: ImportColumnRules): ImportColumn[] {
  const errors: Record<string, string[]> = {};
  const seen = new Set<string>();
  const fail = (header: string, message: string) => ((errors[header] ??= []).push(message), null);
  const columns = headers.map((raw, index): ImportColumn | null => {
    const header = String(raw ?? '').trim();
    if (header === '') return fail(`column ${index + 1}`, `Column ${index + 1} has no header.`);
    if (seen.has(header)) return fail(header, `The column "${header}" is repeated.`);
    seen.add(header);
    const dot = header.indexOf('.');
    if (dot >= 0) return relationColumn(header, index, model, rules, fail);
    const field = model.fields[header];
    if (!field || field.writeOnly && !model.fillable.includes(header)) return fail(header, `The column "${header}" is not a field of ${model.name}.`);
    if (header === model.owner && !model.fillable.includes(header)) return { kind: 'owner', index, header, field };
    if (!model.fillable.includes(header)) return { kind: 'ignored', index, header };
    if (rules.prohibited.has(header)) return fail(header, `The column "${header}" names a field you may not write.`);
    return { kind: 'field', index, header, field };
  });
  if (Object.keys(errors).length > 0) throw new UnknownFieldsError(errors);
  return columns as ImportColumn[];
}

function relationColumn(header: string, index: number, model: ModelInfo, rules: ImportColumnRules, fail: (h: string, m: string) => null): ImportColumn | null {
  const [name, via, ...rest] = header.split('.');
  const relation = model.relations[name];
  if (!relation || rest.length > 0) return fail(header, `The column "${header}" is not a field of ${model.name} nor a to-one relation path.`);
  if (relation.kind !== 'belongsTo') return fail(header, `The column "${header}": only belongsTo relations can be imported as columns.`);
  if (!rules.catalog.has(relation.target)) return fail(header, `The column "${header}" names a relation you may not read.`);
  const target = rules.catalog.model(relation.target);
  if (!target.fields[via] || target.fields[via].writeOnly) return fail(header, `The column "${header}": "${via}" is not a field of ${target.name}.`);
  if (!isUnique(target, via)) return fail(header, `The column "${header}": "${via}" is not unique on ${target.name}, so it cannot name one record.`);
  const foreignKey = model.fields[relation.foreignKey];
  if (!foreignKey || !model.fillable.includes(relation.foreignKey)) {
    if (relation.foreignKey === model.owner && foreignKey) return { kind: 'relation', index, header, target: relation.target, via, foreignKey };
    return fail(header, `The column "${header}" sets ${relation.foreignKey}, which is not writable.`);
  }
  if (rules.prohibited.has(relation.foreignKey)) return fail(header, `The column "${header}" sets ${relation.foreignKey}, which you may not write.`);
  return { kind: 'relation', index, header, target: relation.target, via, foreignKey };
}
