import { useSyncExternalStore } from 'react';

let visible = false;
const listeners = new Set<() => void>();

export function setLoading(next: boolean): void {
  visible = next;
  for (const listener of listeners) listener();
}

export function useLoading(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => visible,
  );
}
