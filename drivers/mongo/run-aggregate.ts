import type { AggregateOptions, Collection, Document } from 'mongodb';
import type { AggregateResult } from '../../lib/query/aggregate-ast';
import type { CompiledAggregate } from './compile-aggregate';
import { BadRequestError } from '../../lib/errors';
import { outputValue } from './serialize';

/** A zone Node knows but the server's time zone database does not (40485): the client's 400, as the zone check says. */
function unknownZone(err: unknown): never {
  const e = err as { code?: unknown; message?: unknown };
  const zone = e.code === 40485 && typeof e.message === 'string' ? /time zone identifier:? "?([^"\s]+)/.exec(e.message)?.[1] : undefined;
  if (zone) throw new BadRequestError(`Unknown time zone "${zone}" in group_by: the database does not know it.`, 'group_by');
  throw err;
}

/** Runs a compiled aggregate (one command) and reads its `{data, total}` document. */
export async function runAggregate(collection: Collection, plan: CompiledAggregate, options: AggregateOptions): Promise<AggregateResult> {
  // $group holds every group (and count_distinct its sets) before the page is cut: it may spill to disk
  const docs = await collection.aggregate<Document>(plan.pipeline, { allowDiskUse: true, ...options }).toArray().catch(unknownZone);
  const facet = docs[0] ?? { data: [], total: [] };
  const data = (facet.data ?? []) as Document[];
  const total = ((facet.total ?? []) as Array<{ total?: number }>)[0]?.total ?? 0;
  const rows = data.map((doc) => {
    const id = (doc._id ?? {}) as Document;
    return {
      group: Array.from({ length: plan.groups }, (_, i) => outputValue(id[`g${i}`])),
      values: Array.from({ length: plan.measures }, (_, i) => outputValue(doc[`m${i}`])),
    };
  });
  return { rows, total };
}
