import { CommandError } from '../errors';
import { isPlainObject, type Doc } from '../values';

/**
 * The fields a 7.0 server accepts on the CRUD commands. An unknown field is refused as the server
 * refuses it (40415); a known one whose behaviour the emulator does not implement is refused with
 * NotImplemented (238) instead of being ignored.
 */
const GENERIC = [
  '$db', 'lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', '$clusterTime', '$readPreference',
  'comment', 'maxTimeMS', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', '$audit', '$client', 'mayBypassWriteBlocking',
];

const FIELDS: Record<string, string[]> = {
  find: ['filter', 'projection', 'sort', 'hint', 'skip', 'limit', 'batchSize', 'singleBatch', 'max', 'min', 'returnKey', 'showRecordId', 'tailable', 'oplogReplay', 'noCursorTimeout', 'awaitData', 'allowPartialResults', 'collation', 'allowDiskUse', 'let', 'readOnce'],
  aggregate: ['pipeline', 'explain', 'allowDiskUse', 'cursor', 'bypassDocumentValidation', 'collation', 'hint', 'let'],
  insert: ['documents', 'ordered', 'bypassDocumentValidation', 'stmtIds'],
  update: ['updates', 'ordered', 'bypassDocumentValidation', 'let', 'stmtIds'],
  delete: ['deletes', 'ordered', 'let', 'stmtIds'],
  findAndModify: ['query', 'sort', 'remove', 'update', 'new', 'fields', 'upsert', 'bypassDocumentValidation', 'collation', 'arrayFilters', 'hint', 'let', 'stmtId'],
  count: ['query', 'limit', 'skip', 'hint', 'collation', 'fields'],
  distinct: ['key', 'query', 'collation'],
};

/** Known, but what they do is not implemented. */
const REFUSED: Record<string, (v: unknown) => boolean> = {
  max: (v) => v !== undefined,
  min: (v) => v !== undefined,
  returnKey: (v) => v === true,
  showRecordId: (v) => v === true,
  tailable: (v) => v === true,
  awaitData: (v) => v === true,
  explain: (v) => v === true,
};

const STATEMENT_FIELDS: Record<string, { list: string; fields: Set<string> }> = {
  update: { list: 'updates', fields: new Set(['q', 'u', 'c', 'upsert', 'multi', 'arrayFilters', 'hint', 'collation', 'upsertSupplied', 'sort']) },
  delete: { list: 'deletes', fields: new Set(['q', 'limit', 'hint', 'collation']) },
};

const known = new Map(Object.entries(FIELDS).map(([name, fields]) => [name, new Set([name, ...GENERIC, ...fields])]));

export function checkCommandFields(name: string, cmd: Doc): void {
  const fields = known.get(name === 'findandmodify' ? 'findAndModify' : name);
  if (!fields) return;
  for (const [k, v] of Object.entries(cmd)) {
    if (!fields.has(k) && !(name === 'findandmodify' && k === 'findandmodify')) throw new CommandError('Location40415', `BSON field '${name}.${k}' is an unknown field.`);
    if (REFUSED[k]?.(v)) throw new CommandError('NotImplemented', `${name} with '${k}' is not supported by the MongoDB emulator`);
  }
  const statements = STATEMENT_FIELDS[name];
  const list = statements ? cmd[statements.list] : undefined;
  if (statements && Array.isArray(list)) {
    for (const stmt of list) {
      if (!isPlainObject(stmt)) continue;
      for (const k of Object.keys(stmt)) {
        if (!statements.fields.has(k)) throw new CommandError('Location40415', `BSON field '${name}.${statements.list}.${k}' is an unknown field.`);
      }
      if (stmt.c !== undefined) throw new CommandError('NotImplemented', `${name} statements with constants ('c') are not supported by the MongoDB emulator`);
    }
  }
}
