import { lookup } from 'node:dns/promises';
import { addressKind, type AddressKind } from '#domain/netRanges';
import { env } from './env.ts';

/**
 * Resolves a host a company named (its SMTP server) to the one address the service will connect
 * to, after checking every address the name has. The caller connects to that address and never
 * looks the name up again, so a name cannot answer a public address to the check and a private
 * one to the connection.
 */

export interface PinnedHost {
  /** The name as given. */
  host: string;
  /** The checked address to connect to. */
  address: string;
  kind: AddressKind;
}

/** Why a host cannot be used: no address, the lookup did not answer, or an address outside the public internet. */
export class HostRefused extends Error {
  constructor(
    readonly reason: 'notFound' | 'lookupFailed' | 'notPublic',
    readonly host: string,
    /** The refused address, with `notPublic`. */
    readonly address?: string,
    readonly kind?: AddressKind,
  ) {
    super(reason === 'notPublic' ? `${host} resolves to ${address} (${kind})` : `${host}: ${reason}`);
    this.name = 'HostRefused';
  }
}

/** Every address of a name, as DNS (or the hosts file) answers them. */
export type Resolver = (host: string) => Promise<{ address: string }[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

const LOOKUP_TIMEOUT_MS = 5_000;
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'EAI_NONAME', 'EAI_NODATA']);

export interface PinOptions {
  /** Addresses outside the public internet are allowed too (a developer's local server); multicast and unspecified never are. */
  allowPrivate?: boolean;
  resolver?: Resolver;
}

const usable = (kind: AddressKind, allowPrivate: boolean): boolean => kind === 'public' || (allowPrivate && kind !== 'multicast' && kind !== 'unspecified');

/**
 * Looks `host` up once and answers the first of its addresses; refuses the host when any of them
 * is not usable (one bad address is enough to refuse: which one a connection would take is not
 * for the name's owner to decide).
 */
export async function pinHost(host: string, options: PinOptions = {}): Promise<PinnedHost> {
  const resolver = options.resolver ?? systemResolver;
  let timer: NodeJS.Timeout | undefined;
  let answers: { address: string }[];
  try {
    answers = await Promise.race([
      resolver(host),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })), LOOKUP_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    throw new HostRefused(NOT_FOUND.has(String((error as { code?: unknown }).code)) ? 'notFound' : 'lookupFailed', host);
  } finally {
    clearTimeout(timer);
  }
  if (answers.length === 0) throw new HostRefused('notFound', host);
  const checked = answers.map(({ address }) => ({ address, kind: addressKind(address) }));
  const refused = checked.find((answer) => !answer.kind || !usable(answer.kind, !!options.allowPrivate));
  if (refused) throw new HostRefused('notPublic', host, refused.address, refused.kind ?? 'reserved');
  const first = checked[0]!;
  return { host, address: first.address, kind: first.kind! };
}

/**
 * `SMTP_ALLOW_PRIVATE=1`, for a developer's machine only: a company's SMTP server or webhook
 * receiver may be on a private or loopback address, and its self-signed certificate is accepted
 * there. Read at every use, off unless set; never set on AWS.
 */
export const privateHostsAllowed = (): boolean => env('SMTP_ALLOW_PRIVATE') === '1';
