import { deviceAuthorization, type BindResult } from '@passcloud/functions/contract/protocol';

/**
 * The terminal's HTTPS device calls (./agent.ts `call`): one of the device routes, signed with the
 * binding's credentials, its answer read from the envelope, and tried again after a throttle, a
 * server failure or no answer at all.
 */

/** How often an HTTPS device call is tried in all when the answer is a throttle, a server failure or no answer at all. */
export const CALL_ATTEMPTS = 4;

/**
 * An HTTPS device call that did not succeed. `retryable` when trying later may succeed: no answer,
 * HTTP 429 or 5xx (API Gateway's own throttle and errors come without the envelope).
 */
export class DeviceCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
    /** The answer's machine-readable reason (`data.reason`), when it gave one. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'DeviceCallError';
  }
}

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

/** The answer's envelope, or undefined when the body is not `{ code, message, data }` (an error page, API Gateway's `{"message":...}`). */
function envelopeOf<T>(text: string): Envelope<T> | undefined {
  try {
    const body = JSON.parse(text) as Partial<Envelope<T>> | null;
    if (body && typeof body === 'object' && typeof body.code === 'number' && typeof body.message === 'string' && 'data' in body) return body as Envelope<T>;
  } catch {
    // not JSON
  }
  return undefined;
}

/** Where the calls go and how long the first wait before a retry is (the agent's options, read at each attempt). */
export interface CallTarget {
  /** Base URL of the API. */
  apiUrl: string;
  retryBaseMs?: number;
}

/**
 * Calls one of the HTTPS device routes with the terminal's credentials and answers the envelope's
 * `data`. An answer counts only when it is the envelope with a success code. No answer, a throttle
 * (429) or a server failure (5xx), with or without the envelope, is tried again after a wait that
 * doubles from `retryBaseMs` with jitter (or the answer's Retry-After), CALL_ATTEMPTS times in
 * all; anything else, and the last failure, throws a DeviceCallError.
 */
export async function deviceCall<T>(target: CallTarget, binding: BindResult, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let failure: DeviceCallError;
    let retryAfterMs: number | undefined;
    try {
      const response = await fetch(new URL(path, target.apiUrl), {
        method,
        headers: {
          authorization: deviceAuthorization(binding.thingName, binding.mqtt.password),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const envelope = envelopeOf<T>(await response.text());
      if (envelope && response.ok && envelope.code < 300) return envelope.data;
      const status = envelope && envelope.code >= 400 ? envelope.code : response.status;
      const retryable = response.status === 429 || response.status >= 500 || status === 429;
      const reason = (envelope?.data as { reason?: unknown } | null | undefined)?.reason;
      failure = new DeviceCallError(
        `${method} ${path} answered ${status}${envelope ? `: ${envelope.message}` : ' without the envelope'}`,
        status,
        retryable,
        typeof reason === 'string' ? reason : undefined,
      );
      const after = Number(response.headers.get('retry-after'));
      if (Number.isFinite(after) && after > 0) retryAfterMs = Math.min(after, 60) * 1000;
    } catch (error) {
      failure = new DeviceCallError(`${method} ${path}: no answer (${error instanceof Error ? error.message : String(error)})`, 0, true);
    }
    if (!failure.retryable || attempt >= CALL_ATTEMPTS) throw failure;
    const base = target.retryBaseMs ?? 1000;
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs ?? base * 2 ** (attempt - 1) * (0.5 + Math.random())));
  }
}
