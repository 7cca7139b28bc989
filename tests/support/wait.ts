/** Polls `get` until `check` holds of its value, or throws naming the last value after `ms`. */
export async function until<T>(get: () => Promise<T> | T, check: (value: T) => boolean, ms = 15_000): Promise<T> {
  const started = Date.now();
  let value = await get();
  while (!check(value)) {
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms; last: ${JSON.stringify(value).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 100));
    value = await get();
  }
  return value;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
