import type { TreeWalk } from '../../lib/query/ast';
import type { CompileContext } from './compile-context';
import { compileFilter } from './compile-filter';
import { quoteIdent, type ParamBuilder } from './sql-builder';

/**
 * A hierarchy walk as one condition on the root alias: `key IN (WITH RECURSIVE ...)`, one
 * recursive CTE per direction. Depth-limited by a bound parameter; cycle-safe through the path
 * array of visited keys (a cycle written outside the API ends the walk, each node once).
 */
export function compileTreeCondition(tree: TreeWalk, ctx: CompileContext, model: string, alias: string, params: ParamBuilder): string {
  const key = ctx.model(model).key;
  const walks: string[] = [];
  const ctes: string[] = [];
  const directions = [...(tree.down ? ['down' as const] : []), ...(tree.up ? ['up' as const] : [])];
  for (const direction of directions) {
    const name = quoteIdent(params.alias(`w${direction}`));
    const s = params.alias('s');
    const c = params.alias('c');
    const col = (a: string, field: string) => ctx.column(model, a, field);
    const seedWhere = [tree.start ? compileFilter(tree.start, ctx, model, s, params) : 'TRUE', tree.scope ? compileFilter(tree.scope, ctx, model, s, params) : 'TRUE'];
    const stepWhere = [`NOT ${col(c, key)} = ANY(${name}."path")`, tree.scope ? compileFilter(tree.scope, ctx, model, c, params) : 'TRUE'];
    if (tree.maxDepth !== null) stepWhere.push(`${name}."depth" < ${params.param(tree.maxDepth)}`);
    // down: children of what was reached; up: the parent of what was reached
    const join = direction === 'down' ? `${col(c, tree.parentField)} = ${name}."id"` : `${col(c, key)} = ${name}."parent"`;
    ctes.push(
      `${name}("id", "parent", "path", "depth") AS (` +
        `SELECT ${col(s, key)}, ${col(s, tree.parentField)}, ARRAY[${col(s, key)}], 0 FROM ${ctx.table(model)} AS ${quoteIdent(s)} WHERE ${seedWhere.join(' AND ')} ` +
        `UNION ALL SELECT ${col(c, key)}, ${col(c, tree.parentField)}, ${name}."path" || ${col(c, key)}, ${name}."depth" + 1 ` +
        `FROM ${ctx.table(model)} AS ${quoteIdent(c)} JOIN ${name} ON ${join} WHERE ${stepWhere.join(' AND ')})`,
    );
    walks.push(`SELECT "id" FROM ${name}`);
  }
  return `${ctx.column(model, alias, key)} IN (WITH RECURSIVE ${ctes.join(', ')} ${walks.join(' UNION ')})`;
}

/**
 * The lock of a table's hierarchy, first in a transaction that moves records in it: hierarchy moves
 * of one table run one after the other, and (READ COMMITTED, PostgreSQL's default) the cycle check
 * after a move reads every move committed before it, so two moves cannot each pass the check and
 * together make a cycle. A transaction-scoped advisory lock in the one-key space.
 */
export function compileHierarchyLock(table: string): { sql: string; bind: unknown[] } {
  return { sql: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) AS "locked"', bind: [`hierarchy:${table}`] };
}

/** The same lock without waiting, with the transaction's isolation level: taken at once in the usual case. */
export function compileHierarchyTryLock(table: string): { sql: string; bind: unknown[] } {
  return { sql: `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS "locked", current_setting('transaction_isolation') AS "isolation"`, bind: [`hierarchy:${table}`] };
}
