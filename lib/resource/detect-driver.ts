import type { Driver } from '../../drivers/driver';
import { createMongoDriver, isMongooseModel } from '../../drivers/mongo';
import { createSqlDriver, isSequelizeModel } from '../../drivers/sql';

/**
 * Picks the driver for a native model: one MongoDB driver per mongoose connection, one SQL driver
 * per Sequelize instance, so models on the same connection share transactions.
 */
export class DriverPool {
  private readonly drivers = new Map<unknown, Driver>();

  forModel(model: unknown, MODEL: string): Driver {
    if (isMongooseModel(model)) {
      const connection = (model as { db: unknown }).db;
      return this.memo(connection, () => createMongoDriver(connection as never));
    }
    if (isSequelizeModel(model)) {
      const sequelize = (model as { sequelize: unknown }).sequelize;
      return this.memo(sequelize, () => createSqlDriver(sequelize as never));
    }
    throw new Error(`Resource ${MODEL}: the model is neither a mongoose model nor a Sequelize model; pass \`driver\`.`);
  }

  all(): Driver[] {
    return [...new Set(this.drivers.values())];
  }

  private memo(key: unknown, make: () => Driver): Driver {
    let driver = this.drivers.get(key);
    if (!driver) {
      driver = make();
      this.drivers.set(key, driver);
    }
    return driver;
  }
}
