import { Utils, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { attributesOf } from './describe-model';
import type { InsertDefaults } from './compile-writes';

type AnyModel = ModelStatic<Model>;

/** A pivot table is known when a Sequelize model of this instance maps it; its columns are the attributes' fields. */
export function pivotColumnsOf(sequelize: Sequelize, table: string): string[] | null {
  const models = Object.values(sequelize.models) as AnyModel[];
  const model = models.find((m) => {
    const name = m.getTableName() as string | { tableName: string };
    return (typeof name === 'string' ? name : name.tableName) === table;
  });
  if (!model) return null;
  return Object.entries(attributesOf(model)).flatMap(([name, attr]) => [name, (attr as { field?: string }).field ?? name]);
}

/** Each attribute's model default (what Sequelize's build would set), made per record. */
export function modelDefaults(model: AnyModel): InsertDefaults {
  const defaults: InsertDefaults = {};
  for (const [field, attr] of Object.entries(attributesOf(model))) {
    const def = attr.defaultValue;
    if (def !== undefined) defaults[field] = () => Utils.toDefaultValue(def);
  }
  return defaults;
}
