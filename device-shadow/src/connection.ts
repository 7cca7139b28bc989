import { isIP } from 'node:net';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { BindResult } from '@passcloud/functions/contract/protocol';

/**
 * How the terminal (./agent.ts) reaches the broker: the mqtt.js options for a broker URL (ALPN and
 * SNI as IoT Core needs them), the wait for the broker to accept a first connection, and the
 * reason it failed (ConnectError), named from what mqtt.js reported.
 */

/** Raw MQTT over TLS, as mqtt.js names it; `wss:` is HTTP underneath and must not offer ALPN `mqtt`. */
const TLS_PROTOCOLS = new Set(['mqtts:', 'ssl:', 'tls:']);

/**
 * The mqtt.js options for one broker URL. IoT Core takes username/password (custom authorizer)
 * on port 443 only when the TLS handshake offers ALPN `mqtt` and names the endpoint (SNI);
 * without ALPN it expects a client certificate there and drops the connection.
 */
export function connectOptions(url: string, credentials: Omit<BindResult['mqtt'], 'url'>, connectTimeoutMs = 10_000): IClientOptions {
  const { protocol, hostname } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  return {
    clientId: credentials.clientId,
    username: credentials.username,
    password: credentials.password,
    keepalive: 30,
    reconnectPeriod: 1000,
    connectTimeout: connectTimeoutMs,
    clean: true,
    // SNI may not carry an IP address (RFC 6066).
    ...(TLS_PROTOCOLS.has(protocol) ? { ALPNProtocols: ['mqtt'], ...(isIP(host) === 0 ? { servername: host } : {}) } : {}),
  };
}

export type ConnectFailure = 'refused' | 'unauthorized' | 'tls' | 'timeout' | 'closed' | 'unreachable' | 'error';

/** The first connection to the broker could not be made; `reason` says why. */
export class ConnectError extends Error {
  constructor(
    readonly url: string,
    readonly reason: ConnectFailure,
    detail: string,
  ) {
    super(`cannot connect to the broker at ${url}: ${detail}`);
    this.name = 'ConnectError';
  }
}

const TLS_ERROR = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** Names the reason a first connection attempt failed, from what mqtt.js reported. */
function failure(url: string, error: (Error & { code?: string | number }) | undefined, timeoutMs: number): ConnectError {
  if (!error) return new ConnectError(url, 'closed', 'the broker closed the connection before accepting it');
  const { code } = error;
  const message = error.message.trim();
  // CONNACK return codes 4/5 (MQTT 3.1.1) and reason codes 134/135 (MQTT 5).
  if (code === 4 || code === 5 || code === 134 || code === 135) return new ConnectError(url, 'unauthorized', `not authorized (${message})`);
  if (typeof code === 'number') return new ConnectError(url, 'refused', message);
  if (code === 'ECONNREFUSED') return new ConnectError(url, 'refused', `connection refused (${message})`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return new ConnectError(url, 'unreachable', `host unreachable (${message})`);
  }
  if (message === 'connack timeout' || code === 'ETIMEDOUT') return new ConnectError(url, 'timeout', `no answer within ${timeoutMs / 1000} s`);
  if ((code && TLS_ERROR.test(code)) || /TLS|SSL|certificate/i.test(message)) return new ConnectError(url, 'tls', `TLS failure (${message})`);
  return new ConnectError(url, 'error', message);
}

/** The URL without user info, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** What a first connection attempt asks of the agent that made it. */
export interface FirstAttempt {
  /** True when the attempt is to be let go: the agent was stopped (and perhaps started again) since. */
  over(): boolean;
  /** The attempt failed and its client is ended: the agent lets go of it. */
  dropped(): void;
  /** Once accepted, a reconnect the broker refuses as not authorized. */
  refused(): void;
}

/**
 * Waits for the broker to accept `client`'s first connection to `url`. Rejects with a ConnectError
 * when it cannot be made (the client is ended); once it is, mqtt.js reconnects after every drop on
 * its own, and a reconnect refused as not authorized goes to `attempt.refused`.
 */
export function firstConnack(client: MqttClient, url: string, timeoutMs: number, attempt: FirstAttempt): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // mqtt.js's own connack timer covers a silent broker; this one covers anything it misses.
    const timer = setTimeout(() => fail(new Error('connack timeout')), timeoutMs + 2000);
    const settle = () => {
      clearTimeout(timer);
      client.removeListener('connect', onConnect);
      client.removeListener('error', fail);
      client.removeListener('close', onClose);
    };
    const fail = (error?: Error) => {
      settle();
      client.end(true);
      attempt.dropped();
      reject(failure(shown(url), error, timeoutMs));
    };
    // A close with no error before it: the far end dropped the connection without a CONNACK.
    // mqtt.js would retry forever; a first connection that cannot be made is reported instead.
    const onClose = () => fail();
    const onConnect = () => {
      // Stopped (and perhaps started again) while this attempt was on its way: it is let go.
      if (attempt.over()) return fail(new Error('stopped while connecting'));
      settle();
      client.on('error', (error: Error & { code?: string | number }) => {
        if (failure(url, error, timeoutMs).reason === 'unauthorized') attempt.refused();
      });
      resolve();
    };
    client.once('connect', onConnect);
    client.on('error', fail);
    client.on('close', onClose);
  });
}
