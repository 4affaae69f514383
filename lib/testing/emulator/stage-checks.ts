/**
 * Argument checks of pipeline stages that mingo accepts (or answers wrongly) where MongoDB 7.0
 * refuses, with the server's codes. Run on every stage, sub-pipelines included.
 */
import { stageError } from './field-stages';
import { isPlainObject } from './values';

const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export function checkStage(name: string, arg: unknown): void {
  switch (name) {
    case '$skip':
      if (!isInteger(arg)) throw stageError(5107200, `invalid argument to $skip stage :: caused by :: Cannot represent as a 64-bit integer: $skip: ${String(arg)}`);
      if (arg < 0) throw stageError(5107200, `invalid argument to $skip stage :: caused by :: Expected a non-negative number in: $skip: ${arg}`);
      break;
    case '$limit':
      if (!isInteger(arg)) throw stageError(5107201, `invalid argument to $limit stage :: caused by :: Cannot represent as a 64-bit integer: $limit: ${String(arg)}`);
      if (arg < 0) throw stageError(5107201, `invalid argument to $limit stage :: caused by :: Expected a non-negative number in: $limit: ${arg}`);
      if (arg === 0) throw stageError(15958, 'the limit must be positive');
      break;
    case '$sort':
      if (!isPlainObject(arg)) throw stageError(15973, 'the $sort key specification must be an object');
      if (Object.keys(arg).length === 0) throw stageError(15976, '$sort stage must have at least one sort key');
      for (const v of Object.values(arg)) {
        if (v !== 1 && v !== -1) throw stageError(15975, '$sort key ordering must be 1 (for ascending) or -1 (for descending)');
      }
      break;
    case '$unwind': {
      const path = isPlainObject(arg) ? arg.path : arg;
      if (typeof path !== 'string') throw stageError(isPlainObject(arg) ? 28808 : 15981, `expected either a string or an object as specification for $unwind stage, got ${typeof arg}`);
      if (!path.startsWith('$')) throw stageError(28818, `path option to $unwind stage should be prefixed with a '$': ${path}`);
      break;
    }
    case '$lookup':
      if (!isPlainObject(arg)) throw stageError(40319, 'the $lookup specification must be an Object');
      if (typeof arg.as !== 'string') throw stageError(40321, "must specify 'as' field for a $lookup");
      break;
    case '$addFields':
    case '$set':
      if (isPlainObject(arg) && Object.keys(arg).length === 0) throw stageError(40177, `Invalid ${name} :: caused by :: specification must have at least one field`);
      break;
    default:
      break;
  }
}
