import { useEffect, useMemo, useState } from 'react';
import { Accordion, Alert, Anchor, Badge, Box, Code, Container, Group, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { Brand } from '../../components/Brand.tsx';
import { LanguageSelect } from '../../components/LanguageSelect.tsx';
import { useTitle } from '../../components/useTitle.ts';
import { statusText } from '../../app/statusText.ts';
import { schemaText, type Schema } from './schemaText.ts';

/** Where the API describes itself (functions/openapi.ts generates it from the route table). */
const DOCUMENT_URL = '/v1/openapi.json';
/** The shape of every answer, shown as code (outside the message, whose braces would be placeholders). */
const ENVELOPE = '{ code, message, data }';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}
/** A parameter the document shares in `components.parameters` (the password header). */
type ParameterOrRef = Parameter | { $ref: string };
interface Operation {
  tags: string[];
  'x-access': 'public' | 'session' | 'device';
  'x-authCodes': string[];
  parameters?: ParameterOrRef[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security: Record<string, string[]>[];
  responses: Record<string, unknown>;
}
interface OpenApi {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { parameters?: Record<string, Parameter> };
}
interface Entry {
  key: string;
  method: string;
  path: string;
  op: Operation;
  parameters: Parameter[];
}

/** The operation's parameters, shared ones looked up in the document's components. */
function parametersOf(doc: OpenApi, op: Operation): Parameter[] {
  return (op.parameters ?? []).flatMap((p) => {
    if (!('$ref' in p)) return [p];
    const shared = doc.components?.parameters?.[p.$ref.replace('#/components/parameters/', '')];
    return shared ? [shared] : [];
  });
}

const METHOD_COLORS: Record<string, string> = { get: 'blue', post: 'teal', put: 'orange', patch: 'yellow', delete: 'red' };

function AccessText({ op }: { op: Operation }) {
  const credentials = op.security.flatMap((s) => Object.keys(s));
  if (op['x-access'] === 'session' && credentials.includes('apiKey'))
    return <Trans>A console session or an API key holding the permission, as a Bearer token</Trans>;
  if (op['x-access'] === 'session') return <Trans>A console session only (people, not API keys): the token of the login as a Bearer token</Trans>;
  if (op['x-access'] === 'device' && credentials.length > 0)
    return <Trans>A bound terminal: its thing name and password from binding, as HTTP Basic credentials</Trans>;
  if (op['x-access'] === 'device') return <Trans>A terminal, with the company’s device binding code in the body</Trans>;
  return <Trans>Anyone: no credentials</Trans>;
}

function Fields({ rows }: { rows: { name: string; where?: string; required: boolean; schema: Schema }[] }) {
  const { t } = useLingui();
  const where = (w: string | undefined) => (w === 'path' ? t`Path` : w === 'query' ? t`Query` : w === 'header' ? t`Header` : '');
  const withWhere = rows.some((r) => r.where);
  return (
    <Table withTableBorder fz="sm" verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t`Field`}</Table.Th>
          {withWhere && <Table.Th>{t`In`}</Table.Th>}
          <Table.Th>{t`Required`}</Table.Th>
          <Table.Th>{t`Type and rules`}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={`${row.where ?? ''}${row.name}`}>
            <Table.Td ff="monospace">{row.name}</Table.Td>
            {withWhere && <Table.Td>{where(row.where)}</Table.Td>}
            <Table.Td>{row.required ? t`Yes` : t`No`}</Table.Td>
            <Table.Td ff="monospace" style={{ wordBreak: 'break-word' }}>
              {schemaText(row.schema)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function OperationDetail({ op, parameters }: { op: Operation; parameters: Parameter[] }) {
  const { t } = useLingui();
  const [mediaType, body] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  const bodyFields = body?.schema.properties
    ? Object.entries(body.schema.properties).map(([name, schema]) => ({ name, schema, required: (body.schema.required ?? []).includes(name) }))
    : [];
  const statuses = Object.keys(op.responses);
  return (
    <Stack gap="sm">
      <Box>
        <Text fw={600} size="sm">{t`Credentials`}</Text>
        <Text size="sm">
          <AccessText op={op} />
        </Text>
      </Box>
      {op['x-access'] === 'session' && (
        <Box>
          <Text fw={600} size="sm">{t`Permission`}</Text>
          <Text size="sm">
            {op['x-authCodes'].length === 0 ? (
              t`Any account; the permission the record at hand needs is checked`
            ) : op['x-authCodes'].length === 1 ? (
              <Code>{op['x-authCodes'][0]}</Code>
            ) : (
              <>
                {t`Any one of:`}{' '}
                {op['x-authCodes'].map((code) => (
                  <Code key={code} mr={4}>
                    {code}
                  </Code>
                ))}
              </>
            )}
          </Text>
        </Box>
      )}
      {parameters.length > 0 && (
        <Box>
          <Text fw={600} size="sm" mb={4}>{t`Parameters`}</Text>
          <Fields rows={parameters.map((p) => ({ name: p.name, where: p.in, required: p.required, schema: p.schema }))} />
        </Box>
      )}
      {body && (
        <Box>
          <Text fw={600} size="sm" mb={4}>
            {t`Request body`} <Code>{mediaType}</Code>
          </Text>
          {bodyFields.length > 0 ? <Fields rows={bodyFields} /> : <Code block>{schemaText(body.schema)}</Code>}
        </Box>
      )}
      <Box>
        <Text fw={600} size="sm" mb={4}>{t`Responses`}</Text>
        <Stack gap={2}>
          {statuses.map((status) => (
            <Text size="sm" key={status}>
              <Code mr={6}>{status === 'default' ? t`other` : status}</Code>
              {status === 'default' ? t`Any other failure, in the envelope` : status === '413' ? t`The request is too large` : statusText(Number(status))}
            </Text>
          ))}
        </Stack>
      </Box>
    </Stack>
  );
}

/** The API reference for integrators: every route of the API, grouped by resource, from the document the API serves. */
export default function ApiDocsPage() {
  const { t } = useLingui();
  useTitle(t`API reference`);
  const [doc, setDoc] = useState<OpenApi | null>(null);
  const [failed, setFailed] = useState(false);
  const [filter, setFilter] = useState('');
  useEffect(() => {
    fetch(DOCUMENT_URL)
      .then((res) => (res.ok ? (res.json() as Promise<OpenApi>) : Promise.reject(new Error(String(res.status)))))
      .then(setDoc, () => setFailed(true));
  }, []);

  const groups = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const byTag = new Map<string, Entry[]>();
    for (const [path, ops] of Object.entries(doc?.paths ?? {})) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (needle && !`${key} ${op['x-authCodes'].join(' ')}`.toLowerCase().includes(needle)) continue;
        const tag = op.tags[0] ?? '';
        byTag.set(tag, [...(byTag.get(tag) ?? []), { key, method, path, op, parameters: parametersOf(doc!, op) }]);
      }
    }
    return [...byTag.entries()];
  }, [doc, filter]);

  return (
    <Box mih="100vh" bg="#f5f7fa">
      <Group justify="space-between" px="lg" py="sm" bg="white" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
        <Box component={Link} to="/entrance" style={{ color: 'inherit', textDecoration: 'none' }}>
          <Brand />
        </Box>
        <LanguageSelect />
      </Group>
      <Container size={1100} py="xl">
        <Stack gap="md">
          <Title order={1} size="h2">
            <Trans>API reference</Trans>
          </Title>
          <Text>
            <Trans>
              Every route of the Pass Cloud API, generated from the code that checks each request. Every answer is the envelope <Code>{ENVELOPE}</Code>; a 422
              lists each refused field in <Code>data.issues</Code>.
            </Trans>
          </Text>
          <Group gap="md">
            <Anchor component={Link} to="/docs/api/guide" data-testid="guide-link">
              <Trans>The integrators’ guide: API keys, errors, paging and limits</Trans>
            </Anchor>
            <Anchor href={DOCUMENT_URL} target="_blank" data-testid="openapi-link">
              <Trans>The OpenAPI 3.1 document</Trans>
            </Anchor>
            {doc && <Badge variant="light">{doc.info.version}</Badge>}
          </Group>
          <TextInput
            leftSection={<IconSearch size={16} />}
            placeholder={t`Filter by path or permission`}
            aria-label={t`Filter by path or permission`}
            value={filter}
            onChange={(event) => setFilter(event.currentTarget.value)}
            maw={420}
            data-testid="api-filter"
          />
          {failed && <Alert color="red">{t`The API description could not be loaded.`}</Alert>}
          {!doc && !failed && <Loader size="sm" />}
          {doc && groups.length === 0 && <Text c="dimmed">{t`No route matches the filter.`}</Text>}
          {groups.map(([tag, entries]) => (
            <Box key={tag} component="section" data-testid={`api-group-${tag}`}>
              <Title order={2} size="h4" ff="monospace" mb="xs">
                {tag}
              </Title>
              <Accordion multiple variant="separated" chevronPosition="right">
                {entries.map(({ key, method, path, op, parameters }) => (
                  <Accordion.Item key={key} value={key} bg="white" data-testid="api-route" data-route={key}>
                    <Accordion.Control>
                      <Group gap="sm" wrap="nowrap">
                        <Badge color={METHOD_COLORS[method] ?? 'gray'} w={72} radius="sm" style={{ flexShrink: 0 }}>
                          {method.toUpperCase()}
                        </Badge>
                        <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
                          {path}
                        </Text>
                        {op['x-authCodes'].map((code) => (
                          <Badge key={code} variant="outline" color="gray" tt="none" style={{ flexShrink: 0 }}>
                            {code}
                          </Badge>
                        ))}
                      </Group>
                    </Accordion.Control>
                    <Accordion.Panel>
                      <OperationDetail op={op} parameters={parameters} />
                    </Accordion.Panel>
                  </Accordion.Item>
                ))}
              </Accordion>
            </Box>
          ))}
        </Stack>
      </Container>
    </Box>
  );
}
