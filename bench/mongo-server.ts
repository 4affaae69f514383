import { startMongo } from '../lib/testing';
import { serveChild } from './child';

/**
 * Child process holding the MongoDB for the benchmark: startMongo() picks mongodb-memory-server
 * (its own mongod process) or, offline, the in-process JS emulator — which would otherwise share
 * the event loop with the HTTP server being measured.
 */
serveChild(async () => {
  const mongo = await startMongo();
  return { message: { uri: mongo.uri, kind: mongo.kind }, cleanup: () => mongo.stop() };
});
