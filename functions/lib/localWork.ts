/**
 * Background work the local host runs in its own process where AWS runs other functions: workers
 * started without waiting (lib/jobs.ts), queued pieces, webhook deliveries due now
 * (lib/webhookQueue.ts) and the actions of the IoT rules (infra/local/iot.ts). Each is counted
 * while it is due or running, so a test can wait until all of it has ended (`GET /_local/idle`)
 * and then assert that something did not happen, instead of sleeping first. Work scheduled for
 * later (a retry's wait) is not counted until it is due. On AWS nothing here is used.
 */
let running = 0;
let waiters: (() => void)[] = [];

function settle(): void {
  // A tick later: work that ends by starting more has counted the new work by then.
  setImmediate(() => {
    if (running > 0) return;
    const done = waiters;
    waiters = [];
    for (const wake of done) wake();
  });
}

/** Counts one piece of local background work until `ended` settles; answers `ended`. */
export function countLocalWork<T>(ended: Promise<T>): Promise<T> {
  running++;
  const counted = ended.finally(() => {
    running--;
    if (running === 0) settle();
  });
  counted.catch(() => undefined);
  return counted;
}

/** Counts one piece of work from now until `done` is called (work that is queued before it runs). */
export function startLocalWork(): () => void {
  running++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    running--;
    if (running === 0) settle();
  };
}

/** Resolves once no local background work is due or running. */
export function localWorkDone(): Promise<void> {
  return new Promise((wake) => {
    waiters.push(wake);
    if (running === 0) settle();
  });
}
