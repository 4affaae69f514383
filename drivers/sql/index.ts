export { createSqlDriver, isSequelizeModel, SqlDriver, type SqlTransaction } from './sql-driver';
export { compileList, type CompiledList } from './compile-list';
export { configureSql, type SqlConnectionOptions } from './sql-options';
export type { RelationPlan } from './compile-relations';
export type { SqlStatement } from './sql-builder';
export type { StorageInfo, ModelMap } from './model-map';

import type { Sequelize } from 'sequelize';
import { defineDriverFactory } from '../../lib/driver';
import { createSqlDriver, isSequelizeModel } from './sql-driver';

/** How the library finds this driver (`generic-resource-rest/sql` registers it; else it is loaded lazily). */
export const driverFactory = defineDriverFactory<Sequelize>('sql', isSequelizeModel, 'sequelize', createSqlDriver);

import { registerDriver } from '../../lib/driver';

registerDriver(driverFactory);
