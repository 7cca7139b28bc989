import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { LiveConnection, LiveTopic } from '@passcloud/functions/contract/live';
import type { PassRecordItem } from '@passcloud/functions/contract/passRecords';
import type { QuestionnaireResultItem } from '@passcloud/functions/contract/questionnaires';
import { api } from '../api.ts';
import { onLeave, onReset } from '../auth.ts';
import { getToken } from '../session.ts';
import { connectMqtt, MqttRefused, type MqttConnection } from './mqtt.ts';

/**
 * The console's live channel (functions/contract/live.ts): one connection per tab, opened while
 * some screen listens and closed when none does or the session ends. It reconnects by itself,
 * waiting longer after each failure; while it is not open, the screens poll as before.
 */

export type LiveState = 'off' | 'connecting' | 'open';

/** What each topic's messages carry (LiveMessage, LiveQuestionnaireMessage). */
export interface LiveItems {
  passes: PassRecordItem;
  blacklist: PassRecordItem;
  questionnaires: QuestionnaireResultItem;
}
type Listener<T extends LiveTopic> = (items: LiveItems[T][]) => void;

const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000];
/** A tab's connection outlives its last listener this long, so moving between screens keeps it. */
const LINGER_MS = 10_000;

const listeners: { [T in LiveTopic]: Set<Listener<T>> } = { passes: new Set(), blacklist: new Set(), questionnaires: new Set() };
const stateListeners = new Set<() => void>();
const tabId = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

let state: LiveState = 'off';
let topics: Partial<Record<LiveTopic, string>> = {};
let connection: MqttConnection | undefined;
let retry: ReturnType<typeof setTimeout> | undefined;
let linger: ReturnType<typeof setTimeout> | undefined;
let failures = 0;
/** Bumped whenever the channel is stopped, so a connection that opens after that is closed at once. */
let generation = 0;

function setState(next: LiveState): void {
  if (state === next) return;
  state = next;
  for (const listener of stateListeners) listener();
}

const listening = () => Object.values(listeners).some((set) => set.size > 0);

function stop(): void {
  generation++;
  clearTimeout(retry);
  clearTimeout(linger);
  retry = undefined;
  connection?.close();
  connection = undefined;
  failures = 0;
  topics = {};
  setState('off');
}

async function start(): Promise<void> {
  const token = getToken();
  if (!token || connection || retry || state === 'connecting') return;
  const mine = generation;
  setState('connecting');
  try {
    // Quietly: no loading bar, and no toast for an account without the rights or a network that is down.
    const info = await api.get<LiveConnection>('/v1/systems/live', { quiet: true, silent: true });
    if (mine !== generation) return;
    topics = info.topics;
    // The address as given, with no query string: on AWS the custom authorizer is named in the MQTT
    // username, and the session token travels as the MQTT password, where the authorizer reads them.
    const open = await connectMqtt({ url: info.url, username: info.username, password: token, clientId: `${info.clientPrefix}${tabId}` });
    if (mine !== generation || !listening()) return open.close();
    const wanted = Object.values(info.topics);
    const codes = await open.subscribe(wanted);
    if (codes.some((code) => code >= 0x80)) {
      open.close();
      throw new MqttRefused(0x80);
    }
    connection = open;
    failures = 0;
    open.onMessage = deliver;
    open.onClose = () => {
      connection = undefined;
      if (mine === generation) later();
    };
    setState('open');
  } catch {
    if (mine === generation) later();
  }
}

/** Tries again after a while, unless nobody listens any more. */
function later(): void {
  setState('connecting');
  if (!listening()) return stop();
  const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!;
  clearTimeout(retry);
  retry = setTimeout(() => {
    retry = undefined;
    setState('off');
    void start();
  }, wait);
}

function deliver(topic: string, payload: Uint8Array): void {
  const key = (Object.keys(topics) as LiveTopic[]).find((k) => topics[k] === topic);
  if (!key) return;
  let message: { items?: unknown };
  try {
    message = JSON.parse(new TextDecoder().decode(payload)) as { items?: unknown };
  } catch {
    return;
  }
  if (!Array.isArray(message.items)) return;
  const items = message.items as never[];
  for (const listener of listeners[key] as Set<Listener<LiveTopic>>) listener(items);
}

function listen<T extends LiveTopic>(topic: T, listener: Listener<T>): () => void {
  (listeners[topic] as Set<Listener<T>>).add(listener);
  clearTimeout(linger);
  void start();
  return () => {
    (listeners[topic] as Set<Listener<T>>).delete(listener);
    if (!listening()) {
      clearTimeout(linger);
      linger = setTimeout(() => {
        if (!listening()) stop();
      }, LINGER_MS);
    }
  };
}

// A logout closes the channel before the server ends the session (which would close it from its side).
onLeave(stop);
onReset(stop);

const subscribeState = (listener: () => void) => {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
};

/**
 * Listens to a live topic while the component is mounted (and `enabled`): `onItems` gets the
 * records of each message, oldest first. Answers whether the channel carries the topic now; when
 * it does not, the caller polls. `onOpen` runs each time it starts to, so the caller can catch up
 * on what it missed while it was not.
 */
export function useLive<T extends LiveTopic>(topic: T, onItems: Listener<T>, options: { enabled?: boolean; onOpen?: () => void } = {}): boolean {
  const enabled = options.enabled ?? true;
  const handlers = useRef({ onItems, onOpen: options.onOpen });
  handlers.current = { onItems, onOpen: options.onOpen };
  useEffect(() => {
    if (!enabled) return;
    return listen<T>(topic, (items) => handlers.current.onItems(items));
  }, [topic, enabled]);
  const current = useSyncExternalStore(subscribeState, () => state);
  const live = enabled && current === 'open' && !!topics[topic];
  useEffect(() => {
    if (live) handlers.current.onOpen?.();
  }, [live]);
  return live;
}
