import type { z } from 'zod';
import { SETTING_NAMES, type SettingName } from '#contract/devices';
import type { Locale } from '#contract/locales';
import type { ConflictError, FieldIssue } from './errors.ts';
import { catalog, isMessageId, translate, type MessageId, type MessageParams } from './i18n.ts';
import { FIELD_LABELS } from './fieldLabels.ts';

/**
 * Why input was refused, as sentences a user reads in their own language. A zod issue becomes a
 * message id with its parameters; the field is named only when the sentence is made, from its
 * path, as the console's forms and the import template name it, so one issue reads right in any
 * language. A message that names its field says `{field}`; one that does not (a schema's own
 * message such as 'devices.clockFormat', meant to sit next to its field) gets the field's name
 * in front wherever it is read on its own: the 422 summary and the import report.
 */

/** A setting is named as the console's device screens name it; a setting without a name is a type error here. */
const settingLabel = (name: SettingName): MessageId => `setting.${name}`;
const SETTINGS: ReadonlySet<string> = new Set(SETTING_NAMES);

/** Values named as the console shows them; a setting's choices are 'option.<setting>.<value>'. */
const VALUE_LABELS: Record<string, Record<string, MessageId>> = {
  gender: { male: 'value.male', female: 'value.female' },
  state: { active: 'value.active', resigned: 'value.resigned' },
};

/** Where an issue about the request as a whole points (a body that is not JSON, fields nobody asked for). */
const WHOLE = 'body';

/** The names in a path, without list positions: `periods.0.onDuty` has `periods` and `onDuty`. */
const namesOf = (path: string): string[] => path.split('.').filter((part) => part && !/^\d+$/.test(part));

/** The message id that names the field at `path`, undefined for a field without a name of its own. */
export function fieldLabelId(path: string): MessageId | undefined {
  const names = namesOf(path);
  const name = names.at(-1);
  if (!name) return undefined;
  if (names.at(-2) === 'settings' && SETTINGS.has(name)) return settingLabel(name as SettingName);
  // Own keys only: a field named `constructor` or `toString` has no label, not Object's method.
  return Object.hasOwn(FIELD_LABELS, name) ? FIELD_LABELS[name] : undefined;
}

/** `cameraResolution` reads "Camera resolution". */
function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The field's name as the console shows it; a field it does not show is named after its path. */
export function fieldLabel(path: string, locale: Locale): string {
  const id = fieldLabelId(path);
  return id ? translate(locale, id) : humanize(namesOf(path).at(-1) ?? path);
}

function valueLabel(path: string, value: unknown, locale: Locale): string {
  const names = namesOf(path);
  const name = names.at(-1) ?? '';
  const text = String(value);
  const option = `option.${name}.${text}`;
  if (names.at(-2) === 'settings' && isMessageId(option)) return translate(locale, option);
  const values = Object.hasOwn(VALUE_LABELS, name) ? VALUE_LABELS[name] : undefined;
  const id = values && Object.hasOwn(values, text) ? values[text] : undefined;
  return id ? translate(locale, id) : text;
}

/** "a, b or c" in the reader's language. */
const either = (values: readonly unknown[], path: string, locale: Locale): string =>
  new Intl.ListFormat(locale.replace('_', '-'), { type: 'disjunction' }).format(values.map((v) => valueLabel(path, v, locale)));

const TYPE_MESSAGES: Partial<Record<string, MessageId>> = {
  string: 'issue.notText',
  number: 'issue.notNumber',
  int: 'issue.notWholeNumber',
  boolean: 'issue.notBoolean',
  array: 'issue.notList',
};

type Described = { message: MessageId; params?: MessageParams };

function tooSmall(issue: z.core.$ZodIssueTooSmall): Described {
  const min = Number(issue.minimum);
  if (issue.origin === 'string') return min <= 1 ? { message: 'issue.required' } : { message: 'issue.tooShort', params: { min } };
  if (issue.origin === 'array' || issue.origin === 'set') return min <= 1 ? { message: 'issue.noItems' } : { message: 'issue.tooFewItems', params: { min } };
  return { message: issue.inclusive === false ? 'issue.tooSmallExclusive' : 'issue.tooSmall', params: { min } };
}

function tooBig(issue: z.core.$ZodIssueTooBig): Described {
  const max = Number(issue.maximum);
  if (issue.origin === 'string') return { message: 'issue.tooLong', params: { max } };
  if (issue.origin === 'array' || issue.origin === 'set') return { message: 'issue.tooManyItems', params: { max } };
  return { message: issue.inclusive === false ? 'issue.tooBigExclusive' : 'issue.tooBig', params: { max } };
}

/** Issues of a union: those of the one branch the input had the shape of, when there is exactly one. */
function unionBranch(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] | undefined {
  const shaped = issue.errors.filter((branch) => !branch.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')));
  return shaped.length === 1 ? shaped[0] : undefined;
}

function collect(issue: z.core.$ZodIssue, at: string[], prefix: string, locale: Locale, out: FieldIssue[]): void {
  const segments = [...at, ...issue.path.map(String)];
  const path = [prefix, ...segments].filter(Boolean).join('.') || prefix || WHOLE;
  let described: Described;
  switch (issue.code) {
    case 'invalid_type':
      described =
        issue.input === undefined || issue.input === null ? { message: 'issue.required' } : { message: TYPE_MESSAGES[issue.expected] ?? 'issue.invalid' };
      break;
    case 'too_small':
      described = tooSmall(issue);
      break;
    case 'too_big':
      described = tooBig(issue);
      break;
    case 'invalid_format':
      described = { message: issue.format === 'email' ? 'issue.email' : 'issue.format' };
      break;
    case 'invalid_value':
      described = { message: 'issue.oneOf', params: { values: either(issue.values, path, locale) } };
      break;
    case 'not_multiple_of':
      described = { message: 'issue.multipleOf', params: { divisor: issue.divisor } };
      break;
    case 'unrecognized_keys':
      described = { message: 'issue.unknownFields', params: { keys: issue.keys.join(', ') } };
      break;
    case 'invalid_union': {
      if ('options' in issue && issue.options?.length) {
        described = { message: 'issue.oneOf', params: { values: either(issue.options, path, locale) } };
        break;
      }
      const branch = unionBranch(issue);
      if (branch && !isMessageId(issue.message)) {
        for (const inner of branch) collect(inner, segments, prefix, locale, out);
        return;
      }
      described = { message: 'issue.invalid' };
      break;
    }
    case 'custom':
      // A refinement's own parameters (`params` of addIssue) fill its message.
      described = { message: 'issue.invalid', ...(issue.params ? { params: issue.params as MessageParams } : {}) };
      break;
    default:
      described = { message: 'issue.invalid' };
  }
  // A schema's own message id wins; the parameters read from the issue stay for it.
  const message = isMessageId(issue.message) ? issue.message : described.message;
  out.push({ path, message, ...(described.params ? { params: described.params } : {}) });
}

/**
 * Zod's issues as field issues, `prefix` put in front of every path. Parse with `reportInput:
 * true`: without the input, a value of the wrong type would read as missing. A field that is
 * missing has that one issue: "Name is required" says all, whatever else its rules would add.
 */
export function zodIssues(issues: readonly z.core.$ZodIssue[], locale: Locale, prefix = ''): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of issues) collect(issue, [], prefix, locale, out);
  const missing = new Set(out.filter((i) => i.message === 'issue.required').map((i) => i.path));
  const seen = new Set<string>();
  return out.filter((issue) => {
    const key = `${issue.path}\u0000${typeof issue.message === 'string' ? issue.message : issue.message.text}`;
    if (seen.has(key) || (missing.has(issue.path) && issue.message !== 'issue.required')) return false;
    seen.add(key);
    return true;
  });
}

/** The issue of a 409 that names a field, to be read like a validation issue. */
export const conflictIssue = (field: string, error: ConflictError): FieldIssue => ({ path: field, message: error.messageId, params: error.params });

/** The sentence shown next to the field. */
export function issueText(issue: FieldIssue, locale: Locale): string {
  if (typeof issue.message !== 'string') return issue.message.text;
  return translate(locale, issue.message, { field: fieldLabel(issue.path, locale), ...issue.params });
}

/** The sentence read on its own, away from the field: it always names the field. */
export function issueSentence(issue: FieldIssue, locale: Locale): string {
  const text = issueText(issue, locale);
  const namesField = typeof issue.message === 'string' && catalog(locale)[issue.message].includes('{field}');
  if (namesField || issue.path === WHOLE) return text;
  return translate(locale, 'issue.labelled', { field: fieldLabel(issue.path, locale), message: text });
}

/** The envelope message of a 422: every issue, each naming its field. */
export function issueSummary(issues: readonly FieldIssue[], locale: Locale): string {
  const sentences = issues.map((issue) => issueSentence(issue, locale)).join(translate(locale, 'issue.separator'));
  return translate(locale, 'issue.summary', { issues: sentences });
}
