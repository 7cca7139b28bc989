/**
 * The little of MQTT 3.1.1 the console's live channel needs, over a WebSocket: connect with a
 * username and password, subscribe, receive, keep alive. The console only listens, so it never
 * publishes. (A general MQTT client for the browser weighs about 100 KB gzip; this is a few.)
 *
 * Packet layouts follow the MQTT 3.1.1 specification (OASIS, 2014), §2 and §3.
 */

export interface MqttOptions {
  url: string;
  clientId: string;
  username: string;
  password: string;
  /** Seconds between keep-alive pings; the broker drops the connection after 1.5 times this without a packet. */
  keepAlive?: number;
  /** How long to wait for the broker to accept the connection, in ms. */
  connectTimeoutMs?: number;
  /** The WebSocket class (the browser's, or `ws` in Node). */
  WebSocket?: typeof WebSocket;
}

export interface MqttConnection {
  /** Subscribes at QoS 0; answers the broker's code for each filter (0x80 is a refusal). */
  subscribe(filters: string[]): Promise<number[]>;
  /** Called with each message received. */
  onMessage: (topic: string, payload: Uint8Array) => void;
  /** Called once when the connection ends, whoever ended it. */
  onClose: () => void;
  close(): void;
}

export class MqttRefused extends Error {
  constructor(readonly returnCode: number) {
    super(`MQTT connection refused (${returnCode})`);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const CONNECT = 1;
const CONNACK = 2;
const PUBLISH = 3;
const PUBACK = 4;
const SUBSCRIBE = 8;
const SUBACK = 9;
const PINGREQ = 12;
const DISCONNECT = 14;

/** A UTF-8 string or bytes, preceded by its length in two bytes. */
function field(value: string | Uint8Array): Uint8Array {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  const out = new Uint8Array(2 + bytes.length);
  out[0] = bytes.length >> 8;
  out[1] = bytes.length & 0xff;
  out.set(bytes, 2);
  return out;
}

/** A packet: its type and flags, the remaining length (1 to 4 bytes of 7 bits), then the rest. */
function packet(type: number, flags: number, parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const length = parts.reduce((sum, p) => sum + p.length, 0);
  const header = [(type << 4) | flags];
  let rest = length;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    header.push(byte);
  } while (rest > 0);
  const out = new Uint8Array(header.length + length);
  out.set(header, 0);
  let at = header.length;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const u16 = (n: number) => new Uint8Array([n >> 8, n & 0xff]);

/** Splits the bytes received so far into whole packets; the rest waits for more. */
function takePackets(buffer: Uint8Array): { packets: { type: number; flags: number; body: Uint8Array }[]; rest: Uint8Array } {
  const packets: { type: number; flags: number; body: Uint8Array }[] = [];
  let at = 0;
  for (;;) {
    if (buffer.length - at < 2) break;
    let length = 0;
    let multiplier = 1;
    let i = at + 1;
    let complete = false;
    for (let n = 0; n < 4 && i < buffer.length; n++, i++) {
      const byte = buffer[i]!;
      length += (byte & 0x7f) * multiplier;
      multiplier *= 128;
      if ((byte & 0x80) === 0) {
        complete = true;
        i++;
        break;
      }
    }
    if (!complete || buffer.length - i < length) break;
    packets.push({ type: buffer[at]! >> 4, flags: buffer[at]! & 0x0f, body: buffer.subarray(i, i + length) });
    at = i + length;
  }
  return { packets, rest: buffer.slice(at) };
}

/** Opens the connection: resolves once the broker has accepted it (CONNACK 0), rejects with MqttRefused or an Error otherwise. */
export function connectMqtt(options: MqttOptions): Promise<MqttConnection> {
  const Socket = options.WebSocket ?? WebSocket;
  const keepAlive = options.keepAlive ?? 60;
  return new Promise((resolve, reject) => {
    const socket = new Socket(options.url, ['mqtt']);
    socket.binaryType = 'arraybuffer';
    let buffer: Uint8Array = new Uint8Array(0);
    let accepted = false;
    let closed = false;
    let nextId = 1;
    let lastSent = Date.now();
    const pending = new Map<number, (codes: number[]) => void>();
    const send = (bytes: Uint8Array<ArrayBuffer>) => {
      if (socket.readyState !== Socket.OPEN) return;
      socket.send(bytes);
      lastSent = Date.now();
    };
    const timeout = setTimeout(() => fail(new Error('MQTT connection timed out')), options.connectTimeoutMs ?? 10_000);
    let ping: ReturnType<typeof setInterval> | undefined;

    const connection: MqttConnection = {
      onMessage: () => undefined,
      onClose: () => undefined,
      subscribe(filters) {
        const id = nextId;
        nextId = nextId >= 65_535 ? 1 : nextId + 1;
        return new Promise((done, refuse) => {
          if (closed) return refuse(new Error('MQTT connection closed'));
          pending.set(id, done);
          send(packet(SUBSCRIBE, 0b0010, [u16(id), ...filters.flatMap((f) => [field(f), new Uint8Array([0])])]));
        });
      },
      close() {
        if (closed) return;
        send(packet(DISCONNECT, 0, []));
        end();
      },
    };

    function end() {
      if (closed) return;
      closed = true;
      clearTimeout(timeout);
      clearInterval(ping);
      pending.clear();
      try {
        socket.close();
      } catch {
        // already closing
      }
      if (accepted) connection.onClose();
    }
    function fail(error: Error) {
      if (!accepted) reject(error);
      end();
    }

    socket.onopen = () => {
      const flags = 0x80 | 0x40 | 0x02; // username, password, clean session
      send(packet(CONNECT, 0, [field('MQTT'), new Uint8Array([4, flags]), u16(keepAlive), field(options.clientId), field(options.username), field(options.password)]));
    };
    socket.onerror = () => fail(new Error('MQTT socket failed'));
    socket.onclose = () => fail(new Error('MQTT socket closed'));
    socket.onmessage = (event: MessageEvent) => {
      const data = new Uint8Array(event.data as ArrayBuffer);
      const joined = new Uint8Array(buffer.length + data.length);
      joined.set(buffer, 0);
      joined.set(data, buffer.length);
      const { packets, rest } = takePackets(joined);
      buffer = rest;
      for (const { type, flags, body } of packets) {
        if (type === CONNACK) {
          const code = body[1] ?? 255;
          if (code !== 0) return fail(new MqttRefused(code));
          accepted = true;
          clearTimeout(timeout);
          ping = setInterval(() => {
            if (Date.now() - lastSent >= keepAlive * 500) send(packet(PINGREQ, 0, []));
          }, (keepAlive * 1000) / 4);
          resolve(connection);
        } else if (type === SUBACK) {
          const id = (body[0]! << 8) | body[1]!;
          pending.get(id)?.([...body.subarray(2)]);
          pending.delete(id);
        } else if (type === PUBLISH) {
          const qos = (flags >> 1) & 3;
          const topicLength = (body[0]! << 8) | body[1]!;
          const topic = decoder.decode(body.subarray(2, 2 + topicLength));
          let at = 2 + topicLength;
          if (qos > 0) {
            send(packet(PUBACK, 0, [body.subarray(at, at + 2)]));
            at += 2;
          }
          connection.onMessage(topic, body.subarray(at));
        }
        // PINGRESP and anything else: nothing to do.
      }
    };
  });
}
