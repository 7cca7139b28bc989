import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Alert, Box, Button, Checkbox, Container, Group, Loader, Paper, Radio, Stack, Text, Textarea, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconClockX, IconLinkOff, IconLock, IconMapPin } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useLocation } from 'react-router-dom';
// Types only: the contract's schemas (and zod) stay out of a page opened on a phone.
import type { Answer, SurveyForm, SurveyRefusal } from '@passcloud/functions/contract/questionnaires';
import { toast } from '../../app/api.ts';
import { formatShortTime } from '../../app/format.ts';
import { setLoading } from '../../app/loading.ts';
import { storedLocale } from '../../app/locales.ts';
import { createClient, RequestError } from '../../app/request.ts';
import { statusText } from '../../app/statusText.ts';
import { Brand } from '../../components/Brand.tsx';
import { LanguageSelect } from '../../components/LanguageSelect.tsx';
import { useTitle } from '../../components/useTitle.ts';

/**
 * The answering page is for anyone with the link: it sends no session even in a browser where
 * someone is logged in to the console, and a refusal never logs anybody out.
 */
const client = createClient({ token: () => null, locale: storedLocale, statusText, toast, loading: setLoading, sessionEnded: () => undefined });
const post = <T,>(path: string, body: unknown) => client.request<T>('POST', path, { body, silent: true });

type Page =
  | { kind: 'loading' }
  | { kind: 'form'; survey: SurveyForm }
  | { kind: 'refused'; reason: SurveyRefusal; message: string | null }
  | { kind: 'unreachable' }
  | { kind: 'done' };

/** What the person has chosen or written for one question so far. */
type Draft = number[] | string;

const REFUSALS: readonly SurveyRefusal[] = ['invalid', 'expired', 'used', 'closed'];

function refusalOf(error: unknown): { reason: SurveyRefusal; message: string } | undefined {
  if (!(error instanceof RequestError)) return undefined;
  const reason = (error.data as { reason?: unknown } | null)?.reason;
  if (typeof reason === 'string' && (REFUSALS as readonly string[]).includes(reason)) return { reason: reason as SurveyRefusal, message: error.message };
  // A token of the wrong shape is refused as a field of the request.
  if (error.status === 404 || error.issues.some((issue) => issue.path === 'token')) return { reason: 'invalid', message: error.message };
  return undefined;
}

/** The person's answers survive a change of language (which reloads the page), for this link only. */
const draftKey = (token: string) => `survey:${token.split('.')[1] ?? ''}`;
function storedDrafts(token: string, survey: SurveyForm): Draft[] {
  const blank = survey.questions.map((q): Draft => (q.type === 'text' ? '' : []));
  try {
    const saved = JSON.parse(sessionStorage.getItem(draftKey(token)) ?? 'null') as unknown;
    if (!Array.isArray(saved) || saved.length !== blank.length) return blank;
    return blank.map((empty, i) => (typeof saved[i] === typeof empty || (Array.isArray(saved[i]) && Array.isArray(empty)) ? (saved[i] as Draft) : empty));
  } catch {
    return blank;
  }
}

/**
 * The survey in the reader's language (the console's, which the language picker sets) when it has
 * a translation in it, else in its own: only the texts change, the answers are option indexes.
 */
function inReaderLanguage(survey: SurveyForm): SurveyForm {
  const translation = survey.translations?.[storedLocale()];
  if (!translation) return survey;
  return {
    ...survey,
    title: translation.title || survey.title,
    questions: survey.questions.map((question, i) => ({
      ...question,
      text: translation.questions[i]?.text || question.text,
      options: question.options.map((option, j) => ({ ...option, text: translation.questions[i]?.options[j] || option.text })),
    })),
  };
}

const answerOf = (draft: Draft): Answer =>
  typeof draft === 'string' ? (draft.trim() ? { text: draft.trim() } : null) : draft.length ? { choices: draft } : null;

/**
 * The public page behind a terminal's QR code (`/survey#<token>`): the survey's title, where the
 * terminal is, and its questions, answered on a phone, in the reader's language when the survey
 * has a translation in it. Mandatory questions are checked before
 * sending; the server's objections show on their question. A link works once: after the answers
 * go in, it says thank you, and opened again it says it was used. An expired link, one whose
 * survey closed, and one that was never valid each say so.
 */
export default function SurveyPage() {
  const { t } = useLingui();
  const token = useLocation().hash.replace(/^#/, '');
  const [page, setPage] = useState<Page>({ kind: 'loading' });
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [sending, setSending] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const questionRefs = useRef<(HTMLDivElement | null)[]>([]);
  useTitle(page.kind === 'form' ? page.survey.title : t`Survey`);

  useEffect(() => {
    // A link without a token is not worth a request.
    if (!token) {
      setPage({ kind: 'refused', reason: 'invalid', message: null });
      return;
    }
    let current = true;
    setPage({ kind: 'loading' });
    post<SurveyForm>('/v1/surveys/open', { token }).then(
      (survey) => {
        if (!current) return;
        setDrafts(storedDrafts(token, survey));
        setPage({ kind: 'form', survey: inReaderLanguage(survey) });
      },
      (error: unknown) => {
        if (!current) return;
        const refused = refusalOf(error);
        setPage(refused ? { kind: 'refused', ...refused } : { kind: 'unreachable' });
      },
    );
    return () => {
      current = false;
    };
  }, [token, attempt]);

  const change = (i: number, value: Draft) => {
    const next = drafts.map((d, j) => (j === i ? value : d));
    setDrafts(next);
    sessionStorage.setItem(draftKey(token), JSON.stringify(next));
    if (errors[i]) setErrors(Object.fromEntries(Object.entries(errors).filter(([k]) => Number(k) !== i)));
  };

  const showErrors = (found: Record<number, string>) => {
    setErrors(found);
    const first = Math.min(...Object.keys(found).map(Number));
    questionRefs.current[first]?.scrollIntoView({ behavior: 'smooth', block: 'center' });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (page.kind !== 'form') return;
    const missing: Record<number, string> = {};
    page.survey.questions.forEach((q, i) => {
      if (q.mandatory && answerOf(drafts[i]!) === null) missing[i] = q.type === 'text' ? t`Please answer this question.` : t`Please choose an answer.`;
    });
    if (Object.keys(missing).length) {
      showErrors(missing);
      return;
    }
    setSending(true);
    try {
      await post<null>('/v1/surveys/answers', { token, answers: drafts.map(answerOf) });
      sessionStorage.removeItem(draftKey(token));
      setPage({ kind: 'done' });
      window.scrollTo(0, 0);
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) {
        setPage({ kind: 'refused', ...refused });
        return;
      }
      if (error instanceof RequestError && error.issues.length) {
        const found: Record<number, string> = {};
        for (const issue of error.issues) {
          const index = /^answers\.(\d+)/.exec(issue.path)?.[1];
          if (index !== undefined) found[Number(index)] ??= issue.message;
        }
        if (Object.keys(found).length) {
          showErrors(found);
          return;
        }
      }
      toast(error instanceof RequestError ? error.message : t`The answers could not be sent; please try again.`);
    } finally {
      setSending(false);
    }
  };

  return (
    <Box mih="100vh" style={{ background: 'linear-gradient(160deg, #e7f0fb 0%, #f0f2f5 60%)' }}>
      <Group justify="space-between" px="md" py="sm" wrap="nowrap" gap="xs">
        <Brand />
        <LanguageSelect />
      </Group>
      <Container size={560} px="sm" pb="xl" pt="xs">
        {page.kind === 'loading' && (
          <Paper withBorder radius="md" p="xl">
            <Group justify="center">
              <Loader size="sm" />
            </Group>
          </Paper>
        )}
        {page.kind === 'unreachable' && (
          <Paper withBorder radius="md" p="lg" data-testid="survey-unreachable">
            <Stack align="flex-start">
              <Text>
                <Trans>The survey could not be loaded. Check your connection and try again.</Trans>
              </Text>
              <Button variant="light" onClick={() => setAttempt((n) => n + 1)}>
                <Trans>Try again</Trans>
              </Button>
            </Stack>
          </Paper>
        )}
        {page.kind === 'refused' && <Refusal reason={page.reason} />}
        {page.kind === 'done' && (
          <Paper withBorder radius="md" p="xl" data-testid="survey-done">
            <Stack align="center" gap="sm" ta="center">
              <ThemeIcon color="teal" variant="light" size={56} radius="xl">
                <IconCircleCheck size={34} />
              </ThemeIcon>
              <Title order={2} size="h3">
                <Trans>Thank you</Trans>
              </Title>
              <Text c="dimmed">
                <Trans>Your answers have been sent. You can close this page.</Trans>
              </Text>
            </Stack>
          </Paper>
        )}
        {page.kind === 'form' && (
          <SurveyQuestions survey={page.survey} drafts={drafts} errors={errors} sending={sending} onChange={change} onSubmit={submit} refs={questionRefs} />
        )}
      </Container>
    </Box>
  );
}

function SurveyQuestions({
  survey,
  drafts,
  errors,
  sending,
  onChange,
  onSubmit,
  refs,
}: {
  survey: SurveyForm;
  drafts: Draft[];
  errors: Record<number, string>;
  sending: boolean;
  onChange: (i: number, value: Draft) => void;
  onSubmit: (event: FormEvent) => void;
  refs: React.RefObject<(HTMLDivElement | null)[]>;
}) {
  const { t } = useLingui();
  const until = formatShortTime(survey.expiresAt);
  const anyMandatory = survey.questions.some((q) => q.mandatory);
  return (
    <form onSubmit={onSubmit} noValidate data-testid="survey-form">
      <Stack gap="md">
        <Paper withBorder radius="md" p="lg">
          <Stack gap={6}>
            <Title order={1} size="h3" style={{ wordBreak: 'break-word' }} data-testid="survey-title">
              {survey.title}
            </Title>
            <Group gap={6} wrap="nowrap" c="dimmed">
              <IconMapPin size={16} style={{ flex: 'none' }} />
              <Text size="sm" data-testid="survey-device">
                {survey.deviceName}
              </Text>
            </Group>
            <Text size="xs" c="dimmed">
              <Trans>This link works once, until {until}.</Trans>{' '}
              {anyMandatory && (
                <Trans>
                  Questions marked{' '}
                  <Text span c="red" inherit>
                    *
                  </Text>{' '}
                  need an answer.
                </Trans>
              )}
            </Text>
          </Stack>
        </Paper>
        {survey.questions.map((question, i) => {
          const draft = drafts[i];
          const error = errors[i];
          const label = (
            <Text fw={600} size="md" component="span" style={{ wordBreak: 'break-word' }}>
              {i + 1}. {question.text}
              {question.mandatory && (
                <Text span c="red" ml={4} aria-label={t`Mandatory`}>
                  *
                </Text>
              )}
            </Text>
          );
          return (
            <Paper
              key={i}
              withBorder
              radius="md"
              p="md"
              ref={(el) => {
                refs.current[i] = el;
              }}
              style={error ? { borderColor: 'var(--mantine-color-red-6)' } : undefined}
              data-testid="survey-question"
              data-index={i}
              data-invalid={error ? true : undefined}
            >
              {question.type === 'single' && (
                <Radio.Group
                  label={label}
                  value={Array.isArray(draft) && draft.length ? String(draft[0]) : null}
                  onChange={(value) => onChange(i, [Number(value)])}
                  error={error}
                >
                  <Stack gap="sm" mt="sm">
                    {question.options.map((option, j) => (
                      <Radio key={j} value={String(j)} label={option.text} size="md" data-testid="survey-option" />
                    ))}
                  </Stack>
                </Radio.Group>
              )}
              {question.type === 'multiple' && (
                <Checkbox.Group
                  label={label}
                  description={t`Choose all that apply.`}
                  value={Array.isArray(draft) ? draft.map(String) : []}
                  onChange={(values) =>
                    onChange(
                      i,
                      values.map(Number).sort((a, b) => a - b),
                    )
                  }
                  error={error}
                >
                  <Stack gap="sm" mt="sm">
                    {question.options.map((option, j) => (
                      <Checkbox key={j} value={String(j)} label={option.text} size="md" data-testid="survey-option" />
                    ))}
                  </Stack>
                </Checkbox.Group>
              )}
              {question.type === 'text' && (
                <Textarea
                  label={label}
                  autosize
                  minRows={3}
                  size="md"
                  value={typeof draft === 'string' ? draft : ''}
                  onChange={(e) => onChange(i, e.currentTarget.value)}
                  error={error}
                  styles={{ label: { marginBottom: 8 } }}
                  data-testid="survey-text"
                />
              )}
            </Paper>
          );
        })}
        {Object.keys(errors).length > 0 && (
          <Alert color="red" variant="light" data-testid="survey-errors">
            <Trans>Some answers are missing or not valid; see the questions marked in red.</Trans>
          </Alert>
        )}
        <Button type="submit" size="md" fullWidth loading={sending} data-testid="survey-submit">
          <Trans>Send answers</Trans>
        </Button>
      </Stack>
    </form>
  );
}

/** Why the link no longer (or never did) open the survey, in the person's language. */
function Refusal({ reason }: { reason: SurveyRefusal }) {
  const { t } = useLingui();
  const says: Record<SurveyRefusal, { icon: React.ReactNode; title: string; text: string }> = {
    invalid: { icon: <IconLinkOff size={30} />, title: t`This link is not valid`, text: t`Scan the QR code on the terminal again to get a new link.` },
    expired: {
      icon: <IconClockX size={30} />,
      title: t`This link has expired`,
      text: t`Links work for a short while only. Scan the QR code on the terminal again.`,
    },
    used: {
      icon: <IconCircleCheck size={30} />,
      title: t`This link has been used`,
      text: t`The answers for this link have already been sent. Each link works once.`,
    },
    closed: { icon: <IconLock size={30} />, title: t`This survey is closed`, text: t`The survey no longer takes answers at this terminal.` },
  };
  const shown = says[reason];
  return (
    <Paper withBorder radius="md" p="xl" data-testid="survey-refused" data-reason={reason}>
      <Stack align="center" gap="sm" ta="center">
        <ThemeIcon color={reason === 'used' ? 'teal' : 'orange'} variant="light" size={56} radius="xl">
          {shown.icon}
        </ThemeIcon>
        <Title order={2} size="h3">
          {shown.title}
        </Title>
        <Text c="dimmed">{shown.text}</Text>
      </Stack>
    </Paper>
  );
}
