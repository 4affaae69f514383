import type { ListResult } from '../../lib/driver';
import type { Scalar } from '../../lib/query/ast';
import type { CompiledList } from './compile-list';
import { convertValue } from './convert-value';
import { attachJoins, attachRest, loadJoinedRelations, loadRelations, shapeRow, type LoadBudget, type LoadContext } from './load-relations';
import type { Target } from './run-statement';

/** A compiled list's statements on one connection (a lease or a transaction's) -> its rows, total and cursor. */
export async function runList(loader: LoadContext, plan: CompiledList, t: Target, budget: LoadBudget | null = null): Promise<ListResult> {
  // both statements are sent at once (a lease or transaction queues them on its connection)
  const counting = plan.count ? loader.run(plan.count, t) : null;
  counting?.catch(() => undefined); // its failure is reported by the await below
  const raw = await loader.run(plan.rows, t);
  const totals = counting ? await counting : null;
  const page = plan.page;
  const visible = page?.kind === 'cursor' && raw.length > page.size ? raw.slice(0, page.size) : raw;
  const rows = visible.map((r) => {
    const row = shapeRow(loader, plan.model, plan.fields, r);
    attachJoins(loader, plan.joins, row, r);
    attachRest(loader, plan.rest, row, r);
    return row;
  });
  // nothing left to load when every load was joined or embedded (a show's usual case)
  if (plan.statements.length > (plan.count ? 2 : 1)) await Promise.all([loadRelations(loader, plan.relations, rows, t, budget), loadJoinedRelations(loader, plan.joins, rows, t, budget)]);
  const result: ListResult = { rows };
  if (totals) result.total = Number((totals[0] as { total: unknown }).total);
  if (page?.kind === 'cursor') {
    result.hasMore = raw.length > page.size;
    const last = visible[visible.length - 1];
    result.nextAfter = result.hasMore && last ? plan.keys.map((k) => convertValue(last[k.alias], k.field.type, k.field.itemType) as Scalar) : null;
  }
  // shaped by now: a promoted pg Result must not keep the raw rows alive (lib/service/reads/row-batches.ts)
  raw.length = 0;
  return result;
}
