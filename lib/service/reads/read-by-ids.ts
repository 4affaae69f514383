import type { Id, ReadOptions, Row } from '../../driver';
import type { ListQuery } from '../../query/ast';
import type { ModelInfo } from '../../resource/model-info';

/** Reads by id are list queries (`key in ids`), so every scope and both compilers apply to them too. */
export function byIdsQuery(info: ModelInfo, ids: Id[], options: ReadOptions): ListQuery {
  return {
    model: info.name,
    filter: { kind: 'condition', field: info.key, operator: 'in', value: ids },
    select: options.select,
    relations: options.relations,
    order: [{ relations: [], field: info.key, direction: 'asc' }],
    page: null,
    limit: null,
  };
}

/** Rows in the order of `ids`, absent ids skipped. */
export function inIdOrder(rows: Row[], ids: Id[], key: string): Row[] {
  const byId = new Map(rows.map((r) => [String(r[key]), r]));
  return ids.map((id) => byId.get(String(id))).filter((r): r is Row => r !== undefined);
}
