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

function wakeIfIdle(): void {
  // A tick later: work that ends by starting more has counted the new work by then.
  setImmediate(() => {
    if (running > 0) return;
    const done = waiters;
    waiters = [];
    for (const wake of done) wake();
  });
}

/** Counts one piece of work from now until the answered function is called (work queued before it runs); a second call does nothing. */
export function startLocalWork(): () => void {
  running++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--running === 0) wakeIfIdle();
  };
}

/** Counts one piece of local background work until `work` settles; answers `work`. */
export function countLocalWork<T>(work: Promise<T>): Promise<T> {
  const counted = work.finally(startLocalWork());
  counted.catch(() => undefined);
  return counted;
}

/** True once no local background work is due or running; false when some still is after `withinMs`. */
export function localWorkDone(withinMs = Infinity): Promise<boolean> {
  return new Promise((answer) => {
    const timer = Number.isFinite(withinMs) ? setTimeout(() => answer(false), withinMs) : undefined;
    waiters.push(() => {
      clearTimeout(timer);
      answer(true);
    });
    if (running === 0) wakeIfIdle();
  });
}
