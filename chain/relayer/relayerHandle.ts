/**
 * The main thread's handle on the relayer's worker thread (chain/relayer/relayerThread.ts):
 * starts it, hands each message to the venue, and stops it (the thread finishes its turn,
 * closes its outbox and exits).
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { workerExecArgv } from '../../workers/taskWorker.ts';
import type { RelayerThreadData, RelayerThreadMessage } from './relayerThread.ts';
import type { RelayerMetrics } from './relayer.ts';

export type RelayerHandle = {
  /** The relayer's latest metrics (null before its first report). */
  metrics(): RelayerMetrics | null;
  stop(): Promise<void>;
};

export function startRelayerThread(data: RelayerThreadData, on: (m: RelayerThreadMessage) => void, onError: (e: Error) => void): RelayerHandle {
  const worker = new Worker(fileURLToPath(new URL('../../workers/loadTask.cjs', import.meta.url)), {
    workerData: { ...data, taskFile: fileURLToPath(new URL('./relayerThread.ts', import.meta.url)) },
    execArgv: workerExecArgv(),
  });
  let latest: RelayerMetrics | null = null;
  let stopped = false;
  const done = new Promise<void>((resolve) => {
    worker.on('message', (m: RelayerThreadMessage) => {
      if (m.type === 'metrics') latest = m.metrics;
      if (m.type === 'stopped') {
        stopped = true;
        resolve();
      }
      on(m);
    });
    worker.on('error', (e) => {
      onError(e);
      resolve();
    });
    worker.on('exit', () => resolve());
  });
  return {
    metrics: () => latest,
    async stop() {
      if (!stopped) worker.postMessage({ type: 'stop' });
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
      await Promise.race([done, timeout]);
      await worker.terminate();
    },
  };
}
