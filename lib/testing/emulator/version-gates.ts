/**
 * What a release does not know yet. When the emulator plays an older MongoDB (profile.ts), a command
 * using a stage, expression operator, accumulator, query operator or syntax newer than that release
 * is refused with the error the older server answers for something it does not know:
 *
 *   unknown stage              40324 "Unrecognized pipeline stage name: '$x'"
 *   unknown expression         168 InvalidPipelineOperator "Unrecognized expression '$x'"
 *   unknown $group accumulator 15952 "unknown group operator '$x'"
 *   unknown query operator     2 BadValue "unknown operator: $x"
 *
 * The walk knows where pipelines, filters and expressions sit in the commands (find, aggregate,
 * count, distinct, update, delete, findAndModify, create of a view), sub-pipelines included.
 */
import { CommandError, type CodeName } from './errors';
import { olderThan, type ServerProfile } from './profile';
import { isPlainObject, type Doc } from './values';

/** Aggregation stages and the release that introduced them (only those after 4.4 matter here). */
export const STAGES_SINCE: Record<string, string> = {
  $setWindowFields: '5.0',
  $documents: '5.1',
  $densify: '5.1',
  $fill: '5.3',
  $shardedDataDistribution: '6.0',
  $changeStreamSplitLargeEvent: '7.0',
  $listSampledQueries: '7.0',
  $listSearchIndexes: '7.0',
  $vectorSearch: '7.0',
  $queryStats: '7.1',
  $listClusterCatalog: '8.0',
};

/** Expression operators, accumulators and window functions after 4.4. */
export const EXPRESSIONS_SINCE: Record<string, string> = {
  $dateAdd: '5.0',
  $dateDiff: '5.0',
  $dateSubtract: '5.0',
  $dateTrunc: '5.0',
  $getField: '5.0',
  $setField: '5.0',
  $unsetField: '5.0',
  $count: '5.0', // the accumulator; the $count stage is 3.4
  $covariancePop: '5.0',
  $covarianceSamp: '5.0',
  $denseRank: '5.0',
  $derivative: '5.0',
  $documentNumber: '5.0',
  $expMovingAvg: '5.0',
  $integral: '5.0',
  $rank: '5.0',
  $shift: '5.0',
  $tsIncrement: '5.1',
  $tsSecond: '5.1',
  $sortArray: '5.2',
  $top: '5.2',
  $topN: '5.2',
  $bottom: '5.2',
  $bottomN: '5.2',
  $firstN: '5.2',
  $lastN: '5.2',
  $maxN: '5.2',
  $minN: '5.2',
  $locf: '5.2',
  $linearFill: '5.3',
  $bitAnd: '6.3',
  $bitOr: '6.3',
  $bitXor: '6.3',
  $bitNot: '6.3',
  $median: '7.0',
  $percentile: '7.0',
  $toHashedIndexKey: '7.0',
  $toUUID: '8.0',
};

/** Query operators after 4.4: none so far (`$sampleRate` is 4.4.2); kept so the check has a place. */
export const QUERY_SINCE: Record<string, string> = {};

/** Syntax, not names: checked where the walk meets it. */
export const SYNTAX_SINCE = {
  /** `$lookup` with localField/foreignField and a pipeline (the concise correlated form). */
  lookupConcise: '5.0',
  /** A top-level `let` on find, aggregate, update, delete and findAndModify. */
  commandLet: '5.0',
} as const;

/** The tables' entries the profile's release does not have yet (empty: nothing to check). */
interface Gates {
  release: string;
  stages: Set<string>;
  expressions: Set<string>;
  query: Set<string>;
}

const cache = new Map<string, Gates>();

function gatesFor(profile: ServerProfile): Gates {
  let gates = cache.get(profile.release);
  if (!gates) {
    const newer = (table: Record<string, string>) => new Set(Object.entries(table).filter(([, since]) => olderThan(profile.release, since)).map(([name]) => name));
    gates = { release: profile.release, stages: newer(STAGES_SINCE), expressions: newer(EXPRESSIONS_SINCE), query: newer(QUERY_SINCE) };
    cache.set(profile.release, gates);
  }
  return gates;
}

function refuse(codeName: CodeName, message: string): never {
  throw new CommandError(codeName, message);
}

/** Refuses what the played release does not know, anywhere in the command. */
export function checkVersionGates(profile: ServerProfile, name: string, cmd: Doc): void {
  const gates = gatesFor(profile);
  const walker = new Walker(gates);
  if (cmd.let !== undefined && ['find', 'aggregate', 'update', 'delete', 'findAndModify', 'findandmodify'].includes(name)) {
    if (olderThan(profile.release, SYNTAX_SINCE.commandLet)) refuse('FailedToParse', `unrecognized field 'let'`);
    walker.expression(cmd.let);
  }
  switch (name) {
    case 'aggregate':
      walker.pipeline(cmd.pipeline);
      break;
    case 'find':
      walker.query(cmd.filter);
      walker.expression(cmd.projection);
      break;
    case 'count':
    case 'distinct':
      walker.query(cmd.query);
      break;
    case 'findAndModify':
    case 'findandmodify':
      walker.query(cmd.query);
      if (Array.isArray(cmd.update)) walker.pipeline(cmd.update);
      break;
    case 'update':
      for (const statement of Array.isArray(cmd.updates) ? cmd.updates : []) {
        if (!isPlainObject(statement)) continue;
        walker.query(statement.q);
        if (Array.isArray(statement.u)) walker.pipeline(statement.u);
      }
      break;
    case 'delete':
      for (const statement of Array.isArray(cmd.deletes) ? cmd.deletes : []) if (isPlainObject(statement)) walker.query(statement.q);
      break;
    case 'create':
    case 'collMod':
      if (Array.isArray(cmd.pipeline)) walker.pipeline(cmd.pipeline);
      if (isPlainObject(cmd.validator)) walker.query(cmd.validator);
      break;
    default:
      break;
  }
}

/** Query operators whose argument is a query (or queries) again; others take values. */
const QUERY_LISTS = new Set(['$and', '$or', '$nor']);

class Walker {
  private readonly checkLookup: boolean;

  constructor(private readonly gates: Gates) {
    this.checkLookup = olderThan(gates.release, SYNTAX_SINCE.lookupConcise);
  }

  pipeline(stages: unknown): void {
    if (!Array.isArray(stages)) return;
    for (const stage of stages) {
      if (!isPlainObject(stage)) continue;
      for (const [name, arg] of Object.entries(stage)) this.stage(name, arg);
    }
  }

  private stage(name: string, arg: unknown): void {
    if (this.gates.stages.has(name)) refuse('Location40324', `Unrecognized pipeline stage name: '${name}'`);
    switch (name) {
      case '$match':
        this.query(arg);
        return;
      case '$lookup':
        if (!isPlainObject(arg)) return;
        if (this.checkLookup && arg.pipeline !== undefined && (arg.localField !== undefined || arg.foreignField !== undefined)) {
          refuse('FailedToParse', "$lookup with 'pipeline' may not specify 'localField' or 'foreignField'");
        }
        this.expression(arg.let);
        this.pipeline(arg.pipeline);
        return;
      case '$unionWith':
        if (isPlainObject(arg)) this.pipeline(arg.pipeline);
        return;
      case '$facet':
        if (isPlainObject(arg)) for (const sub of Object.values(arg)) this.pipeline(sub);
        return;
      case '$graphLookup':
        if (!isPlainObject(arg)) return;
        this.expression(arg.startWith);
        this.query(arg.restrictSearchWithMatch);
        return;
      case '$group':
        if (!isPlainObject(arg)) return;
        for (const [field, value] of Object.entries(arg)) {
          if (field === '_id') {
            this.expression(value);
            continue;
          }
          if (!isPlainObject(value)) continue;
          for (const [op, operand] of Object.entries(value)) {
            if (this.gates.expressions.has(op)) refuse('Location15952', `unknown group operator '${op}'`);
            this.expression(operand);
          }
        }
        return;
      default:
        // $project, $addFields/$set, $replaceRoot/$replaceWith, $bucket, $setWindowFields, $sort ...: expressions
        this.expression(arg);
    }
  }

  query(filter: unknown): void {
    if (!isPlainObject(filter)) return;
    for (const [key, value] of Object.entries(filter)) {
      if (key.startsWith('$')) this.queryOperator(key, value);
      else if (isPlainObject(value)) {
        // {field: {$op: value}} or a literal document
        for (const [op, arg] of Object.entries(value)) if (op.startsWith('$')) this.queryOperator(op, arg);
      }
    }
  }

  private queryOperator(op: string, arg: unknown): void {
    if (this.gates.query.has(op)) refuse('BadValue', `unknown operator: ${op}`);
    if (op === '$expr') this.expression(arg);
    else if (QUERY_LISTS.has(op) && Array.isArray(arg)) for (const sub of arg) this.query(sub);
    else if (op === '$elemMatch' || op === '$not') this.query(arg);
  }

  expression(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.expression(item);
      return;
    }
    if (!isPlainObject(value)) return;
    for (const [key, arg] of Object.entries(value)) {
      if (key === '$literal') continue;
      if (key.startsWith('$') && this.gates.expressions.has(key)) refuse('InvalidPipelineOperator', `Unrecognized expression '${key}'`);
      this.expression(arg);
    }
  }
}
