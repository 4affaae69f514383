import { checkEnvelope, checkLinks, checkRecord, checkRecords, isRecord, lenientEntry, linkKeys, refuseRouteKeys, throwUnknown, type RecordKeys } from '../service/writes/body-keys';
import type { BodyCheck } from '../service/writes/resource-body-keys';
import type { FieldErrors } from '../service/writes/validate-input';
import type { ResolvedRelation } from './relation-config';

/** The routes that take `_scenario` (decision 50): the collection routes and attach. */
const SCENARIO_ROUTES = ['store', 'updateMany', 'destroyMany', 'attach', 'detachMany', 'updatePivotMany'];

/**
 * The body check of a relation route (decisions 49, 50, 77): the envelope keys its body forms
 * name (the dataKey, `ids`, `<related>_ids`, `_scenario` where taken), the related records' fields,
 * a link's pivot columns; anything else is an `unknown_field` at its path. Null: the body is not read.
 */
export function relationBodyCheck(config: ResolvedRelation, action: string): BodyCheck | null {
  const related = config.related;
  const lenient = lenientEntry(related.entry);
  const takesScenario = SCENARIO_ROUTES.includes(action);
  const scenario = takesScenario ? ['_scenario'] : [];
  const record: RecordKeys = { info: related.entry.info, lenient, extra: [...(config.kind === 'manyToMany' ? ['pivot'] : []), ...scenario] };
  const pivot = config.pivot;
  const link = pivot ? linkKeys(related.entry.info, lenient, pivot, scenario) : null;
  const dataKeyOf = (body: unknown): string | null => (isRecord(body) ? (config.dataKeys.find((k) => Object.prototype.hasOwnProperty.call(body, k)) ?? null) : null);
  const idKeys = ['ids', `${related.name}_ids`, ...config.dataKeys, ...scenario];

  // the records of create and update: under the dataKey (one object or an array), else the body itself
  const records = (body: unknown, errors: FieldErrors): void => {
    const key = dataKeyOf(body);
    if (key === null) {
      // a configuration declaring its dataKey answers a body without it with a 400 naming it (decision 67)
      // (a single update takes the body itself then)
      if (config.dataKeyDeclared && isRecord(body) && action !== 'update') return;
      if (Array.isArray(body)) return checkRecords(body, record, `${config.dataKeys[0]}.`, errors);
      return checkRecord(body, record, '', errors);
    }
    const value = (body as Record<string, unknown>)[key];
    checkEnvelope(body as Record<string, unknown>, [...config.dataKeys, ...scenario], errors);
    if (Array.isArray(value)) checkRecords(value, record, `${key}.`, errors);
    else checkRecord(value, record, '', errors);
  };
  // the links of attach (one object), bulk_attach, sync, toggle and pivot updates
  const links = (body: unknown, params: Readonly<Record<string, unknown>>, errors: FieldErrors): void => {
    if (!link || !pivot) return;
    const key = dataKeyOf(body);
    const single = action === 'updatePivot' || (action === 'attach' && (params._scenario || 'attach') === 'attach');
    if (Array.isArray(body)) return checkLinks(body, link, pivot, `${config.dataKeys[0]}.`, errors);
    if (!isRecord(body)) return;
    if (single && (key === null || !isRecord(body[key]))) return checkRecord(body, link, '', errors);
    const found = key ?? idKeys.find((k) => Object.prototype.hasOwnProperty.call(body, k) && k !== '_scenario');
    // no key the route reads its ids from (`{}`, a misspelled dataKey): the write's 400 names the dataKey
    if (found === undefined) return;
    checkEnvelope(body, single ? [...config.dataKeys, ...scenario] : idKeys, errors);
    if (single) checkRecord(body[found], link, '', errors);
    else checkLinks(body[found], link, pivot, `${found}.`, errors);
  };

  const checked = (run: (body: unknown, params: Readonly<Record<string, unknown>>, errors: FieldErrors) => void): BodyCheck => (body, params) => {
    refuseRouteKeys(body, takesScenario);
    const errors: FieldErrors = {};
    run(body, params, errors);
    throwUnknown(errors);
  };
  switch (action) {
    case 'store':
    case 'update':
    case 'updateMany':
      return checked((body, _params, errors) => records(body, errors));
    case 'destroyMany':
    case 'detachMany':
      return checked((body, _params, errors) => {
        // without an id list the write answers a 400 naming the forms it takes (decision 49)
        if (isRecord(body) && idKeys.some((k) => Array.isArray(body[k]))) checkEnvelope(body, idKeys, errors);
      });
    case 'attach':
    case 'updatePivot':
    case 'updatePivotMany':
      return checked(links);
    default:
      return null;
  }
}
