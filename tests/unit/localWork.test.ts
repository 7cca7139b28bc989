import { describe, expect, it } from 'vitest';
import { countLocalWork, localWorkDone, startLocalWork } from '@passcloud/functions/lib/localWork';

/** The count of the local host's background work, which `GET /_local/idle` waits on. */
describe('local background work', () => {
  it('is done at once when nothing runs', async () => {
    await expect(localWorkDone()).resolves.toBe(true);
  });

  it('waits for counted work, and for the work it starts before it ends', async () => {
    const order: string[] = [];
    let finishFirst!: () => void;
    void countLocalWork(
      new Promise<void>((resolve) => (finishFirst = resolve)).then(() => {
        order.push('first');
        // Work that ends by starting more: the count never falls to zero in between.
        void countLocalWork(new Promise<void>((resolve) => setTimeout(resolve, 30)).then(() => void order.push('second')));
      }),
    );
    const idle = localWorkDone().then(() => void order.push('idle'));
    setTimeout(finishFirst, 20);
    await idle;
    expect(order).toEqual(['first', 'second', 'idle']);
  });

  it('counts queued work from when it is queued until it is ended, once, and counts failed work as ended', async () => {
    const ended = startLocalWork();
    let idle = false;
    const waiting = localWorkDone().then(() => (idle = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    ended();
    ended();
    await waiting;
    expect(idle).toBe(true);
    await expect(countLocalWork(Promise.reject(new Error('failed work')))).rejects.toThrow('failed work');
    await expect(localWorkDone()).resolves.toBe(true);
  });
});

describe('waiting for local background work, within a bound', () => {
  it('says the work is still running when it outlasts the bound, and done once it ends', async () => {
    const ended = startLocalWork();
    expect(await localWorkDone(30)).toBe(false);
    ended();
    expect(await localWorkDone(1000)).toBe(true);
  });
});
