import type { Document } from 'mongodb';
import type { ListQuery, Page } from '../../lib/query/ast';
import type { Catalog } from '../../lib/resource/model-info';
import { CompileContext } from './compile-context';
import { compileFilterStages } from './compile-filter';
import { compileTreeStages } from './compile-tree';
import { compileOrder, keysetMatch, type KeyPlan } from './compile-order';
import { compileLoads, projection, selectFields } from './compile-relations';
import type { ModelMap } from './model-map';
import type { Shape } from './shape';

export interface CompiledList {
  collection: string;
  /** The ONE aggregation of the page. Offset pages answer one `{data, total}` document. */
  pipeline: Document[];
  /** What the serializer keeps of each root document. */
  shape: Shape;
  page: Page | null;
  /** Sort keys (paths in the raw documents), for a cursor page's `nextAfter`. */
  keys: KeyPlan[];
}

/**
 * A list query as one aggregation: filter ($match, existence $lookups), relation sort keys,
 * keyset condition, $sort, page window, eager $lookups and the final $project. Pure.
 */
export function compileList(query: ListQuery, catalog: Catalog, models: ModelMap): CompiledList {
  const ctx = new CompileContext(catalog, models);
  const model = query.model;
  const pipeline: Document[] = [...(query.tree ? compileTreeStages(query.tree, model, ctx) : []), ...compileFilterStages(query.filter, model, ctx)];
  const order = compileOrder(query.order, model, ctx);
  pipeline.push(...order.stages);
  const page = query.page;
  if (page?.kind === 'cursor' && page.after) pipeline.push({ $match: keysetMatch(order.keys, page.after) });
  pipeline.push({ $sort: order.sort });

  const loads = compileLoads(query.relations, model, ctx, query.loadLimit ?? null);
  const fields = selectFields(ctx, model, query.select, query.relations);
  const keyPaths = page?.kind === 'cursor' ? order.keys.map((k) => k.path) : [];
  const tail = [...loads.stages, { $project: projection(ctx, model, fields, loads.relations, keyPaths) }];
  const shape: Shape = { fields, relations: loads.relations };

  if (page?.kind === 'offset') {
    pipeline.push({
      $facet: {
        data: [{ $skip: (page.page - 1) * page.size }, { $limit: page.size }, ...tail],
        total: [{ $count: 'total' }],
      },
    });
  } else {
    if (page?.kind === 'cursor') pipeline.push({ $limit: page.size + 1 });
    else if (query.limit !== null) pipeline.push({ $limit: query.limit });
    pipeline.push(...tail);
  }
  return { collection: ctx.collection(model), pipeline, shape, page, keys: order.keys };
}
