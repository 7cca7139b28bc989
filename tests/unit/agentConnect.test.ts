import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { ConnectError, DeviceAgent, connectOptions } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';

const credentials = { clientId: 'thing_one', username: 'thing_one?x-amz-customauthorizer-name=Auth', password: 'secret' };
const ats = 'a1b2c3d4e5f6g7-ats.iot.eu-west-1.amazonaws.com';

const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const listen = (server: Server, host = '127.0.0.1') =>
  new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** A TCP server that hands every socket to `onSocket` and is closed after the test. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  const port = await listen(server);
  cleanup.push(() => {
    for (const socket of sockets) socket.destroy();
    return close(server);
  });
  return port;
}

type Binding = NonNullable<DeviceAgent['binding']>;

/** An agent that is already bound, so start() goes straight to the broker. */
function boundAgent(brokerUrl: string, connectTimeoutMs?: number): DeviceAgent {
  const agent = new DeviceAgent({
    apiUrl: 'http://127.0.0.1:9',
    userCode: 'UNUSED',
    info: simulatedInfo('UNIT', 1),
    brokerUrl,
    ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
  });
  agent.binding = { state: 'bound', deviceKey: 'one', thingName: credentials.clientId, mqtt: { url: brokerUrl, ...credentials } } as Binding;
  cleanup.push(() => agent.stop());
  return agent;
}

/** Runs start() and answers the error it rejects with and how long that took. */
async function failedStart(agent: DeviceAgent): Promise<{ error: ConnectError; ms: number }> {
  const started = Date.now();
  const error = await agent.start().then(
    () => {
      throw new Error('start() connected');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return { error: error as ConnectError, ms: Date.now() - started };
}

/** The SNI host name and ALPN protocols of a TLS ClientHello record. */
function parseClientHello(record: Buffer): { serverName?: string; alpn: string[] } {
  let at = 5 + 4 + 2 + 32; // record header, handshake header, client_version, random
  at += 1 + record[at]!; // session id
  at += 2 + record.readUInt16BE(at); // cipher suites
  at += 1 + record[at]!; // compression methods
  const end = at + 2 + record.readUInt16BE(at);
  at += 2;
  const result: { serverName?: string; alpn: string[] } = { alpn: [] };
  while (at < end) {
    const type = record.readUInt16BE(at);
    const length = record.readUInt16BE(at + 2);
    const data = record.subarray(at + 4, at + 4 + length);
    if (type === 0) result.serverName = data.subarray(5, 5 + data.readUInt16BE(3)).toString();
    if (type === 16) {
      for (let i = 2; i < data.length; i += 1 + data[i]!) result.alpn.push(data.subarray(i + 1, i + 1 + data[i]!).toString());
    }
    at += 4 + length;
  }
  return result;
}

describe('connect options', () => {
  it('offers ALPN mqtt and names the endpoint (SNI) on an mqtts URL, as IoT Core needs on 443', () => {
    const options = connectOptions(`mqtts://${ats}:443`, credentials);
    expect(options).toMatchObject({ ...credentials, ALPNProtocols: ['mqtt'], servername: ats, reconnectPeriod: 1000, connectTimeout: 10_000 });
  });

  it('sends no SNI for an IP address, but still ALPN', () => {
    const options = connectOptions('mqtts://10.0.0.5:8883', credentials);
    expect(options.ALPNProtocols).toEqual(['mqtt']);
    expect(options).not.toHaveProperty('servername');
  });

  it('offers no ALPN on plain MQTT or WebSocket URLs', () => {
    for (const url of ['mqtt://127.0.0.1:1883', 'ws://127.0.0.1:8080/mqtt', `wss://${ats}/mqtt`]) {
      const options = connectOptions(url, credentials);
      expect(options, url).not.toHaveProperty('ALPNProtocols');
      expect(options, url).not.toHaveProperty('servername');
      expect(options, url).toMatchObject(credentials);
    }
  });

  it('puts ALPN mqtt and the host name in the ClientHello on the wire', async () => {
    let hello: Buffer = Buffer.alloc(0);
    const received = new Promise<Buffer>((resolve) => {
      void tcpServer((socket) => {
        socket.on('data', (chunk: Buffer) => {
          hello = Buffer.concat([hello, chunk]);
          if (hello.length >= 5 && hello.length >= 5 + hello.readUInt16BE(3)) {
            resolve(hello);
            socket.destroy();
          }
        });
      }).then((port) => {
        void failedStart(boundAgent(`mqtts://localhost:${port}`, 3000));
      });
    });
    const parsed = parseClientHello(await received);
    expect(parsed.alpn).toEqual(['mqtt']);
    expect(parsed.serverName).toBe('localhost');
  });
});

describe('the first connection', () => {
  it('fails at once against a closed port, naming the broker and the reason', async () => {
    const probe = createServer();
    const port = await listen(probe);
    await close(probe);
    const url = `mqtt://127.0.0.1:${port}`;
    const agent = boundAgent(url);
    const { error, ms } = await failedStart(agent);
    expect(error.reason).toBe('refused');
    expect(error.message).toContain(url);
    expect(error.message).toMatch(/connection refused/);
    expect(ms).toBeLessThan(3000);
    expect(agent.client).toBeUndefined();
  });

  it('fails when the broker refuses the credentials', async () => {
    const broker = await Aedes.createBroker();
    broker.authenticate = (_client, _username, _password, done) => done(Object.assign(new Error('Not authorized'), { returnCode: 5 }) as never, false);
    const server = createServer(broker.handle);
    const port = await listen(server);
    cleanup.push(() => new Promise<void>((r) => broker.close(() => r())));
    cleanup.push(() => close(server));
    const url = `mqtt://127.0.0.1:${port}`;
    const { error, ms } = await failedStart(boundAgent(url));
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toContain(url);
    expect(error.message).toMatch(/not authorized/i);
    expect(ms).toBeLessThan(3000);
  });

  it('fails when the broker drops the connection without answering', async () => {
    const port = await tcpServer((socket) => socket.destroy());
    const { error, ms } = await failedStart(boundAgent(`mqtt://127.0.0.1:${port}`));
    expect(error.reason).toBe('closed');
    expect(ms).toBeLessThan(3000);
  });

  it('fails after the connect timeout when the broker stays silent', async () => {
    const port = await tcpServer(() => undefined);
    const { error, ms } = await failedStart(boundAgent(`mqtt://127.0.0.1:${port}`, 500));
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/no answer within 0.5 s/);
    expect(ms).toBeLessThan(3000);
  });

  it('fails with a TLS error when the far end does not speak TLS', async () => {
    const port = await tcpServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const { error, ms } = await failedStart(boundAgent(`mqtts://127.0.0.1:${port}`));
    expect(error.reason).toBe('tls');
    expect(ms).toBeLessThan(3000);
  });

  it('connects to a broker that accepts it, and reconnects after a drop', async () => {
    const broker = await Aedes.createBroker();
    const server = createServer(broker.handle);
    const port = await listen(server);
    cleanup.push(() => new Promise<void>((r) => broker.close(() => r())));
    cleanup.push(() => close(server));
    const agent = boundAgent(`mqtt://127.0.0.1:${port}`);
    await agent.start();
    expect(agent.client?.connected).toBe(true);
    const back = new Promise<void>((resolve) => agent.on((event) => event.type === 'connected' && resolve()));
    for (const client of Object.values((broker as unknown as { clients: Record<string, { close(): void }> }).clients)) client.close();
    await back;
    expect(agent.client?.connected).toBe(true);
  });
});
