import type { Sequelize } from 'sequelize';
import { BadRequestError } from '../../lib/errors';
import type { AggregateResult } from '../../lib/query/aggregate-ast';
import { SUM_SCALE, type CompiledAggregate } from './compile-aggregate';
import { convertValue } from './convert-value';
import { runStatement, type Target } from './run-statement';

/**
 * Runs a compiled aggregate (one statement) and types what pg answers: counts (bigint) and sums
 * (bigint / numeric) come back as strings and become JSON numbers; group values, minimums and
 * maximums are typed like the same field in a record. Sums and averages of non-integer fields
 * come scaled (compile-aggregate.ts): scaled back here, Infinity where the sum overflows a double
 * (the service answers that with a 422 naming the aggregate, decision 74).
 */
export async function runAggregate(sequelize: Sequelize, plan: CompiledAggregate, target: Target): Promise<AggregateResult> {
  const raw = await runStatement(sequelize, plan.statement, target).catch(unknownZone);
  const total = raw.length ? Number(raw[0].__total) : 0;
  const rows = raw
    .filter((r) => r.__n !== null && r.__n !== undefined)
    .map((r) => ({
      group: plan.groupFields.map((field, i) => convertValue(r[`g${i}`], field.type, field.itemType)),
      values: plan.measures.map(({ fn, field, scaled }, i) => {
        const value = r[`m${i}`];
        if (value === null || value === undefined) return null;
        if (scaled) return unscale(value, fn === 'avg' ? r[`s${i}`] : value);
        return (fn === 'min' || fn === 'max') && field ? convertValue(value, field.type, field.itemType) : Number(value);
      }),
    }));
  return { rows, total };
}

/** A zone Node knows but the server does not (22023, `time zone "X" not recognized`): the client's 400. */
function unknownZone(err: unknown): never {
  const e = err as { parent?: { code?: unknown; message?: unknown }; original?: { code?: unknown; message?: unknown }; code?: unknown; message?: unknown };
  const cause = e.parent ?? e.original ?? e;
  const zone = cause.code === '22023' && typeof cause.message === 'string' ? /time zone "([^"]+)" not recognized/.exec(cause.message)?.[1] : undefined;
  if (zone) throw new BadRequestError(`Unknown time zone "${zone}" in group_by: the database does not know it.`, 'group_by');
  throw err;
}

/** A scaled sum or average back in scale; not finite when its sum overflows a double. */
function unscale(value: unknown, sum: unknown): number {
  const total = Number(sum) * SUM_SCALE;
  return Number.isFinite(total) ? Number(value) * SUM_SCALE : total;
}
