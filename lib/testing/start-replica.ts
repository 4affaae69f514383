import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { announce } from './announce';
import { freePort } from './free-port';
import { postgresIds, runnableNative, startServer, type Cluster } from './postgres-cluster';

export interface ReplicaHandle {
  /** The primary's URI with the replica's port. */
  uri: string;
  /** How it was made: `pg_basebackup`, or the same backup through SQL (`pg_backup_start`) when pg_basebackup is older than the server. */
  madeWith: 'pg_basebackup' | 'pg_backup_start';
  /** Stops the server (a fast shutdown); start() brings it back on the same port, streaming again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

/** pg_basebackup's major version on PATH, or null when there is none. */
export function basebackupMajor(): number | null {
  try {
    const out = execFileSync('pg_basebackup', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const match = /(\d+)(?:\.\d+)?/.exec(out);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Copies a running cluster's folder between pg_backup_start and pg_backup_stop (files that vanish meanwhile are skipped). */
function copyCluster(from: string, to: string, skip: Set<string>): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    try {
      if (entry.isDirectory()) copyCluster(source, target, ['pg_wal', 'pg_replslot', 'pgsql_tmp'].includes(entry.name) ? new Set(readdirSync(source)) : new Set());
      else copyFileSync(source, target);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }
}

function chownTree(path: string, ids: { uid: number; gid: number }): void {
  chownSync(path, ids.uid, ids.gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) chownTree(join(path, entry.name), ids);
    else chownSync(join(path, entry.name), ids.uid, ids.gid);
  }
}

/**
 * A streaming replica of the embedded PostgreSQL whose data folder is `primaryDataDir`, on a port
 * of its own, with a physical replication slot (the primary keeps the WAL it has not received) and
 * `recovery_min_apply_delay` (`applyDelayMs`, default 0) for a lagging one. Made with
 * pg_basebackup when the one on PATH is at least the server's version; Debian 12's is 15 and the
 * embedded server is newer, so otherwise the same backup is taken through SQL (pg_backup_start,
 * a copy of the folder, pg_backup_stop's backup_label).
 */
export async function startReplica(primaryUri: string, primaryDataDir: string, options: { applyDelayMs?: number } = {}): Promise<ReplicaHandle> {
  const primary = new URL(primaryUri);
  const admin = new Client({ host: primary.hostname, port: Number(primary.port), user: decodeURIComponent(primary.username), password: decodeURIComponent(primary.password), database: 'postgres' });
  await admin.connect();
  const root = mkdtempSync(join(tmpdir(), 'grr-pg-replica-'));
  const dataDir = join(root, 'data');
  const slot = `grr_replica_${process.pid}_${Date.now()}`;
  const asRoot = userInfo().uid === 0;
  const ids = asRoot ? postgresIds() : null;
  let madeWith: ReplicaHandle['madeWith'];
  try {
    await admin.query('SELECT pg_create_physical_replication_slot($1, true)', [slot]);
    const serverMajor = Math.floor(Number((await admin.query('SHOW server_version_num')).rows[0].server_version_num) / 10_000);
    const tool = basebackupMajor();
    if (tool !== null && tool >= serverMajor) {
      madeWith = 'pg_basebackup';
      execFileSync('pg_basebackup', ['-h', primary.hostname, '-p', primary.port, '-U', decodeURIComponent(primary.username), '-D', dataDir, '-X', 'stream', '-S', slot, '-c', 'fast'], {
        env: { ...process.env, PGPASSWORD: decodeURIComponent(primary.password) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } else {
      madeWith = 'pg_backup_start';
      await admin.query("SELECT pg_backup_start('grr-replica', true)");
      copyCluster(primaryDataDir, dataDir, new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map', 'standby.signal']));
      const { rows } = await admin.query('SELECT labelfile, spcmapfile FROM pg_backup_stop(false)');
      writeFileSync(join(dataDir, 'backup_label'), rows[0].labelfile as string);
      if (rows[0].spcmapfile) writeFileSync(join(dataDir, 'tablespace_map'), rows[0].spcmapfile as string);
    }
  } finally {
    await admin.end();
  }
  const conninfo = `host=${primary.hostname} port=${primary.port} user=${decodeURIComponent(primary.username)} password=${decodeURIComponent(primary.password)} application_name=${slot}`;
  appendFileSync(
    join(dataDir, 'postgresql.auto.conf'),
    `\nprimary_conninfo = '${conninfo.replace(/'/g, "''")}'\nprimary_slot_name = '${slot}'\nrecovery_min_apply_delay = '${options.applyDelayMs ?? 0}ms'\nhot_standby = on\nhot_standby_feedback = on\n`,
  );
  writeFileSync(join(dataDir, 'standby.signal'), '');
  chmodSync(dataDir, 0o700);
  if (ids) {
    chmodSync(root, 0o755);
    chownTree(root, ids);
  }
  const native = runnableNative(asRoot);
  const port = await freePort();
  const flags = ['-c', 'fsync=off', '-c', 'full_page_writes=off'];
  let server: Cluster | null = await startServer(native, ids, root, dataDir, port, flags);
  announce('replica', `streaming replica (${madeWith}) on 127.0.0.1:${port}, recovery_min_apply_delay ${options.applyDelayMs ?? 0} ms`);
  const uri = new URL(primaryUri);
  uri.port = String(port);
  const stop = async (): Promise<void> => {
    await server?.stop();
    server = null;
  };
  return {
    uri: uri.toString(),
    madeWith,
    stop,
    start: async () => {
      server ??= await startServer(native, ids, root, dataDir, port, flags);
    },
    remove: async () => {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
