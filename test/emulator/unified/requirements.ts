import type { MongoClient } from 'mongodb';
import type { Json } from './load';

/** What runOnRequirements are checked against, read from the server once. */
export interface ServerInfo {
  version: number[];
  topology: 'single' | 'replicaset' | 'sharded' | 'load-balanced';
  auth: boolean;
  parameters: Json;
}

export async function serverInfo(client: MongoClient, uri: string): Promise<ServerInfo> {
  const admin = client.db('admin');
  const build = await admin.command({ buildInfo: 1 });
  const hello = await admin.command({ hello: 1 });
  const topology = hello.msg === 'isdbgrid' ? 'sharded' : hello.setName ? 'replicaset' : 'single';
  let parameters: Json = {};
  try {
    parameters = await admin.command({ getParameter: '*' });
  } catch {
    // a server that refuses getParameter '*' simply satisfies no serverParameters requirement
  }
  return {
    version: String(build.version).split('.').map((p) => Number.parseInt(p, 10) || 0),
    topology,
    auth: /^mongodb(\+srv)?:\/\/[^/@]+@/.test(uri),
    parameters,
  };
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length, 3); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

const parse = (v: unknown): number[] => String(v).split('.').map((p) => Number.parseInt(p, 10) || 0);

/** Why one runOnRequirement is not met (a stable, countable reason), or undefined when it is. */
export function unmet(req: Json, info: ServerInfo): string | undefined {
  const shown = info.version.slice(0, 2).join('.');
  if (req.minServerVersion !== undefined && compareVersions(parse(req.minServerVersion), info.version) > 0) return `requires minServerVersion > ${shown}`;
  if (req.maxServerVersion !== undefined && compareVersions(parse(req.maxServerVersion), info.version) < 0) return `requires maxServerVersion < ${shown}`;
  if (Array.isArray(req.topologies)) {
    const wanted = req.topologies.map(String).map((t) => (t === 'sharded-replicaset' ? 'sharded' : t));
    if (!wanted.includes(info.topology)) return `requires a topology other than ${info.topology}`;
  }
  if (req.serverless === 'require') return 'requires serverless';
  if (req.auth === true && !info.auth) return 'requires auth';
  if (req.auth === false && info.auth) return 'requires no auth';
  if (req.authMechanism !== undefined) return 'requires an auth mechanism';
  if (req.csfle === true) return 'requires csfle';
  if (req.serverParameters && typeof req.serverParameters === 'object') {
    for (const [k, v] of Object.entries(req.serverParameters as Json)) {
      if (JSON.stringify(info.parameters[k]) !== JSON.stringify(v)) return `requires server parameter ${k}`;
    }
  }
  return undefined;
}

/** Any-of semantics: the first requirement's reason when none is met. */
export function unmetAll(reqs: Json[] | undefined, info: ServerInfo): string | undefined {
  if (!reqs || reqs.length === 0) return undefined;
  const reasons = reqs.map((r) => unmet(r, info));
  return reasons.some((r) => r === undefined) ? undefined : reasons[0];
}
