import type { Driver, Id, ReadOptions, Row, Transaction } from '../../lib/driver';
import type { Catalog } from '../../lib/resource/model-info';
import { byIdsQuery, inIdOrder } from '../../lib/service/reads/read-by-ids';

/** Reads by id the way the service does (a list query on the key), for driver-level tests. */
export async function findByIds(driver: Driver, catalog: Catalog, model: string, ids: Id[], options: ReadOptions, tx?: Transaction): Promise<Row[]> {
  const info = catalog.model(model);
  const { rows } = await driver.list(byIdsQuery(info, ids, options), tx);
  return inIdOrder(rows, ids, info.key);
}
