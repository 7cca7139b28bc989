import * as z from 'zod';
import { bindBody, deviceInfo, deviceSettings } from './devices.ts';
import { DEVICE_LOG_CODES } from './deviceLogs.ts';
import {
  DEVICE_REASONS,
  bindResult,
  callUp,
  callsAckMessage,
  callsMessage,
  commandMessage,
  commandResultMessage,
  faceChangesPage,
  faceChangesQuery,
  faceNotifyMessage,
  faceResultsBody,
  heartbeatMessage,
  logMessage,
  openDoorRequest,
  passRecordUp,
  deviceQuestionnaires,
  deviceSchedules,
  deviceSchedulesQuery,
  passDecision,
  REFUSAL_REASONS,
  questionnaireAnswerResult,
  questionnaireAnswerUp,
  questionnaireLink,
  questionnaireLinkBody,
  recordsAckMessage,
  recordsMessage,
} from './protocol.ts';

/**
 * The device protocol as JSON Schema (draft 2020-12), generated from the same zod schemas the
 * cloud checks every message with, and published beside the document as
 * docs/device-protocol.schema.json (`npm run protocol-schema` writes it; a test holds it equal).
 */
const MESSAGES: Record<string, { schema: z.ZodType; about: string }> = {
  bindBody: { schema: bindBody, about: 'POST /v1/devices/bind: the request body' },
  bindResult: { schema: bindResult, about: 'POST /v1/devices/bind: `data` of a 201 or 202 answer' },
  deviceInfo: { schema: deviceInfo, about: 'The facts a terminal or an intercom reports of itself (bind, heartbeat)' },
  heartbeatMessage: { schema: heartbeatMessage, about: 'pc/<thing>/heartbeat' },
  logMessage: { schema: logMessage, about: 'pc/<thing>/logs' },
  commandMessage: { schema: commandMessage, about: 'pc/<thing>/commands (cloud to terminal)' },
  commandResultMessage: { schema: commandResultMessage, about: 'pc/<thing>/commands/result' },
  recordsMessage: { schema: recordsMessage, about: 'pc/<thing>/records: each of `records` is a passRecordUp' },
  passRecordUp: { schema: passRecordUp, about: 'One pass record of a records message' },
  recordsAckMessage: { schema: recordsAckMessage, about: 'pc/<thing>/records/ack (cloud to terminal)' },
  callsMessage: { schema: callsMessage, about: 'pc/<thing>/calls (intercoms): each of `calls` is a callUp' },
  callUp: { schema: callUp, about: 'One call of a calls message, as the reporting intercom saw it (live or ended)' },
  callsAckMessage: { schema: callsAckMessage, about: 'pc/<thing>/calls/ack (cloud to intercom)' },
  openDoorRequest: { schema: openDoorRequest, about: 'pc/<thing>/calls/open (indoor monitor): open the door of the station it is talking to' },
  faceNotifyMessage: { schema: faceNotifyMessage, about: 'pc/<thing>/faces/notify (cloud to terminal)' },
  faceChangesQuery: { schema: faceChangesQuery, about: 'GET /v1/deviceSync/faces: the query' },
  faceChangesPage: { schema: faceChangesPage, about: 'GET /v1/deviceSync/faces: `data` of the answer' },
  faceResultsBody: { schema: faceResultsBody, about: 'POST /v1/deviceSync/results: the request body' },
  deviceSchedulesQuery: { schema: deviceSchedulesQuery, about: 'GET /v1/deviceSync/schedules: the query' },
  deviceSchedules: { schema: deviceSchedules, about: 'GET /v1/deviceSync/schedules: `data` of the answer' },
  passDecision: { schema: passDecision, about: 'How the terminal decided one pass: `decision` of a passRecordUp' },
  refusalReason: { schema: z.enum(REFUSAL_REASONS).exclude(['unknown']), about: '`refusedFor` of a refused passRecordUp' },
  deviceQuestionnaires: { schema: deviceQuestionnaires, about: 'GET /v1/deviceSync/questionnaires: `data` of the answer' },
  questionnaireAnswerUp: { schema: questionnaireAnswerUp, about: 'POST /v1/deviceSync/questionnaireAnswers: the request body' },
  questionnaireAnswerResult: { schema: questionnaireAnswerResult, about: 'POST /v1/deviceSync/questionnaireAnswers: `data` of a 201 answer' },
  questionnaireLinkBody: { schema: questionnaireLinkBody, about: 'POST /v1/deviceSync/questionnaireLinks: the request body' },
  questionnaireLink: { schema: questionnaireLink, about: 'POST /v1/deviceSync/questionnaireLinks: `data` of a 201 answer' },
  deviceSettings: { schema: deviceSettings, about: 'The settings of a terminal, by their API names (the shadow carries them by device keys)' },
  deviceReason: { schema: z.enum(DEVICE_REASONS), about: '`data.reason` of every refused answer of a device route' },
  deviceLogCode: {
    schema: z.enum(DEVICE_LOG_CODES),
    about: 'The known `code`s of a device log entry (a newer code is kept too, and shown with its `message`)',
  },
};

export function protocolJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(MESSAGES).map(([name, { schema, about }]) => {
      const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
      return [name, { description: about, ...json }];
    }),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Pass Cloud device protocol',
    description: 'Every message and HTTPS body of docs/device-protocol.md, by name. Generated from functions/contract; do not edit.',
    $defs: defs,
  };
}

/** The published file's text. */
export const protocolJsonSchemaText = (): string => `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`;
