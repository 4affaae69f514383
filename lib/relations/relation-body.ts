import { BadRequestError } from '../errors';
import type { ResolvedRelation } from './relation-config';

/**
 * Where a relation route's body holds its data (decisions 49, 67): under the first declared
 * dataKey present, else the forms each route accepts. Pure reads of the body, no database.
 */
export class RelationBody {
  constructor(private readonly config: ResolvedRelation) {}

  /** The dataKey present in a body object (the first declared one), or null. */
  private dataKeyIn(body: unknown): string | null {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
    return this.config.dataKeys.find((key) => Object.prototype.hasOwnProperty.call(body, key)) ?? null;
  }

  /**
   * The mutation data (decision 67): under the first dataKey present; without one, the body itself
   * only when the configuration declares no dataKey, else a 400 naming the dataKey.
   */
  data(body: unknown): { key: string; value: unknown } {
    const found = this.dataKeyIn(body);
    if (found !== null) return { key: found, value: (body as Record<string, unknown>)[found] };
    if (this.config.dataKeyDeclared) throw this.missingDataKey();
    return { key: this.config.dataKeys[0], value: body };
  }

  /** The record of a single update (decision 67): under the dataKey when the body holds it, else the body itself. */
  record(body: unknown): unknown {
    const found = this.dataKeyIn(body);
    return found === null ? body : (body as Record<string, unknown>)[found];
  }

  /** A single attach's or pivot update's object: the spec's bare object, or the same under the dataKey. */
  wrapped(body: unknown): unknown {
    const found = this.dataKeyIn(body);
    const inner = found === null ? undefined : (body as Record<string, unknown>)[found];
    return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : body;
  }

  /**
   * The ids of bulk_attach, sync and toggle: under the dataKey, a flat array, `{ids}` or
   * `{<related>_ids}`. Anything else (`{}`, a misspelled key) is a 400 naming the dataKey, never an
   * empty set: a sync of an empty set detaches everything, so it must be asked for.
   */
  idSet(body: unknown): { key: string; value: unknown } {
    const key = this.config.dataKeys[0];
    if (Array.isArray(body)) return { key, value: body };
    const found = this.dataKeyIn(body);
    if (found !== null) return { key: found, value: (body as Record<string, unknown>)[found] };
    if (body !== null && typeof body === 'object') {
      for (const alias of ['ids', `${this.config.related.name}_ids`]) {
        const value = (body as Record<string, unknown>)[alias];
        if (Object.prototype.hasOwnProperty.call(body, alias) && Array.isArray(value)) return { key: alias, value };
      }
    }
    throw this.missingDataKey(true);
  }

  /** Decision 49: the ids of a bulk delete or detach: a flat array, `{ids}`, `{<related MODEL>_ids}` or the dataKey. */
  idList(body: unknown): unknown[] {
    if (Array.isArray(body)) return body;
    if (body !== null && typeof body === 'object') {
      const obj = body as Record<string, unknown>;
      for (const key of ['ids', `${this.config.related.name}_ids`, ...this.config.dataKeys]) if (Array.isArray(obj[key])) return obj[key] as unknown[];
    }
    throw new BadRequestError(`Send the ids as an array, {"ids": [...]}, {"${this.config.related.name}_ids": [...]} or {"${this.config.dataKeys[0]}": [...]}.`, 'ids');
  }

  private missingDataKey(ids = false): BadRequestError {
    const key = this.config.dataKeys[0];
    const also = this.config.dataKeys.length > 1 ? ` (or ${this.config.dataKeys.slice(1).map((k) => `"${k}"`).join(', ')})` : '';
    const forms = ids ? `; the ids may also come as a flat array, {"ids": [...]} or {"${this.config.related.name}_ids": [...]}` : '';
    return new BadRequestError(`The request body must hold the ${this.config.segment} under "${key}"${also}, as {"${key}": ...}${forms}.`, key);
  }
}
