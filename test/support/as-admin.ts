import supertest from 'supertest';

/** A supertest agent on the example app, authenticated as its superuser (auth is always on there). */
export function asAdmin(example: { app: Parameters<typeof supertest.agent>[0]; info: { adminToken: string } }): supertest.Agent {
  return supertest.agent(example.app).set('Authorization', `Bearer ${example.info.adminToken}`);
}
