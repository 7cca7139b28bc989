import * as z from 'zod';

/**
 * Times a terminal sends are milliseconds since 1970. A value below this (2001-09-09) is taken for
 * seconds, the common mistake, and the message is refused with that reason.
 */
export const EPOCH_MS_MIN = 1_000_000_000_000;
export const epochMs = z.number().int().min(EPOCH_MS_MIN, { message: 'must be milliseconds since 1970 (this looks like seconds)' });

/**
 * What a device writes in its log: a code with parameters, so the console can show each entry in
 * the reader's language (and setting names as it names them). `message` carries a vendor's own
 * text for the `other` code, shown as it is.
 */
export const DEVICE_LOG_CODES = [
  'connected',
  'awaitingApproval',
  'rebinding',
  'settingsApplied',
  'settingsIgnored',
  'doorOpened',
  'doorClosed',
  'photoCaptured',
  'rebooting',
  'commandFailed',
  'appUpdated',
  'appUpdateFailed',
  'unreadableMessage',
  'facesSynced',
  'faceSyncFailed',
  'faceCursorReset',
  'messageRefused',
  'callStarted',
  'callEnded',
  'callMissed',
  'recordingUploaded',
  'recordingFailed',
  'recordRefused',
  'captureFailed',
  'callRefused',
  'questionnairesShown',
  'questionnairesFailed',
  'answerRefused',
  'other',
] as const;
export type DeviceLogCode = (typeof DEVICE_LOG_CODES)[number];
export const LOG_LEVELS = ['info', 'warn', 'error'] as const;

/**
 * A log entry's code: one of DEVICE_LOG_CODES, or a code a newer firmware knows and this cloud does
 * not yet, kept so that the console shows it with the entry's `message` as the terminal's own words.
 */
export const logCode = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, { message: 'must be a log code: a letter, then up to 63 letters, digits, _, . or -' })
  .meta({ description: 'One of the log codes (docs/device-protocol.md); a newer code is kept and shown with `message`' });

/**
 * Parameters by code: `settings` (settingsApplied, settingsIgnored) lists setting names of
 * SETTING_NAMES; `command` (commandFailed) a command type and `error` the device's reason;
 * `topic` (unreadableMessage) the MQTT topic; `version` (appUpdated, appUpdateFailed) the client
 * version installed or refused, with `error` the reason it was refused; `count` and `failed`
 * (facesSynced) how many face changes were applied and how many of them failed; `error`
 * (faceSyncFailed) why the terminal could not pull its changes. faceCursorReset: the cloud answered
 * that the terminal's cursor belongs to an earlier binding; the library was emptied and is pulled again.
 * Intercoms: `number` (callStarted, callEnded, callMissed) the other end's intercom number, `count`
 * (callEnded) the talk time in seconds; `error` (recordingFailed) why a recording did not upload.
 * What the cloud refused or a terminal could not send: `id` (recordRefused, captureFailed: the
 * record's `recordId`; callRefused: the `callId`; answerRefused: the `answerId`) and `error` why.
 * Questionnaires: `count` and `titles` (questionnairesShown) how many the terminal shows now and
 * their titles, none when 0; `error` (questionnairesFailed) why they could not be read.
 */
export const deviceLogParams = z
  .object({
    settings: z.array(z.string().max(64)).max(64).optional(),
    command: z.string().max(32).optional(),
    error: z.string().max(500).optional(),
    topic: z.string().max(256).optional(),
    version: z.string().max(64).optional(),
    count: z.number().int().min(0).optional(),
    failed: z.number().int().min(0).optional(),
    number: z.string().max(32).optional(),
    id: z.string().max(64).optional(),
    titles: z.array(z.string().max(200)).max(20).optional(),
  })
  .strict();
export const deviceLogEntry = z
  .object({
    time: epochMs,
    level: z.enum(LOG_LEVELS),
    code: logCode,
    params: deviceLogParams.optional(),
    message: z.string().max(1000).optional(),
  })
  .strict();
export type DeviceLogEntry = z.output<typeof deviceLogEntry>;
