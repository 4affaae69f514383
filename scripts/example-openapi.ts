/** Prints the example app's OpenAPI document (mongo driver, emulator when offline): the input of example-app/client-types.ts. */
import { createExampleApp } from '../example-app/app';
import { startMongo } from '../lib/testing';

async function main(): Promise<void> {
  const mongo = await startMongo();
  const shop = await createExampleApp({ driver: 'mongo', mongoUri: mongo.uri });
  process.stdout.write(JSON.stringify(shop.api.openapi({ title: 'Example shop API', serverUrl: '/api/v1' })));
  await shop.close();
  await mongo.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
