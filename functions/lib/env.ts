/**
 * Every environment variable the functions read, each declared once with what it carries. Code
 * reads them only through `env()` (lint forbids `process.env` elsewhere in functions/).
 *
 * - `stack`: the CDK stack sets it on each function whose entry declares it (`environment`
 *   exported beside `handler`), and on no other.
 * - `operator`: the same, when the operator configured it (a stack property); unset otherwise.
 * - `platform`: set by Lambda itself.
 * - `local`: never set on AWS. The local host's stand-in endpoints and the switches its tests and
 *   benchmarks turn; a function without them behaves as deployed.
 */
export const VARIABLES = {
  MAIN_TABLE: { kind: 'stack', about: 'Physical name of the main DynamoDB table' },
  EVENTS_TABLE: { kind: 'stack', about: 'Physical name of the events DynamoDB table' },
  AUDIT_TABLE: { kind: 'stack', about: 'Physical name of the append-only audit log table' },
  PHOTOS_BUCKET: { kind: 'stack', about: 'Bucket of people’s photos' },
  CAPTURES_BUCKET: { kind: 'stack', about: 'Bucket of pass record captures' },
  RECORDINGS_BUCKET: { kind: 'stack', about: 'Bucket of call recordings' },
  PACKAGES_BUCKET: { kind: 'stack', about: 'Bucket of client packages' },
  IMPORTS_BUCKET: { kind: 'stack', about: 'Bucket of staged uploads and export workbooks' },
  MAIL_FROM: { kind: 'stack', about: 'Sender of every mail' },
  SETTINGS_KMS_KEY_ID: { kind: 'stack', about: 'KMS key that seals and opens the companies’ SMTP passwords' },
  ORIGIN_VERIFY_SECRET: { kind: 'stack', about: 'Header value CloudFront adds; the API refuses requests without it' },
  CONSOLE_URL: { kind: 'stack', about: 'The console’s address, for links in mails' },
  API_BASE_URL: { kind: 'stack', about: 'The API as devices and integrators reach it, shown in system settings' },
  BUILD_ID: { kind: 'stack', about: 'The deployed build, shown in system settings' },
  IOT_DATA_ENDPOINT: { kind: 'stack', about: 'The IoT data plane (publishing to terminals)' },
  IOT_MQTT_URL: { kind: 'stack', about: 'The broker’s MQTT over TLS address handed to terminals' },
  IOT_WS_URL: { kind: 'stack', about: 'The broker’s MQTT over WebSocket address' },
  IOT_AUTHORIZER_NAME: { kind: 'stack', about: 'The IoT custom authorizer terminals log in through' },
  IOT_THING_TYPE: { kind: 'stack', about: 'The thing type of bound terminals' },
  IOT_POLICY_PREFIX: { kind: 'stack', about: 'ARN prefix of the IoT resources the authorizer’s policies name' },
  IMPORT_WORKER_FUNCTION: { kind: 'stack', about: 'The background import worker' },
  EXPORT_WORKER_FUNCTION: { kind: 'stack', about: 'The pass record export worker' },
  GRANT_WORKER_FUNCTION: { kind: 'stack', about: 'The large grant worker, which cuts a grant into pieces' },
  PACKAGE_NOTICE_FUNCTION: { kind: 'stack', about: 'The worker that tells online terminals of a new client package' },
  GRANT_PIECE_FUNCTION: { kind: 'stack', about: 'The worker that writes one device\'s share of a large grant' },
  RECOMPUTE_WORKER_FUNCTION: { kind: 'stack', about: 'The attendance recomputation worker' },
  MAIL_WORKER_FUNCTION: { kind: 'stack', about: 'The mail service, started when alerts are queued' },
  WEBHOOK_QUEUE_URL: { kind: 'stack', about: 'The SQS queue between what makes webhook events and the webhook sender' },
  AUDIT_QUEUE_URL: { kind: 'stack', about: 'The SQS queue of audit entries, read by their only writer' },
  WEBHOOK_DEAD_LETTER_ARN: { kind: 'stack', about: 'The webhook queue’s dead-letter queue, whose messages the sender marks dead' },
  LICENCE_PUBLIC_KEY: { kind: 'operator', about: 'The operator’s licence public key; without it activations answer 503' },

  AWS_REGION: { kind: 'platform', about: 'The region; Lambda sets it' },

  LOG_LEVEL: { kind: 'local', about: 'debug, info (default), warn or error' },
  AWS_ACCOUNT_ID: { kind: 'local', about: 'Account of the local IoT policies, when IOT_POLICY_PREFIX is unset' },
  DYNAMODB_ENDPOINT: { kind: 'local', about: 'Local DynamoDB' },
  S3_ENDPOINT: { kind: 'local', about: 'Local S3' },
  IOT_DATA_ACCESS_KEY_ID: { kind: 'local', about: 'Credentials of the local IoT data plane' },
  IOT_DATA_SECRET_ACCESS_KEY: { kind: 'local', about: 'Credentials of the local IoT data plane' },
  SMTP_HOST: { kind: 'local', about: 'Local mail sink that takes the mails SES would send' },
  SMTP_PORT: { kind: 'local', about: 'Port of the local mail sink' },
  SMTP_ALLOW_PRIVATE: { kind: 'local', about: '1 lets companies name SMTP servers and webhook receivers on private addresses (the local test servers)' },
  WEBHOOK_RETRY_UNIT_MS: { kind: 'local', about: 'Unit of the webhook retry waits and window (30 seconds unless set)' },
  SETTINGS_KEY_FILE: { kind: 'local', about: 'Key file that stands in for the KMS key' },
  MAIL_RETRY_BASE_MS: { kind: 'local', about: 'First retry delay of a failed mail (one minute unless set)' },
  GRANT_INLINE_PAIRS: { kind: 'local', about: 'Largest grant written within the request' },
  GRANT_MAX_PAIRS: { kind: 'local', about: 'Largest grant accepted' },
  PEOPLE_COUNT_LIMIT: { kind: 'local', about: 'Most people a keyword list counts before it answers "at least" (1,000 unless set)' },
  JOB_LIMIT_GRANT: { kind: 'local', about: 'Grant jobs a company may run at once' },
  JOB_LIMIT_EXPORT: { kind: 'local', about: 'Export jobs a company may run at once' },
  JOB_LIMIT_RECOMPUTE: { kind: 'local', about: 'Attendance recomputations a company may run at once' },
  ANSWER_CHECK: { kind: 'local', about: '1 holds every success’s data to its route’s declared answer schema (the local host and the tests)' },
  PASSWORD_HASH_COST: { kind: 'local', about: 'log2 of scrypt’s N for new password hashes; the test stack lowers it (17, the production cost, unless set lower)' },
  SESSION_IDLE_MINUTES: { kind: 'local', about: 'Idle time that ends a session' },
  SESSION_MAX_MINUTES: { kind: 'local', about: 'Longest session' },
  THROTTLE_ACCOUNT_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_ADDRESS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_SECONDFACTOR_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_KEYS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_CODEMAILS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_CODESPERDAY_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_TESTMAILS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_INVITATIONS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_ALERTMAILS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_SURVEYLINKS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_APIKEY_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_WEBHOOKTESTS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
  THROTTLE_WEBHOOKREPLAYS_LIMIT: { kind: 'local', about: 'Throttle override (domain/throttle.ts)' },
} as const satisfies Record<string, { kind: 'stack' | 'operator' | 'platform' | 'local'; about: string }>;

export type EnvName = keyof typeof VARIABLES;
/** Variables a deployed function gets from its construct. */
export type DeployedName = { [K in EnvName]: (typeof VARIABLES)[K]['kind'] extends 'stack' | 'operator' ? K : never }[EnvName];

/** The value of a declared variable, or undefined when unset. */
export function env(name: EnvName): string | undefined {
  return process.env[name];
}

/** What an entry exports as `environment`: the deployed variables it (or anything it imports) reads. */
export function declareEnvironment<const T extends readonly DeployedName[]>(names: T): T {
  return names;
}
