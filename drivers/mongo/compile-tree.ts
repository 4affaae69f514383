import type { Document } from 'mongodb';
import type { Filter, TreeWalk } from '../../lib/query/ast';
import { storedPath, type CompileContext } from './compile-context';
import { compileFilterStages } from './compile-filter';

/**
 * A hierarchy walk as the first stages of the list's aggregation: the start records (their filter,
 * relation existence included), one `$graphLookup` per direction (maxDepth, restricted to the
 * scope; $graphLookup never visits a document twice, so a cycle ends the walk), then every record
 * reached, once, as the documents the rest of the pipeline filters, sorts and shapes.
 */
export function compileTreeStages(tree: TreeWalk, model: string, ctx: CompileContext): Document[] {
  const collection = ctx.collection(model);
  const parent = storedPath(ctx.model(model), tree.parentField);
  const seed = compileFilterStages(allOf(tree.start, tree.scope), model, ctx);
  const restrict = plainMatch(tree.scope, model, ctx);
  const walk = (down: boolean, as: string): Document => ({
    $graphLookup: {
      from: collection,
      startWith: down ? '$_id' : `$${parent}`,
      connectFromField: down ? '_id' : parent,
      connectToField: down ? parent : '_id',
      as,
      ...(tree.maxDepth !== null ? { maxDepth: tree.maxDepth - 1 } : {}),
      ...(restrict ? { restrictSearchWithMatch: restrict } : {}),
    },
  });
  const lists: string[] = [];
  const stages: Document[] = [...seed];
  if (tree.maxDepth !== 0) {
    if (tree.down) stages.push(walk(true, '__down'));
    if (tree.up) stages.push(walk(false, '__up'));
    if (tree.down) lists.push('$__down');
    if (tree.up) lists.push('$__up');
  }
  stages.push(
    { $project: { __reached: { $concatArrays: [['$$ROOT'], ...lists] } } },
    { $unwind: '$__reached' },
    { $replaceRoot: { newRoot: '$__reached' } },
    { $unset: ['__down', '__up'] },
    { $group: { _id: '$_id', __doc: { $first: '$$ROOT' } } },
    { $replaceRoot: { newRoot: '$__doc' } },
  );
  return stages;
}

function allOf(...filters: Array<Filter | null>): Filter | null {
  const present = filters.filter((f): f is Filter => f !== null);
  if (present.length === 0) return null;
  return present.length === 1 ? present[0] : { kind: 'and', filters: present };
}

/** The scope as a plain `$match` document for restrictSearchWithMatch (null when it needs lookups). */
function plainMatch(scope: Filter | null, model: string, ctx: CompileContext): Document | null {
  if (!scope) return null;
  const stages = compileFilterStages(scope, model, ctx);
  return stages.length === 1 && '$match' in stages[0] ? (stages[0].$match as Document) : null;
}
