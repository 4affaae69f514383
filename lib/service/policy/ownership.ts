import type { Filter, Scalar } from '../../query/ast';
import type { ModelInfo } from '../../resource/model-info';
import type { RequestContext } from '../request-context';

/** The caller's id as the owner field stores it (integer keys on SQL, ObjectId hex on MongoDB). */
export function ownerValue(info: ModelInfo, ctx: RequestContext): Scalar {
  const id = ctx.user?.id;
  if (id === undefined || id === null) return null;
  const field = info.owner ? info.fields[info.owner] : undefined;
  if (field && (field.type === 'integer' || (field.type === 'id' && field.idType === 'integer'))) {
    const n = Number(id);
    return Number.isSafeInteger(n) ? n : null;
  }
  return String(id);
}

/** The records the caller owns; a model without an owner field, or an anonymous caller, owns none. */
export function ownerFilter(info: ModelInfo, ctx: RequestContext): Filter {
  const value = ownerValue(info, ctx);
  if (!info.owner || value === null) return { kind: 'condition', field: info.key, operator: 'null' };
  return { kind: 'condition', field: info.owner, operator: '=', value };
}
