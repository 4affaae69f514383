import { checkEnvelope, checkLinks, checkRecord, checkRecords, isRecord, lenientEntry, linkKeys, refuseRouteKeys, throwUnknown, type KeyedEntry, type NestedKeys, type RecordKeys } from './body-keys';
import type { FieldErrors } from './validate-input';

/** A route's check of its body's keys (decisions 50 and 77), run before its work. */
export type BodyCheck = (body: unknown, params: Readonly<Record<string, unknown>>) => void;

/**
 * The records of an opted-in relation, as decision 58 shapes them: one-to-many records (to
 * create, or `{create, update}` on an update), many-to-many links (an array, or `{attach, sync}`).
 * Relations inside them are refused by the write (one level deep).
 */
function nestedKeys(relation: NestedKeys, value: unknown, mode: 'create' | 'update', path: string, errors: FieldErrors): void {
  const info = relation.related.entry.info;
  const leaveRelations = (): void => undefined;
  if (relation.kind === 'oneToMany') {
    const shape: RecordKeys = { info, lenient: lenientEntry(relation.related.entry), nested: leaveRelations };
    if (mode === 'create' || !isRecord(value)) return checkRecords(value, shape, `${path}.`, errors);
    checkRecords(value.create, shape, `${path}.create.`, errors);
    checkRecords(value.update, shape, `${path}.update.`, errors);
    return;
  }
  const pivot = relation.pivot!;
  const shape: RecordKeys = { ...linkKeys(info, lenientEntry(relation.related.entry), pivot), nested: leaveRelations };
  if (Array.isArray(value) || !isRecord(value)) return checkLinks(value, shape, pivot, `${path}.`, errors);
  checkLinks(value.attach, shape, pivot, `${path}.attach.`, errors);
  checkLinks(value.sync, shape, pivot, `${path}.sync.`, errors);
}

/** One record of the resource, with the nested relations the route takes (store, update, /validate). */
function recordShape(entry: KeyedEntry, nested: ReadonlyMap<string, NestedKeys> | null, mode: 'create' | 'update' | null): RecordKeys {
  return {
    info: entry.info,
    lenient: lenientEntry(entry),
    // relation keys are the nested writes' (decision 58): checked when opted in, else refused by name
    nested: (key, value, path, errors) => {
      const relation = mode === null ? undefined : nested?.get(key);
      if (relation) nestedKeys(relation, value, mode!, path, errors);
    },
  };
}

/**
 * The body check of a resource route by its action; null for routes whose body is not read
 * (destroy, restore, force delete: a DELETE of one record ignores its body).
 */
export function resourceBodyCheck(entry: KeyedEntry, action: string, nested: () => ReadonlyMap<string, NestedKeys> | null): BodyCheck | null {
  const model = entry.info.name;
  const bulkOf = (body: unknown): unknown[] | null => {
    if (Array.isArray(body)) return body;
    if (!isRecord(body) || !Array.isArray(body[model])) return null;
    return body[model] as unknown[];
  };
  const checked = (run: (body: unknown, errors: FieldErrors) => void): BodyCheck => (body) => {
    refuseRouteKeys(body, false);
    const errors: FieldErrors = {};
    run(body, errors);
    throwUnknown(errors);
  };
  switch (action) {
    case 'store':
      return checked((body, errors) => {
        const shape = recordShape(entry, nested(), 'create');
        const items = bulkOf(body);
        if (items === null) return checkRecord(body, shape, '', errors);
        if (isRecord(body)) checkEnvelope(body, [model], errors);
        checkRecords(items, shape, `${model}.`, errors);
      });
    case 'validate':
      return checked((body, errors) => checkRecord(body, recordShape(entry, nested(), 'create'), '', errors));
    case 'update':
    case 'updatePatch':
      return checked((body, errors) => checkRecord(body, recordShape(entry, nested(), 'update'), '', errors));
    case 'updateMultiple':
    case 'updateMultipleAlias':
      return checked((body, errors) => {
        // without the bulk key the write answers a 400 naming it (decision 19)
        if (!isRecord(body) || !Array.isArray(body[model])) return;
        checkEnvelope(body, [model], errors);
        // a bulk update takes no nested parts: relation keys are refused by name by the write
        checkRecords(body[model], recordShape(entry, nested(), null), `${model}.`, errors);
      });
    case 'deleteById':
      return checked((body, errors) => {
        if (isRecord(body) && Array.isArray(body.ids)) checkEnvelope(body, ['ids'], errors);
      });
    default:
      return null;
  }
}
