import { Aedes, type AedesPublishPacket, type Client, type Subscription } from 'aedes';
import { DUPLICATE_CLIENT_ID, presenceTopic } from '@passcloud/functions/contract/protocol';
import { policyPrefix, type AuthorizerEvent } from '@passcloud/functions/iot/authorizer';
import { isAllowed, type PolicyDocument } from '@passcloud/functions/iot/policy';
import { log } from '@passcloud/functions/lib/log';
import { MAX_CLIENT_ID_BYTES, PublishRate, clientIdBreach, publishBreach, readAuthorizerAnswer, subscribeBreach, type Admission } from './iotLimits.ts';

/**
 * The MQTT broker of the IoT Core stand-in (./iot.ts), aedes: it authenticates devices with the
 * custom authorizer, reads its answer as IoT Core does and enforces the policy it returns, holds
 * clients to IoT Core's limits (./iotLimits.ts), and publishes presence on IoT Core's lifecycle
 * topics. Also the broker's own publish and subscribe, for the services built on it.
 */

/** The custom authorizer the broker calls with each connection's credentials. */
export type Authorizer = (event: AuthorizerEvent) => Promise<unknown>;

/** aedes keeps its live clients by id but does not declare the field. */
export const clientsOf = (broker: Aedes) => (broker as unknown as { clients: Record<string, Client> }).clients;

/** Publishes a JSON message at QoS 1 from the broker itself; resolves once it is routed. */
export type Publish = (topic: string, payload: unknown) => Promise<void>;
/** Subscribes the broker itself to a topic filter; resolves once the subscription holds. */
export type Subscribe = (filter: string, deliver: (packet: AedesPublishPacket) => void) => Promise<void>;

export const publisherOf =
  (broker: Aedes): Publish =>
  (topic, payload) =>
    new Promise<void>((resolve) =>
      broker.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(payload)), qos: 1, retain: false, dup: false }, () => resolve()),
    );

export const subscriberOf =
  (broker: Aedes): Subscribe =>
  (filter, deliver) =>
    new Promise<void>((resolve) =>
      broker.subscribe(
        filter,
        (packet, cb) => {
          deliver(packet);
          cb();
        },
        () => resolve(),
      ),
    );

/** A broker that admits clients through `authorizer`, under IoT Core's limits, and reports their presence. */
export async function startBroker(authorizer: Authorizer): Promise<Aedes> {
  // MQTT 3.1 clients are held to IoT Core's client id size too (aedes checks only those against this).
  const broker = await Aedes.createBroker({ maxClientsIdLength: MAX_CLIENT_ID_BYTES });
  const policies = new Map<Client, PolicyDocument[]>();
  const prefix = policyPrefix();
  const publish = publisherOf(broker);

  // Authentication and authorization: the custom authorizer's answer, read from its
  // `policyDocuments` as IoT Core reads it, is the client's policy. An answer that breaks one of
  // IoT Core's rules refuses the connection like a "no". As IoT Core does, the client is asked
  // again after `refreshAfterInSeconds` (and let go when refused) and let go after
  // `disconnectAfterInSeconds`.
  const timers = new Map<Client, NodeJS.Timeout[]>();
  const clearTimers = (client: Client) => {
    for (const timer of timers.get(client) ?? []) clearTimeout(timer);
    timers.delete(client);
  };
  const ask = async (client: Client, username: string | undefined, password: Buffer | undefined): Promise<Admission | undefined> => {
    const answer = await authorizer({
      protocols: ['mqtt'],
      protocolData: { mqtt: { username: username ?? '', password: password?.toString('base64') ?? '', clientId: client.id } },
    });
    const read = readAuthorizerAnswer(answer);
    if ('rule' in read) {
      log('warn', 'MQTT connection refused: the authorizer answer breaks an IoT Core rule', { clientId: client.id, rule: read.rule, detail: read.detail });
      return undefined;
    }
    return read.authenticated ? read : undefined;
  };
  const holdFor = (client: Client, username: string | undefined, password: Buffer | undefined, admission: Admission) => {
    clearTimers(client);
    const refresh = setTimeout(() => {
      ask(client, username, password).then(
        (next) => {
          if (!clientsOf(broker)[client.id] || clientsOf(broker)[client.id] !== client) return;
          if (!next) return void client.close();
          policies.set(client, next.policies);
          holdFor(client, username, password, next);
        },
        () => undefined,
      );
    }, admission.refreshAfterInSeconds * 1000);
    const end = setTimeout(() => client.close(), admission.disconnectAfterInSeconds * 1000);
    refresh.unref();
    end.unref();
    timers.set(client, [refresh, end]);
  };
  broker.authenticate = (client, username, password, done) => {
    const tooLong = clientIdBreach(client.id);
    if (tooLong) {
      log('warn', 'MQTT connection refused: the client id breaks an IoT Core rule', { rule: tooLong.rule, detail: tooLong.detail });
      return done(Object.assign(new Error('Identifier rejected'), { returnCode: 2 }) as never, false);
    }
    ask(client, username, password).then(
      (admission) => {
        if (!admission) {
          const error = Object.assign(new Error('Not authorized'), { returnCode: 5 });
          return done(error as never, false);
        }
        policies.set(client, admission.policies);
        holdFor(client, username, password, admission);
        done(null, true);
      },
      (error: unknown) => {
        log('error', 'authorizer failed', { error: String(error) });
        done(Object.assign(new Error('Server unavailable'), { returnCode: 3 }) as never, false);
      },
    );
  };
  const allowed = (client: Client | null, action: string, resource: string) =>
    !client || isAllowed(policies.get(client) ?? [], action, `${prefix}:${resource}`);
  // IoT Core's limits on what a client sends (./iotLimits.ts). A message over 128 KB, a topic too
  // long or too deep, or a publish on a reserved topic not meant for clients ends the connection:
  // MQTT 3.1.1 has no other way to refuse a PUBLISH, and IoT Core does the same. Publishes past
  // 100 a second are discarded, the connection kept, and no PUBACK is sent for them.
  // https://docs.aws.amazon.com/general/latest/gr/iot-core.html#message-broker-limits
  const rates = new WeakMap<Client, PublishRate>();
  const quietUntil = new WeakMap<Client, number>();
  const discarded = new WeakSet<object>();
  // aedes routes a client's PUBLISH through `publish(packet, client, done)`; its types name only `(packet, done)`.
  const route = broker.publish.bind(broker) as (packet: AedesPublishPacket, ...rest: unknown[]) => void;
  broker.publish = ((packet: AedesPublishPacket, ...rest: unknown[]) => {
    if (!discarded.has(packet)) return route(packet, ...rest);
    const done = rest.at(-1);
    if (typeof done === 'function') (done as () => void)();
  }) as typeof broker.publish;
  broker.authorizePublish = (client, packet, done) => {
    if (!client) return done(null);
    const broken = publishBreach(packet.topic, packet.payload);
    if (broken) {
      log('warn', 'MQTT publish refused: it breaks an IoT Core rule, the connection is closed', {
        clientId: client.id,
        topic: packet.topic.slice(0, 300),
        rule: broken.rule,
        detail: broken.detail,
      });
      return done(new Error(`${broken.rule}: ${broken.detail}`));
    }
    const rate = rates.get(client) ?? new PublishRate();
    rates.set(client, rate);
    if (!rate.take()) {
      const now = Date.now();
      if ((quietUntil.get(client) ?? 0) <= now) {
        quietUntil.set(client, now + 1000);
        log('warn', "MQTT publishes discarded: over IoT Core's publishes per second per connection", { clientId: client.id, topic: packet.topic });
      }
      // Handled as QoS 0 so no PUBACK goes back, then discarded instead of routed.
      packet.qos = 0;
      discarded.add(packet);
      return done(null);
    }
    if (allowed(client, 'iot:Publish', `topic/${packet.topic}`)) return done(null);
    log('warn', 'MQTT publish refused', { clientId: client.id, topic: packet.topic });
    done(new Error('Publish not authorized'));
  };
  broker.authorizeSubscribe = (client, sub: Subscription, done) => {
    const broken = client ? subscribeBreach(sub.topic) : undefined;
    if (broken) {
      log('warn', 'MQTT subscribe refused: it breaks an IoT Core rule', {
        clientId: client?.id,
        topic: sub.topic.slice(0, 300),
        rule: broken.rule,
        detail: broken.detail,
      });
      return done(null, null);
    }
    if (allowed(client, 'iot:Subscribe', `topicfilter/${sub.topic}`)) return done(null, sub);
    log('warn', 'MQTT subscribe refused', { clientId: client?.id, topic: sub.topic });
    done(null, null);
  };
  broker.authorizeForward = (client, packet) => (allowed(client, 'iot:Receive', `topic/${packet.topic}`) ? packet : null);

  // Presence, as IoT Core publishes it on its lifecycle topics. A connection under a client id
  // already connected closes the older one first [MQTT-3.1.4-2]: that one is marked as replaced.
  const replacedClients = new WeakSet<Client>();
  const withRegistry = broker as unknown as { registerClient(client: Client): void };
  const register = withRegistry.registerClient.bind(broker);
  withRegistry.registerClient = (client: Client) => {
    const older = clientsOf(broker)[client.id];
    if (older && older !== client) replacedClients.add(older);
    register(client);
  };
  broker.on('client', (client) => {
    void publish(presenceTopic('connected', client.id), { clientId: client.id, timestamp: Date.now(), eventType: 'connected', versionNumber: 0 });
  });
  broker.on('clientDisconnect', (client) => {
    policies.delete(client);
    clearTimers(client);
    // As IoT Core does, a client replaced by a newer connection with the same id is reported
    // disconnected, with the reason that says so (the cloud does not take it as a departure).
    const replaced = replacedClients.has(client);
    void publish(presenceTopic('disconnected', client.id), {
      clientId: client.id,
      timestamp: Date.now(),
      eventType: 'disconnected',
      clientInitiatedDisconnect: false,
      disconnectReason: replaced ? DUPLICATE_CLIENT_ID : 'CONNECTION_LOST',
      versionNumber: 0,
    });
  });
  return broker;
}
