export { createSqlDriver, isSequelizeModel, SqlDriver, type SqlTransaction } from './sql-driver';
export { compileList, type CompiledList } from './compile-list';
export type { RelationPlan } from './compile-relations';
export type { SqlStatement } from './sql-builder';
export type { TableInfo, TableMap } from './table-map';
