import { useEffect, useState } from 'react';
import { Alert, Badge, Box, Button, Checkbox, CopyButton, Group, Image, Loader, Modal, PasswordInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconCheck, IconCopy, IconDownload, IconShieldLock } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import type { RecoveryCodes, TwoFactorEnrolment, TwoFactorState } from '@passcloud/functions/contract/twoFactor';
import { api, notifySuccess, toast } from '../api.ts';
import { encryptText } from '../crypto.ts';
import { formatDateTime } from '../format.ts';
import { RequestError } from '../request.ts';
import { logout } from '../auth.ts';
import { getPublicKey, getUser, twoFactorChanged } from '../session.ts';

type View =
  | { name: 'loading' }
  | { name: 'status'; state: TwoFactorState }
  | { name: 'enrol'; enrolment: TwoFactorEnrolment; qr: string | null }
  | { name: 'confirm'; action: 'regenerate' | 'disable' }
  | { name: 'codes'; codes: string[]; enrolled: boolean };

/** The QR code of an `otpauth://` URI, drawn here (the secret goes to no other server). */
async function qrImage(uri: string): Promise<string> {
  const { toDataURL } = await import('qrcode');
  return toDataURL(uri, { margin: 1, width: 200, errorCorrectionLevel: 'M' });
}

/** `ABCDEFGH...` as `ABCD EFGH ...`, easier to type into an app. */
const grouped = (secret: string): string => secret.replace(/(.{4})/g, '$1 ').trim();

/**
 * Two-factor login of the signed-in account (the user menu): its state; setting it up (a QR code
 * and the secret to type, confirmed with the password and a current code); new recovery codes;
 * turning it off (password and a code). With `required` (the company requires it and the account
 * has none) the dialog cannot be closed until it is on: the screens behind it wait (MainLayout).
 */
export function TwoFactorDialog({ opened, onClose, required = false }: { opened: boolean; onClose: () => void; required?: boolean }) {
  const { t } = useLingui();
  const [view, setView] = useState<View>({ name: 'loading' });

  const load = async () => {
    setView({ name: 'loading' });
    try {
      setView({ name: 'status', state: await api.get<TwoFactorState>('/v1/systems/twoFactor') });
    } catch {
      // The request client has shown why.
    }
  };
  useEffect(() => {
    if (opened) void load();
  }, [opened]);

  const start = async () => {
    try {
      const enrolment = await api.post<TwoFactorEnrolment>('/v1/systems/twoFactor/enrolment');
      setView({ name: 'enrol', enrolment, qr: null });
      const qr = await qrImage(enrolment.uri).catch(() => null);
      setView((current) => (current.name === 'enrol' && current.enrolment === enrolment ? { ...current, qr } : current));
    } catch {
      // The request client has shown why.
    }
  };

  const close = () => {
    if (required) return;
    setView({ name: 'loading' });
    onClose();
  };

  const finish = (view: Extract<View, { name: 'codes' }>) => {
    if (view.enrolled) twoFactorChanged(true);
    notifySuccess(t`Operation succeeded`);
    setView({ name: 'loading' });
    onClose();
  };

  const title = view.name === 'codes' ? t`Recovery codes` : t`Two-factor login`;
  const closable = !required && view.name !== 'codes';
  return (
    <Modal
      opened={opened}
      onClose={closable ? close : () => undefined}
      title={title}
      size={560}
      centered
      withCloseButton={closable}
      closeOnClickOutside={closable}
      closeOnEscape={closable}
      data-testid="two-factor-dialog"
    >
      {view.name === 'loading' && <Loader size="sm" />}
      {view.name === 'status' && (
        <StatusView
          state={view.state}
          required={required}
          onStart={() => void start()}
          onAction={(action) => setView({ name: 'confirm', action })}
          onClose={close}
        />
      )}
      {view.name === 'enrol' && (
        <EnrolView
          enrolment={view.enrolment}
          qr={view.qr}
          required={required}
          onCancel={required ? () => void logout() : close}
          onDone={(codes) => setView({ name: 'codes', codes, enrolled: true })}
        />
      )}
      {view.name === 'confirm' && (
        <ConfirmView
          action={view.action}
          onCancel={() => void load()}
          onDone={(codes) => {
            if (codes) {
              setView({ name: 'codes', codes, enrolled: false });
              return;
            }
            twoFactorChanged(false);
            notifySuccess(t`Two-factor login is off`);
            setView({ name: 'loading' });
            onClose();
          }}
        />
      )}
      {view.name === 'codes' && <RecoveryCodesView codes={view.codes} onDone={() => finish(view)} />}
    </Modal>
  );
}

function StatusView({
  state,
  required,
  onStart,
  onAction,
  onClose,
}: {
  state: TwoFactorState;
  required: boolean;
  onStart: () => void;
  onAction: (action: 'regenerate' | 'disable') => void;
  onClose: () => void;
}) {
  const since = state.enabledAt ? formatDateTime(state.enabledAt) : '';
  const left = state.recoveryCodesLeft;
  if (!state.enabled) {
    return (
      <Stack>
        {required && (
          <Alert color="orange" variant="light" icon={<IconShieldLock size={18} />} data-testid="two-factor-required">
            <Trans>Your company requires two-factor login. Set it up to continue.</Trans>
          </Alert>
        )}
        <Text size="sm">
          <Trans>
            With two-factor login, logging in takes your password and a code from an authenticator app on your phone (such as Google Authenticator, Microsoft
            Authenticator or FreeOTP). Someone who learns your password cannot log in without your phone.
          </Trans>
        </Text>
        <Group justify="flex-end">
          {required ? (
            <Button variant="default" onClick={() => void logout()}>
              <Trans>Log out</Trans>
            </Button>
          ) : (
            <Button variant="default" onClick={onClose}>
              <Trans>Cancel</Trans>
            </Button>
          )}
          <Button onClick={onStart} data-testid="two-factor-start">
            <Trans>Set up two-factor login</Trans>
          </Button>
        </Group>
      </Stack>
    );
  }
  return (
    <Stack>
      <Group gap="xs">
        <Badge color="teal" variant="light" leftSection={<IconShieldLock size={14} />} data-testid="two-factor-on">
          <Trans>On</Trans>
        </Badge>
        {since && (
          <Text size="sm" c="dimmed">
            <Trans>Since {since}</Trans>
          </Text>
        )}
      </Group>
      <Text size="sm" data-testid="two-factor-codes-left">
        <Trans>Recovery codes left: {left}</Trans>
      </Text>
      {state.required && (
        <Text size="sm" c="dimmed">
          <Trans>Your company requires two-factor login, so it cannot be turned off.</Trans>
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          <Trans>Close</Trans>
        </Button>
        <Button variant="light" onClick={() => onAction('regenerate')} data-testid="two-factor-regenerate">
          <Trans>New recovery codes</Trans>
        </Button>
        {!state.required && !required && (
          <Button variant="light" color="red" onClick={() => onAction('disable')} data-testid="two-factor-disable">
            <Trans>Turn off</Trans>
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** The password (encrypted with the session key) and a code; field problems go under their fields. */
function useFactors() {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<{ password?: string; code?: string }>({});
  const [busy, setBusy] = useState(false);
  const { t } = useLingui();

  const submit = async <T,>(path: string): Promise<T | undefined> => {
    const found = { password: password ? undefined : t`Enter the password`, code: code.trim() ? undefined : t`Enter the code` };
    setErrors(found);
    if (found.password || found.code) return undefined;
    const key = getPublicKey();
    if (!key) return undefined;
    setBusy(true);
    try {
      return await api.post<T>(path, { password: await encryptText(key, password), code: code.trim() }, { silent: true });
    } catch (error) {
      if (error instanceof RequestError && error.issues.length) {
        const next: { password?: string; code?: string } = {};
        for (const issue of error.issues) next[issue.path === 'password' ? 'password' : 'code'] ??= issue.message;
        setErrors(next);
      } else if (error instanceof RequestError) toast(error.message);
      return undefined;
    } finally {
      setBusy(false);
    }
  };

  const fields = (codeLabel: string, codeDescription?: string) => (
    <>
      <PasswordInput
        label={t`Password`}
        required
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.currentTarget.value)}
        error={errors.password}
        data-testid="two-factor-password"
      />
      <TextInput
        label={codeLabel}
        description={codeDescription}
        required
        autoComplete="one-time-code"
        spellCheck={false}
        value={code}
        onChange={(e) => setCode(e.currentTarget.value)}
        error={errors.code}
        data-testid="two-factor-code"
      />
    </>
  );
  return { submit, fields, busy };
}

function EnrolView({
  enrolment,
  qr,
  required,
  onCancel,
  onDone,
}: {
  enrolment: TwoFactorEnrolment;
  qr: string | null;
  required: boolean;
  onCancel: () => void;
  onDone: (codes: string[]) => void;
}) {
  const { t } = useLingui();
  const { submit, fields, busy } = useFactors();
  const user = getUser();
  const account = user?.username ?? enrolment.account;
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit<RecoveryCodes>('/v1/systems/twoFactor').then((answer) => answer && onDone(answer.recoveryCodes));
      }}
    >
      <Stack>
        <Text size="sm">
          <Trans>1. Scan this QR code with your authenticator app, or type the key below into it.</Trans>
        </Text>
        <Group align="flex-start" wrap="nowrap" gap="lg">
          <Box w={200} h={200} style={{ flexShrink: 0 }}>
            {qr ? <Image src={qr} w={200} h={200} alt={t`QR code for the authenticator app`} data-testid="two-factor-qr" /> : <Loader size="sm" />}
          </Box>
          <Stack gap={6} style={{ minWidth: 0 }}>
            <Text size="xs" c="dimmed">
              <Trans>Key (time-based, 6 digits, every 30 seconds)</Trans>
            </Text>
            <Text ff="monospace" fw={600} size="sm" style={{ wordBreak: 'break-all' }} data-testid="two-factor-secret">
              {grouped(enrolment.secret)}
            </Text>
            <CopyButton value={enrolment.secret}>
              {({ copied, copy }) => (
                <Button size="xs" variant="light" w="max-content" leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />} onClick={copy}>
                  {copied ? <Trans>Copied</Trans> : <Trans>Copy the key</Trans>}
                </Button>
              )}
            </CopyButton>
            <Text size="xs" c="dimmed">
              <Trans>Account: {account}</Trans>
            </Text>
          </Stack>
        </Group>
        <Text size="sm">
          <Trans>2. Enter your password and the 6-digit code the app now shows.</Trans>
        </Text>
        {fields(t`Code from the app`)}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {required ? <Trans>Log out</Trans> : <Trans>Cancel</Trans>}
          </Button>
          <Button type="submit" loading={busy} data-testid="two-factor-confirm">
            <Trans>Turn on</Trans>
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function ConfirmView({ action, onCancel, onDone }: { action: 'regenerate' | 'disable'; onCancel: () => void; onDone: (codes?: string[]) => void }) {
  const { t } = useLingui();
  const { submit, fields, busy } = useFactors();
  const disable = action === 'disable';
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (disable) void submit<null>('/v1/systems/twoFactor/disable').then((answer) => answer !== undefined && onDone());
        else void submit<RecoveryCodes>('/v1/systems/twoFactor/recoveryCodes').then((answer) => answer && onDone(answer.recoveryCodes));
      }}
    >
      <Stack>
        {disable ? (
          <Alert color="red" variant="light" data-testid="two-factor-disable-warning">
            <Trans>Turn off two-factor login? Your account is then protected by its password alone, and your recovery codes stop working.</Trans>
          </Alert>
        ) : (
          <Text size="sm">
            <Trans>New recovery codes replace the old ones, which stop working.</Trans>
          </Text>
        )}
        {fields(t`Code`, t`A code from the app, or a recovery code`)}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            <Trans>Cancel</Trans>
          </Button>
          <Button type="submit" color={disable ? 'red' : undefined} loading={busy} data-testid="two-factor-submit">
            {disable ? <Trans>Turn off two-factor login</Trans> : <Trans>Make new codes</Trans>}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The recovery codes, shown once: copy or download them, and say they are kept before going on. */
function RecoveryCodesView({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useLingui();
  const [kept, setKept] = useState(false);
  const text = codes.join('\n');
  const download = () => {
    const user = getUser();
    const lines = [t`Pass Cloud recovery codes`, `${user?.companyName ?? ''} · ${user?.username ?? ''}`, '', ...codes, '', t`Each code works once.`];
    const url = URL.createObjectURL(new Blob([`${lines.join('\n')}\n`], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `pass-cloud-recovery-codes-${user?.username ?? 'account'}.txt`;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Stack>
      <Text size="sm">
        <Trans>
          Keep these codes somewhere safe. If you lose your phone, each of them logs you in once instead of a code from the app. They are shown only now.
        </Trans>
      </Text>
      <SimpleGrid cols={2} spacing={6} verticalSpacing={6} p="sm" bg="gray.0" style={{ borderRadius: 8 }} data-testid="recovery-codes">
        {codes.map((code) => (
          <Text key={code} ff="monospace" fw={600} ta="center">
            {code}
          </Text>
        ))}
      </SimpleGrid>
      <Group gap="xs">
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />} onClick={copy} data-testid="recovery-copy">
              {copied ? <Trans>Copied</Trans> : <Trans>Copy</Trans>}
            </Button>
          )}
        </CopyButton>
        <Button size="xs" variant="light" leftSection={<IconDownload size={14} />} onClick={download} data-testid="recovery-download">
          <Trans>Download</Trans>
        </Button>
      </Group>
      <Checkbox label={t`I have saved these codes`} checked={kept} onChange={(e) => setKept(e.currentTarget.checked)} data-testid="recovery-kept" />
      <Group justify="flex-end">
        <Button disabled={!kept} onClick={onDone} data-testid="recovery-done">
          <Trans>Done</Trans>
        </Button>
      </Group>
    </Stack>
  );
}
