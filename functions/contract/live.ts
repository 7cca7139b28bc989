import * as z from 'zod';
import type { AuthCode } from './menu.ts';
import type { PassRecordItem } from './passRecords.ts';
import type { QuestionnaireResultItem } from './questionnaires.ts';

/**
 * The console's live channel: new pass records reach open consoles the moment they are stored,
 * over MQTT on WebSocket through the same broker and custom authorizer as the terminals (IoT Core
 * on AWS, the local stand-in here).
 *
 * - `GET /v1/systems/live` answers where and how to connect ({@link LiveConnection}).
 * - The browser connects with the MQTT username `console` (on AWS followed by
 *   `?x-amz-customauthorizer-name=<authorizer>`), the session token as the password, and a client
 *   id that starts with `clientPrefix`. The WebSocket address itself carries no query string: IoT
 *   Core would then authenticate the WebSocket upgrade through its query-string path, calling the
 *   authorizer without the MQTT username and password, which it refuses.
 * - The authorizer admits it while the session lives, and only to its own company's topics that
 *   the account's rights cover; logging out (or a login elsewhere) ends the connection at once.
 * - Each message on a topic is a {@link LiveMessage}: the records stored from one terminal message.
 */

export const LIVE_USERNAME = 'console';

export type LiveTopic = 'passes' | 'blacklist' | 'questionnaires';

/**
 * Every pass goes to `passes`; a blacklist pass to `blacklist` as well, for accounts that see only
 * those. An abnormal questionnaire result goes to `questionnaires` ({@link LiveQuestionnaireMessage}).
 */
export const liveTopics = (tenantId: string): Record<LiveTopic, string> => ({
  passes: `console/${tenantId}/passes`,
  blacklist: `console/${tenantId}/blacklist`,
  questionnaires: `console/${tenantId}/questionnaires`,
});

/** The rights that open each topic: any one of them. */
export const LIVE_TOPIC_CODES: Record<LiveTopic, readonly AuthCode[]> = {
  passes: ['pass:dashboard', 'pass:record'],
  blacklist: ['pass:blacklist'],
  questionnaires: ['pass:questionnaire'],
};

/** Connections one session may hold at once (one per open console tab); past it a tab falls back to polling. */
export const LIVE_CLIENTS_PER_SESSION = 16;
/** What a tab appends to `clientPrefix`: an id of its own, kept across its reconnections. */
export const LIVE_TAB_ID = /^[A-Za-z0-9]{1,16}$/;

/** The client ids of one session start with this; the session part is not the token and cannot be turned into it. */
export const liveClientPrefix = (tenantId: string, tokenHash: string): string => `console-${tenantId}-${tokenHash.slice(0, 16)}-`;

/** The company and the session part of a live client id, or undefined for any other client (a terminal). */
export function parseLiveClient(clientId: string): { tenantId: string; sessionRef: string } | undefined {
  const match = /^console-([a-z0-9]{1,40})-([0-9a-f]{16})-[A-Za-z0-9]{1,16}$/.exec(clientId);
  return match ? { tenantId: match[1]!, sessionRef: match[2]! } : undefined;
}

/** `GET /v1/systems/live`. */
export const liveConnectionAnswer = z.object({
  url: z.string().meta({ description: 'The broker’s MQTT over WebSocket address, without a query string' }),
  username: z.string().meta({ description: 'The MQTT username; on AWS it names the custom authorizer too' }),
  clientPrefix: z.string().meta({ description: 'A client id is this and the tab’s own id (1 to 16 letters and digits)' }),
  topics: z
    .object({ passes: z.string().optional(), blacklist: z.string().optional(), questionnaires: z.string().optional() })
    .meta({ description: 'The topics this account may subscribe to' }),
});
export type LiveConnection = z.output<typeof liveConnectionAnswer>;

/**
 * The answer of `GET /v1/systems/live`. On AWS the custom authorizer is named in the MQTT username
 * only, as AWS's own clients do for custom authentication over MQTT on WebSocket; the credentials
 * then travel in the MQTT CONNECT, where the authorizer reads them.
 * https://docs.aws.amazon.com/iot/latest/developerguide/custom-auth.html
 */
export function liveConnection(options: {
  wsUrl: string;
  /** The IoT custom authorizer's name; unset on the local host. */
  authorizerName?: string;
  tenantId: string;
  tokenHash: string;
  topics: Partial<Record<LiveTopic, string>>;
}): LiveConnection {
  const named = options.authorizerName ? `?x-amz-customauthorizer-name=${encodeURIComponent(options.authorizerName)}` : '';
  return {
    url: options.wsUrl,
    username: `${LIVE_USERNAME}${named}`,
    clientPrefix: liveClientPrefix(options.tenantId, options.tokenHash),
    topics: options.topics,
  };
}

/** At most this many records in one message, so a message stays far below the broker's 128 KB. */
export const LIVE_ITEMS_PER_MESSAGE = 20;

export interface LiveMessage {
  /** Newest last, as the terminal sent them. A capture link may answer 404 for a moment: the terminal uploads the picture after the record. */
  items: PassRecordItem[];
}

/** What the `questionnaires` topic carries: abnormal results just stored, for the console to raise an alert. */
export interface LiveQuestionnaireMessage {
  items: QuestionnaireResultItem[];
}
