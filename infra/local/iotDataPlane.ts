import type { Aedes } from 'aedes';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SignatureV4 } from '@smithy/signature-v4';
import { log } from '@passcloud/functions/lib/log';
import { clientsOf } from './iotBroker.ts';
import { MAX_PAYLOAD_BYTES } from './iotLimits.ts';
import { ShadowError, getDocument, parsePayload, type ShadowStore, type ShadowUpdate } from './iotShadows.ts';
import { checkSignature, readSignature, type DataPlaneCredentials, type Refusal } from './iotSigV4.ts';

/**
 * The data-plane REST API of the IoT Core stand-in (./iot.ts), for
 * `@aws-sdk/client-iot-data-plane`: a thing's shadow (`/things/{thing}/shadow`), a publish
 * (`/topics/{topic}`) and DeleteConnection (`/connections/{clientId}`). It answers only requests
 * signed with the stand-in's credentials (./iotSigV4.ts), and refuses bodies over IoT Core's
 * limit on a message before buffering them.
 */

/** IoT Core's limit on a message; the data plane refuses larger bodies before buffering them. */
const MAX_DATA_PLANE_BODY = MAX_PAYLOAD_BYTES;

/** The request body, or undefined once it passes `limit` bytes (the rest is left unread). */
const readBody = (req: IncomingMessage, limit: number) =>
  new Promise<Buffer | undefined>((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.pause();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
  });

export interface DataPlaneParts {
  broker: Aedes;
  shadows: ShadowStore;
  /** The shadow service's update, which publishes what an update over MQTT publishes. */
  shadowUpdate: ShadowUpdate;
  credentials: DataPlaneCredentials;
  signer: SignatureV4;
}

/** The data plane's request handler. */
export function dataPlaneHandler(parts: DataPlaneParts): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { broker, shadows, shadowUpdate, credentials, signer } = parts;
  return async function dataPlane(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, payload: unknown, errorType?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
      res.end(JSON.stringify(payload));
    };
    const fail = (status: number, type: string, message: string) => reply(status, { message, __type: type }, type);
    const refuse = (refusal: Refusal) => {
      log('warn', 'IoT data plane request refused', { method: req.method, path: req.url?.split('?')[0], reason: refusal.type });
      fail(refusal.status, refusal.type, refusal.message);
    };
    const signed = readSignature(req, credentials);
    if ('status' in signed) return refuse(signed);
    let body: Buffer | undefined;
    try {
      body = await readBody(req, MAX_DATA_PLANE_BODY);
    } catch {
      return void res.destroy();
    }
    if (!body) {
      // The rest of the body is left unread, so the connection cannot be used again.
      res.setHeader('connection', 'close');
      return fail(413, 'RequestEntityTooLargeException', `Payload exceeds the ${MAX_DATA_PLANE_BODY / 1024} KB limit`);
    }
    const mismatch = await checkSignature(req, body, signed, signer);
    if (mismatch) return refuse(mismatch);
    const url = new URL(req.url ?? '/', 'http://local');
    const shadowPath = /^\/things\/([^/]+)\/shadow$/.exec(url.pathname);
    const topicPath = /^\/topics\/(.+)$/.exec(url.pathname);
    const connectionPath = /^\/connections\/([^/]+)$/.exec(url.pathname);
    try {
      if (shadowPath && !url.searchParams.get('name')) {
        const thing = decodeURIComponent(shadowPath[1]!);
        if (req.method === 'GET') {
          const shadow = shadows.get(thing);
          return shadow ? reply(200, getDocument(shadow)) : fail(404, 'ResourceNotFoundException', `No shadow exists with name: '${thing}'`);
        }
        if (req.method === 'POST') {
          const request = parsePayload(body);
          try {
            return reply(200, shadowUpdate(thing, request));
          } catch (error) {
            if (!(error instanceof ShadowError)) throw error;
            return error.code === 409 ? fail(409, 'ConflictException', error.message) : fail(400, 'InvalidRequestException', error.message);
          }
        }
        if (req.method === 'DELETE') {
          const shadow = shadows.delete(thing);
          return shadow
            ? reply(200, { version: shadow.version, timestamp: Math.floor(Date.now() / 1000) })
            : fail(404, 'ResourceNotFoundException', 'No shadow');
        }
      }
      if (connectionPath && req.method === 'DELETE') {
        // DeleteConnection: the client under this id is disconnected at once, as IoT Core does.
        const client = clientsOf(broker)[decodeURIComponent(connectionPath[1]!)];
        if (!client) return fail(404, 'ResourceNotFoundException', 'The client is not connected');
        client.close();
        return reply(200, {});
      }
      if (topicPath && req.method === 'POST') {
        const topic = decodeURIComponent(topicPath[1]!);
        await new Promise<void>((resolve) => broker.publish({ cmd: 'publish', topic, payload: body, qos: 1, retain: false, dup: false }, () => resolve()));
        return reply(200, {});
      }
      fail(404, 'ResourceNotFoundException', 'Unknown path');
    } catch (error) {
      log('error', 'IoT data plane failed', { error: String(error) });
      fail(500, 'InternalFailureException', 'Internal error');
    }
  };
}
