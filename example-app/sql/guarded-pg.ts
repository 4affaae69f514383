import pg from 'pg';

/**
 * pg with an `error` listener on every client from its birth. Sequelize adds its own listener only
 * once a connection is established; a server that dies in between (a killed postmaster sends
 * "terminating connection due to unexpected postmaster exit") would emit `error` on a client with
 * no listener, which Node turns into an uncaught exception that ends the process. The failure still
 * reaches the query or connect that was waiting (a 503), so the listener only keeps the app alive.
 */
class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

export const guardedPg: typeof pg = { ...pg, Client: GuardedClient };
