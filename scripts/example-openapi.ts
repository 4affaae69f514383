/**
 * Prints the example app's OpenAPI document: `tsx scripts/example-openapi.ts [mongo|sql]` (default
 * mongo, the input of example-app/client-types.ts). Databases come from the testing kit.
 */
import { createExampleApp } from '../example-app/app';
import { startMongo, startPostgres } from '../lib/testing';

async function main(): Promise<void> {
  const driver = process.argv[2] === 'sql' ? 'sql' : 'mongo';
  const server = driver === 'sql' ? await startPostgres() : await startMongo();
  const shop = await createExampleApp(driver === 'sql' ? { driver, postgresUri: server.uri } : { driver, mongoUri: server.uri });
  process.stdout.write(JSON.stringify(shop.api.openapi({ title: 'Example shop API', serverUrl: '/api/v1' })));
  await shop.close();
  await server.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
