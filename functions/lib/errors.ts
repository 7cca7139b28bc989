import type { MessageId, MessageParams } from './i18n.ts';

export interface FieldIssue {
  /** Dotted path of the field, e.g. `email` or `periods.0.onDuty`. */
  path: string;
  message: MessageId | { text: string };
  params?: MessageParams;
}

/** An error the client is meant to see: HTTP status, envelope code and a catalogue message. */
export class AppError extends Error {
  constructor(
    readonly code: number,
    readonly messageId: MessageId,
    readonly params: MessageParams = {},
    readonly data: unknown = null,
    /** HTTP status when it differs from `code` (the 6xx session codes travel as 401). */
    readonly httpStatus: number = code,
  ) {
    super(messageId);
  }
}

export class NoPermissionError extends AppError {
  constructor() {
    super(401, 'status.401');
  }
}

export class LoginRequiredError extends AppError {
  constructor() {
    super(403, 'status.403');
  }
}

export class NotFoundError extends AppError {
  constructor(messageId: MessageId = 'error.itemNotFound', params: MessageParams = {}) {
    super(404, messageId, params);
  }
}

/** A stale `version`, or a value that must be unique and is taken (then `field` names it). */
export class ConflictError extends AppError {
  constructor(
    messageId: MessageId = 'status.409',
    readonly field?: string,
    params: MessageParams = {},
  ) {
    super(409, messageId, params);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor() {
    super(413, 'status.413');
  }
}

/**
 * A request body with a Content-Encoding (gzip, deflate, br…). No route takes a compressed body:
 * it is refused before anything reads it, so a small compressed body cannot unpack into a large
 * one (a gzip bomb) in a function's memory.
 */
export class UnsupportedEncodingError extends AppError {
  constructor() {
    super(415, 'error.contentEncoding');
  }
}

/** Invalid input: every issue names its field. */
export class ValidationError extends AppError {
  constructor(readonly issues: FieldIssue[]) {
    super(422, 'status.422');
  }
}

export function fieldError(path: string, message: MessageId, params?: MessageParams): ValidationError {
  return new ValidationError([{ path, message, ...(params ? { params } : {}) }]);
}

export class ThrottledError extends AppError {
  constructor(messageId: MessageId, params: MessageParams) {
    super(429, messageId, params);
  }
}

/** What a 429 says when no wait is known (a company's jobs all running): ask again in a minute. */
const DEFAULT_RETRY_SECONDS = 60;

/**
 * How long a refused caller waits before asking again, in seconds: the throttle's own wait
 * (`seconds`, or `minutes` whole), else a minute. Every 429 carries it as `Retry-After` and in
 * `data.retryAfterSeconds` (lib/http.ts errorResult).
 */
export function retryAfterSeconds(error: AppError): number {
  const seconds = Number(error.params.seconds ?? 0) || Number(error.params.minutes ?? 0) * 60;
  return seconds > 0 ? Math.ceil(seconds) : DEFAULT_RETRY_SECONDS;
}

export type SessionEnd = 661 | 662 | 666;

/** The session is over: forced offline (661), replaced by a newer login (662) or timed out (666). */
export class SessionEndedError extends AppError {
  constructor(code: SessionEnd) {
    super(code, code === 661 ? 'status.661' : code === 662 ? 'status.662' : 'status.666', {}, null, 401);
  }
}
