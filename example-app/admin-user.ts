import { hashToken } from './auth';
import type { MongoBackend } from './mongo/backend';
import type { SqlBackend } from './sql/backend';

export const ADMIN_EMAIL = 'admin@example.test';

/**
 * EXAMPLE_ADMIN_TOKEN: makes sure a superuser holding that token exists, so a client can create the
 * other users through the API on an empty database. Idempotent (keyed by ADMIN_EMAIL).
 */
export async function ensureAdminUser(backend: MongoBackend | SqlBackend, token: string): Promise<void> {
  const attributes = { name: 'Admin', email: ADMIN_EMAIL, roles: ['admin'], is_superuser: true, api_token: hashToken(token) };
  if (backend.driver === 'mongo') {
    await backend.models.User.updateOne({ email: ADMIN_EMAIL }, { $set: attributes }, { upsert: true });
    return;
  }
  const existing = await backend.models.User.findOne({ where: { email: ADMIN_EMAIL } });
  if (existing) await existing.update(attributes);
  else await backend.models.User.create(attributes);
}
