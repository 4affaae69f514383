import type { createClient } from 'redis';

type Client = ReturnType<typeof createClient>;

/**
 * QUIT, or the socket destroyed when Redis cannot answer it: a client that is reconnecting (Redis
 * gone) has nothing to say goodbye to, and a stalled server gets one second. Without this, `quit()`
 * on a dead or stopped Redis waits forever and holds the app's shutdown.
 */
export async function closeRedisClient(client: Client, waitMs = 1000): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) {
    client.destroy();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const quit = client.quit().then(() => true, () => false);
  const answered = await Promise.race([quit, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)))]);
  clearTimeout(timer);
  if (!answered && client.isOpen) client.destroy();
}
