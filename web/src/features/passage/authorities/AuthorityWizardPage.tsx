import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Paper, Progress, Stack, Stepper, Table, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useLocation, useNavigate } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { notifySuccess } from '../../../app/api.ts';
import { formatList, formatNumber } from '../../../app/format.ts';
import { showFailure, useWrite } from '../../../app/queries.ts';
import { RequestError } from '../../../app/request.ts';
import { ScreenPage } from '../../../components/ScreenPage.tsx';
import { pickDepartments, pickGroups } from '../../../app/pickers.ts';
import { SCREENS, checkCapacity, grant, grantJob, useAllDevices, setTypeOfPath, type CapacityCheck, type Selection, type ValidityBody } from './api.ts';
import { DevicesStep, type DevicesChoice } from './DevicesStep.tsx';
import { PeopleStep, type PeopleChoice } from './PeopleStep.tsx';
import { ValidityFields, validityOf, type ValidityDraft } from './parts.tsx';
import { ScheduleSelect } from '../schedules/ScheduleSelect.tsx';

type Step = 0 | 1 | 2;
const PEOPLE_FIELDS = ['personKeys', 'personGroupKeys', 'departmentKeys'];
const DEVICE_FIELDS = ['deviceKeys', 'deviceGroupKeys'];

/**
 * Authorize (setType 0) or add to the blacklist (setType 1) in three steps: people, devices,
 * validity. Before granting, the devices' face libraries are checked; a device the grant would
 * overfill is named, and so is everyone the grant would put on both lists of a device (where the
 * blacklist wins), and the user chooses to go on or go back.
 */
export function AuthorityWizardPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const setType = setTypeOfPath(useLocation().pathname);
  const listPath = SCREENS[setType].list;
  const [step, setStep] = useState<Step>(0);
  const [people, setPeople] = useState<PeopleChoice>({ people: new Map(), groupKeys: [], departmentKeys: [] });
  const [devicesChoice, setDevicesChoice] = useState<DevicesChoice>({ deviceKeys: new Set(), groupKeys: [] });
  const [validity, setValidity] = useState<ValidityDraft>({ permanent: true, range: [null, null] });
  const [errors, setErrors] = useState<{ people?: string; devices?: string; validity?: string; schedule?: string }>({});
  /** Pass authority only: the access schedule within the validity; null, at any time. */
  const [scheduleKey, setScheduleKey] = useState<string | null>(null);
  const personGroups =
    useQuery({
      queryKey: ['pickers', 'groups', 'people'],
      queryFn: () => Promise.all([pickGroups('employee'), pickGroups('visitor')]).then(([e, v]) => [...e, ...v]),
    }).data ?? [];
  const departments = useQuery({ queryKey: ['pickers', 'departments'], queryFn: pickDepartments }).data ?? [];
  const devices = useAllDevices();
  const deviceGroups = useQuery({ queryKey: ['pickers', 'groups', 'device'], queryFn: () => pickGroups('device') }).data ?? [];
  /** What the check found before granting: devices the grant would overfill, people it would put on both lists. */
  const [capacity, setCapacity] = useState<{ check: CapacityCheck; validity: ValidityBody } | null>(null);
  /** The devices' face libraries are being checked before the grant. */
  const [checking, setChecking] = useState(false);
  /** A large grant the server writes in the background, followed until it is done. */
  const [job, setJob] = useState<{ jobKey: string; done: number; total: number; validity: ValidityBody; failed?: boolean; error?: string | null } | null>(null);

  const selection: Selection = {
    personKeys: [...people.people.keys()],
    personGroupKeys: people.groupKeys,
    departmentKeys: people.departmentKeys,
    deviceKeys: [...devicesChoice.deviceKeys],
    deviceGroupKeys: devicesChoice.groupKeys,
  };
  const peopleChosen = selection.personKeys.length + selection.personGroupKeys.length + selection.departmentKeys.length > 0;
  const devicesChosen = selection.deviceKeys.length + selection.deviceGroupKeys.length > 0;
  const blocked =
    step === 0 && !peopleChosen
      ? t`Choose at least one person, group or department`
      : step === 1 && !devicesChosen
        ? t`Choose at least one device or device group`
        : null;

  /** A refusal names its field: the step holding it opens with the message there. */
  const refused = (failure: unknown) => {
    const issue = failure instanceof RequestError ? failure.issues[0] : undefined;
    if (!issue) return showFailure(failure);
    if (PEOPLE_FIELDS.includes(issue.path)) {
      setErrors({ people: issue.message });
      setStep(0);
    } else if (DEVICE_FIELDS.includes(issue.path)) {
      setErrors({ devices: issue.message });
      setStep(1);
    } else if (issue.path === 'scheduleKey') {
      setErrors({ schedule: issue.message });
      setStep(2);
    } else {
      setErrors({ validity: issue.message });
      setStep(2);
    }
  };

  /** What the toast says once a grant is written: how many authorizations are on their way. */
  const granted = (grant: { authorities: number }) =>
    setType === 0
      ? plural(grant.authorities, {
          one: 'Authorized: # authorization is on its way to the device',
          other: 'Authorized: # authorizations are on their way to the devices',
        })
      : plural(grant.authorities, {
          one: 'Added to the blacklist: # entry is on its way to the device',
          other: 'Added to the blacklist: # entries are on their way to the devices',
        });

  // A large grant goes on in the background and is followed below; a small one is done at once.
  const granting = useWrite((body: ValidityBody) => grant(setType, selection, body, scheduleKey), {
    touches: ['authorities'],
    success: (done) => (done.jobKey ? '' : granted(done)),
    onSuccess: (done, body) => {
      if (!done.jobKey) return navigate(listPath);
      setCapacity(null);
      setJob({ jobKey: done.jobKey, done: 0, total: done.authorities, validity: body });
    },
    onError: (failure) => {
      setCapacity(null);
      refused(failure);
    },
  });
  const confirmGrant = (body: ValidityBody) => granting.mutate(body);
  const submitting = checking || granting.isPending;

  const jobKey = job?.jobKey;
  useEffect(() => {
    if (!jobKey) return;
    let stopped = false;
    const follow = async () => {
      while (!stopped) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (stopped) return;
        try {
          const state = await grantJob(jobKey);
          if (stopped) return;
          setJob((current) => current && { ...current, jobKey, done: state.done, total: state.total, failed: state.state === 'failed', error: state.error });
          if (state.state === 'done') {
            notifySuccess(granted({ authorities: state.total }));
            navigate(listPath);
            return;
          }
          if (state.state === 'failed') return;
        } catch {
          // A moment without an answer: ask again.
        }
      }
    };
    void follow();
    return () => {
      stopped = true;
    };
  }, [jobKey, setType, navigate, listPath]);

  const submit = async () => {
    const checked = validityOf(validity, { choose: t`Choose the first and last day`, past: t`The end date cannot be earlier than today` });
    if ('error' in checked) return setErrors({ validity: checked.error });
    setErrors({});
    setChecking(true);
    let check: CapacityCheck;
    try {
      check = await checkCapacity(setType, selection);
    } catch (failure) {
      return refused(failure);
    } finally {
      setChecking(false);
    }
    if (check.devices.some((d) => d.exceeds || (d.bothLists?.count ?? 0) > 0)) return setCapacity({ check, validity: checked.body });
    confirmGrant(checked.body);
  };

  const next = () => {
    if (blocked) return;
    setErrors({});
    setStep((s) => Math.min(2, s + 1) as Step);
  };
  const back = () => {
    setErrors({});
    setStep((s) => Math.max(0, s - 1) as Step);
  };

  const overfilled = capacity?.check.devices.filter((d) => d.exceeds) ?? [];
  const doubled = capacity?.check.devices.filter((d) => (d.bothLists?.count ?? 0) > 0) ?? [];
  /** The people of one device on both lists, by name, with how many more there are. */
  const namesOn = (device: CapacityCheck['devices'][number]): string => {
    const names = device.bothLists?.people.map((p) => p.name) ?? [];
    const others = formatNumber((device.bothLists?.count ?? 0) - names.length);
    return formatList(names.length < (device.bothLists?.count ?? 0) ? [...names, t`${others} more`] : names);
  };

  const counts = {
    people: formatNumber(selection.personKeys.length),
    groups: formatNumber(selection.personGroupKeys.length),
    departments: formatNumber(selection.departmentKeys.length),
    devices: formatNumber(selection.deviceKeys.length),
    deviceGroups: formatNumber(selection.deviceGroupKeys.length),
  };

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="lg">
          <Stepper active={step} size="sm" allowNextStepsSelect={false} onStepClick={(s) => s < step && setStep(s as Step)} data-testid="wizard-stepper">
            <Stepper.Step label={t`Select people`} description={setType === 0 ? t`Who may pass` : t`Who to watch for`} data-testid="wizard-step-0" />
            <Stepper.Step label={t`Select devices`} description={t`Where`} data-testid="wizard-step-1" />
            <Stepper.Step label={t`Validity`} description={t`For how long`} data-testid="wizard-step-2" />
          </Stepper>

          {step === 0 && <PeopleStep value={people} onChange={setPeople} groups={personGroups} departments={departments} error={errors.people ?? null} />}
          {step === 1 && (
            <DevicesStep value={devicesChoice} onChange={setDevicesChoice} devices={devices} groups={deviceGroups} error={errors.devices ?? null} />
          )}
          {step === 2 && (
            <Stack gap="md" data-testid="wizard-validity">
              <ValidityFields
                value={validity}
                onChange={(v) => {
                  setValidity(v);
                  setErrors({});
                }}
                error={errors.validity ?? null}
              />
              {setType === 0 && (
                <ScheduleSelect
                  value={scheduleKey}
                  onChange={(key) => {
                    setScheduleKey(key);
                    setErrors({});
                  }}
                  error={errors.schedule ?? null}
                  testId="wizard-schedule"
                />
              )}
              {setType === 1 && (
                <Alert color="gray" variant="light">
                  <Trans>The devices raise an alert when someone on the blacklist is recognized while the entry is in effect.</Trans>
                </Alert>
              )}
            </Stack>
          )}

          <Paper bg="gray.0" radius="sm" p="sm" data-testid="wizard-summary">
            <Group gap="lg" wrap="wrap">
              <Text size="sm">
                <Trans>
                  People: <b>{counts.people}</b>, whole groups: <b>{counts.groups}</b>, whole departments: <b>{counts.departments}</b>
                </Trans>
              </Text>
              <Text size="sm">
                <Trans>
                  Devices: <b>{counts.devices}</b>, whole device groups: <b>{counts.deviceGroups}</b>
                </Trans>
              </Text>
              {(peopleChosen || devicesChosen) && (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="gray"
                  onClick={() => {
                    setPeople({ people: new Map(), groupKeys: [], departmentKeys: [] });
                    setDevicesChoice({ deviceKeys: new Set(), groupKeys: [] });
                    setStep(0);
                  }}
                >
                  <Trans>Clear the selection</Trans>
                </Button>
              )}
            </Group>
          </Paper>

          <Group justify="space-between" wrap="wrap" gap="sm">
            <Button variant="default" onClick={() => navigate(listPath)} data-testid="wizard-cancel">
              <Trans>Cancel</Trans>
            </Button>
            <Group gap="sm" wrap="wrap" justify="flex-end">
              {blocked && (
                <Text size="sm" c="dimmed" data-testid="wizard-blocked">
                  {blocked}
                </Text>
              )}
              {step > 0 && (
                <Button variant="default" onClick={back} data-testid="wizard-back">
                  <Trans>Previous step</Trans>
                </Button>
              )}
              {step < 2 ? (
                <Button onClick={next} disabled={!!blocked} data-testid="wizard-next">
                  <Trans>Next step</Trans>
                </Button>
              ) : (
                <Button onClick={() => void submit()} loading={submitting} data-testid="wizard-submit">
                  {setType === 0 ? <Trans>Authorize</Trans> : <Trans>Add to blacklist</Trans>}
                </Button>
              )}
            </Group>
          </Group>
        </Stack>
      </Paper>

      <Modal
        opened={!!capacity}
        onClose={() => setCapacity(null)}
        title={
          <Group gap="xs">
            <IconAlertTriangle size={18} color="var(--mantine-color-orange-6)" />
            {overfilled.length > 0 ? <Trans>Some devices would be over capacity</Trans> : <Trans>Some people would be on both lists</Trans>}
          </Group>
        }
        size="lg"
        data-testid="capacity-modal"
      >
        {capacity && (
          <Stack gap="md">
            {doubled.length > 0 && (
              <Alert
                color="red"
                variant="light"
                icon={<IconAlertTriangle size={18} />}
                title={t`On both lists: the blacklist wins`}
                data-testid="both-lists-alert"
              >
                <Stack gap={6}>
                  <Text size="sm">
                    {setType === 0
                      ? t`These people are on the blacklist of the device. The device will refuse them and raise a blacklist alert, whatever pass authority they hold.`
                      : t`These people hold pass authority on the device. Once they are on its blacklist, the device will refuse them and raise a blacklist alert.`}
                  </Text>
                  {doubled.map((d) => (
                    <Text size="sm" key={d.deviceKey} data-testid="both-lists-row" data-key={d.deviceKey}>
                      <b>{d.name}</b>: {namesOn(d)}
                    </Text>
                  ))}
                </Stack>
              </Alert>
            )}
            {overfilled.length > 0 && (
              <Text size="sm">
                <Trans>These devices cannot hold every face of this grant; the faces beyond their capacity will fail to sync.</Trans>
              </Text>
            )}
            {overfilled.length > 0 && (
              <Table withTableBorder verticalSpacing={6} data-testid="capacity-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t`Device`}</Table.Th>
                    <Table.Th ta="end">{t`Faces now`}</Table.Th>
                    <Table.Th ta="end">{t`Adding`}</Table.Th>
                    <Table.Th ta="end">{t`Capacity`}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {overfilled.map((d) => (
                    <Table.Tr key={d.deviceKey} data-testid="capacity-row">
                      <Table.Td>{d.name}</Table.Td>
                      <Table.Td ta="end">{formatNumber(d.authorized)}</Table.Td>
                      <Table.Td ta="end">{formatNumber(d.adding)}</Table.Td>
                      <Table.Td ta="end">
                        <Badge color="red" variant="light">
                          {d.capacity === null ? '—' : formatNumber(d.capacity)}
                        </Badge>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            <Group justify="flex-end">
              <Button
                variant="default"
                onClick={() => {
                  setCapacity(null);
                  setStep(1);
                }}
                data-testid="capacity-back"
              >
                <Trans>Go back to the devices</Trans>
              </Button>
              <Button color="orange" loading={submitting} onClick={() => confirmGrant(capacity.validity)} data-testid="capacity-continue">
                <Trans>Grant anyway</Trans>
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
      <Modal opened={!!job} onClose={() => navigate(listPath)} title={<Trans>Granting</Trans>} size={500} centered data-testid="grant-progress">
        {job && (
          <Stack gap="md">
            <Text size="sm">
              {job.failed ? (
                <span data-testid="grant-failed">
                  {job.error ?? <Trans>The grant stopped before it was complete. What was written stays; grant again to finish it.</Trans>}
                </span>
              ) : (
                <Trans>
                  {formatNumber(job.done)} of {formatNumber(job.total)} authorizations written. You may leave this page; the grant goes on.
                </Trans>
              )}
            </Text>
            <Progress value={job.total ? (100 * job.done) / job.total : 0} color={job.failed ? 'red' : undefined} animated={!job.failed} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => navigate(listPath)} data-testid="grant-progress-close">
                <Trans>Back to the list</Trans>
              </Button>
              {job.failed && (
                <Button loading={submitting} onClick={() => confirmGrant(job.validity)} data-testid="grant-retry">
                  <Trans>Try again</Trans>
                </Button>
              )}
            </Group>
          </Stack>
        )}
      </Modal>
    </ScreenPage>
  );
}
