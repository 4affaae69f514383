import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import type { AuthUser, Grants } from '../lib';
import type { MongoBackend } from './mongo/backend';
import type { SqlBackend } from './sql/backend';

/**
 * The example's authentication: `Authorization: Bearer <api_token>` looked up in `users`. Only a
 * hash of each token is stored (sha256: tokens are long random strings, so a slow hash adds
 * nothing), and the stored hash is compared in constant time. The library only asks "who is this?".
 */

/** Longest token accepted; anything longer is not a token of ours (and is never hashed). */
const MAX_TOKEN = 200;
const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh random token (printed at start, never stored in clear). */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The token of a well-formed `Authorization: Bearer` header; null for anything else. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || header.length > MAX_TOKEN + 7) return null;
  const match = BEARER.exec(header);
  return match ? match[1] : null;
}

interface StoredUser {
  id: unknown;
  roles: unknown;
  is_superuser: unknown;
  api_token: unknown;
}

async function findByHash(backend: MongoBackend | SqlBackend, hash: string): Promise<StoredUser | null> {
  if (backend.driver === 'mongo') {
    const doc = await backend.models.User.findOne({ api_token: hash }, { roles: 1, is_superuser: 1, api_token: 1 }).lean();
    return doc ? { id: String(doc._id), roles: doc.roles, is_superuser: doc.is_superuser, api_token: doc.api_token } : null;
  }
  const row = await backend.models.User.findOne({ where: { api_token: hash }, attributes: ['id', 'roles', 'is_superuser', 'api_token'], raw: true });
  return (row as unknown as StoredUser | null) ?? null;
}

function sameHash(stored: unknown, given: string): boolean {
  if (typeof stored !== 'string' || stored.length !== given.length) return false;
  return timingSafeEqual(Buffer.from(stored), Buffer.from(given));
}

/**
 * The bearer guard. Users found are kept a few seconds (a burst of requests costs one lookup);
 * `forget()` runs after every write to users, so a role change applies to the next request.
 */
export function bearerGuard(backend: MongoBackend | SqlBackend): { authenticate: (req: Request) => Promise<AuthUser | null>; forget(): void } {
  const cache = new LRUCache<string, AuthUser | false>({ max: 10_000, ttl: 5_000 });
  return {
    async authenticate(req) {
      const token = bearerToken(req);
      if (!token) return null;
      const hash = hashToken(token);
      const cached = cache.get(hash);
      if (cached !== undefined) return cached || null;
      const stored = await findByHash(backend, hash);
      const user: AuthUser | false =
        stored && sameHash(stored.api_token, hash)
          ? { id: stored.id as string | number, roles: Array.isArray(stored.roles) ? (stored.roles as string[]) : [], is_superuser: stored.is_superuser === true }
          : false;
      cache.set(hash, user);
      return user || null;
    },
    forget: () => cache.clear(),
  };
}

const CRUD = ['create:any', 'read:any', 'update:any', 'delete:any'];
const all = (actions: string[], attributes: string[] = ['*']) => Object.fromEntries(actions.map((a) => [a, attributes]));

/** The roles table of the example (example-app README "Roles") as accesscontrol grants. */
export const exampleGrants: Grants = {
  admin: {
    products: all(CRUD),
    categories: all(CRUD),
    tags: all(CRUD),
    reviews: all(CRUD),
    users: all(CRUD),
    orders: all(CRUD),
  },
  editor: {
    products: all(['create:any', 'read:any', 'update:any']),
    categories: all(['create:any', 'read:any', 'update:any']),
    tags: all(['create:any', 'read:any', 'update:any']),
    reviews: all(['read:any']),
    orders: all(['read:any', 'update:any']),
  },
  viewer: {
    products: all(['read:any'], ['*', '!cost']),
    categories: all(['read:any']),
    tags: all(['read:any']),
    reviews: all(['read:any']),
    orders: all(['read:any']),
  },
  customer: {
    products: all(['read:any'], ['*', '!cost']),
    categories: all(['read:any']),
    tags: all(['read:any']),
    reviews: all(['read:any', 'create:own', 'update:own', 'delete:own']),
    users: all(['read:own']),
    orders: all(['read:own', 'create:own']),
  },
};
