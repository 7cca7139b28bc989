import { useEffect, useRef, useState } from 'react';
import { Button, Grid, Group, Input, Loader, Paper, SegmentedControl, Select, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate, useParams } from 'react-router-dom';
import { api } from '../../app/api.ts';
import { RequestError } from '../../app/request.ts';
import { showFailure, useItem, useWrite } from '../../app/queries.ts';
import { getAuthorities } from '../../app/session.ts';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { basePath, flattenDepartments, keyOf, screens, useDepartments, useGroups, type Group as PersonGroup, type Kind, type Person } from './api.ts';
import { PhotoField } from './PhotoField.tsx';
import { SyncStatePanel } from '../passage/authorities/SyncStatePanel.tsx';
import { EraseDialog } from './EraseDialog.tsx';
import { NewGroupField } from './NewGroupField.tsx';
import { RecentPasses } from '../passage/records/RecentPasses.tsx';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The last entry of the Group dropdown: not a group, it opens the inline "new group" field. */
const CREATE_GROUP = '#create-group';

interface Values {
  personId: string;
  name: string;
  role: string;
  gender: 'male' | 'female';
  groupKey: string | null;
  departmentKey: string | null;
  attendanceGroupKey: string | null;
  phone: string;
  email: string;
  icCard: string;
  remark: string;
  avatar: string | null;
  needsAttendance: boolean;
  remoteDoorOpen: boolean;
}

const EMPTY: Values = {
  personId: '',
  name: '',
  role: '',
  gender: 'male',
  groupKey: null,
  departmentKey: null,
  attendanceGroupKey: null,
  phone: '',
  email: '',
  icCard: '',
  remark: '',
  avatar: null,
  needsAttendance: false,
  remoteDoorOpen: false,
};

/** Create (no key in the path) or view and edit one employee or visitor. */
export function PersonFormPage({ kind }: { kind: Kind }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const params = useParams();
  const key = params.employeeKey ?? params.visitorKey;
  const read = useItem<Person>({ resource: 'people', path: `${basePath(kind)}/${key}`, enabled: !!key });
  const person = read.item;
  const groups = useGroups(kind).data ?? [];
  const departments = useDepartments(kind === 'employee').data ?? [];
  // The attendance group is chosen here by those who see attendance; the group screens move staff too.
  const seesAttendance = getAuthorities().some((code) => code === 'pass:attendance-settings' || code === 'pass:attendance-statistics');
  const attendanceGroups = useQuery({
    queryKey: ['attendanceGroups', 'names'],
    queryFn: () => api.get<{ items: { attendanceGroupKey: string; name: string }[] }>('/v1/attendance/groupNames').then((p) => p.items),
    enabled: kind === 'employee' && seesAttendance,
  });
  const [preview, setPreview] = useState<string | null>(null);
  /** A photo is on its way to storage: saving waits for it. */
  const [uploading, setUploading] = useState(false);
  const [erasing, setErasing] = useState(false);
  const [erased, setErased] = useState(false);

  const form = useForm<Values>({
    mode: 'controlled',
    validateInputOnBlur: true,
    initialValues: EMPTY,
    validate: {
      personId: (v) => (v.trim() ? null : t`Enter the personnel ID`),
      name: (v) => (v.trim() ? null : t`Enter the name`),
      role: (v) => (v.trim() ? null : t`Enter the role`),
      groupKey: (v) => (v ? null : t`Choose a group`),
      email: (v) => (!v.trim() || EMAIL.test(v.trim()) ? null : t`Enter the email in the correct format`),
    },
  });

  const groupInput = form.getInputProps('groupKey');
  const [creatingGroup, newGroup] = useDisclosure(false);
  const groupCreated = (group: PersonGroup) => {
    form.setFieldValue('groupKey', group.groupKey);
    newGroup.close();
  };

  // The person read fills the form, and so does each later reading while nothing is being edited.
  const editing = useRef(false);
  editing.current = form.isDirty();
  useEffect(() => {
    const p = person;
    if (!p || editing.current) return;
    setPreview(p.avatarUrl);
    form.setValues({
      personId: p.personId,
      name: p.name,
      role: p.role,
      gender: p.gender,
      groupKey: p.groupKey,
      departmentKey: p.departmentKey ?? null,
      attendanceGroupKey: p.attendanceGroupKey ?? null,
      phone: p.phone ?? '',
      email: p.email ?? '',
      icCard: p.icCard ?? '',
      remark: p.remark ?? '',
      avatar: p.avatar,
      needsAttendance: p.needsAttendance ?? false,
      remoteDoorOpen: p.remoteDoorOpen ?? false,
    });
    form.resetDirty();
  }, [person]); // The form object is stable.

  // The problems the server names go to their fields; anything else to the toast.
  const refused = (error: unknown) => {
    if (error instanceof RequestError && error.issues.length) for (const issue of error.issues) form.setFieldError(issue.path, issue.message);
    else showFailure(error);
  };
  // A new photo or name goes to the devices: the lists and the sync panel follow.
  const update = useWrite(
    (body: Record<string, unknown>) => api.patch<Person>(`${basePath(kind)}/${keyOf(person!)}`, { ...body, version: person!.version }, { silent: true }),
    {
      touches: ['people', 'authorities'],
      onSuccess: (saved) => {
        form.resetDirty();
        read.put(saved);
      },
      success: t`Saved`,
      onError: refused,
    },
  );
  const create = useWrite((body: Record<string, unknown>) => api.post<Person>(basePath(kind), body, { silent: true }), {
    touches: ['people'],
    success: t`Added`,
    onSuccess: () => navigate(screens(kind).list),
    onError: refused,
  });

  const submit = form.onSubmit((values) => {
    const body: Record<string, unknown> = {
      personId: values.personId.trim(),
      name: values.name.trim(),
      role: values.role.trim(),
      gender: values.gender,
      groupKey: values.groupKey,
      phone: values.phone.trim(),
      email: values.email.trim(),
      icCard: values.icCard.trim(),
      remark: values.remark.trim(),
    };
    if (values.avatar) body.avatar = values.avatar;
    if (kind === 'employee')
      Object.assign(body, { departmentKey: values.departmentKey ?? '', needsAttendance: values.needsAttendance, remoteDoorOpen: values.remoteDoorOpen });
    if (kind === 'employee' && seesAttendance) body.attendanceGroupKey = values.attendanceGroupKey ?? '';
    if (person) return update.mutate(body);
    for (const name of ['phone', 'email', 'icCard', 'remark', 'departmentKey', 'attendanceGroupKey'] as const) if (!body[name]) delete body[name];
    create.mutate(body);
  });

  if (read.isError && !person) {
    return (
      <ScreenPage>
        <Paper withBorder p="xl" radius="md">
          <Text c="dimmed">
            <Trans>This person does not exist or was deleted.</Trans>
          </Text>
        </Paper>
      </ScreenPage>
    );
  }
  if (key && !person) {
    return (
      <ScreenPage>
        <Loader />
      </ScreenPage>
    );
  }

  return (
    <ScreenPage>
      {erasing && person && (
        <EraseDialog
          kind={kind}
          person={person}
          onClose={() => {
            setErasing(false);
            // Once erased, the person is gone: back to the list.
            if (erased) navigate(screens(kind).list);
          }}
          onErased={() => setErased(true)}
        />
      )}
      <Paper withBorder p="lg" radius="md">
        <form onSubmit={submit} noValidate>
          <Grid gap="lg">
            <Grid.Col span={{ base: 12, md: 3 }}>
              <PhotoField
                preview={preview}
                onBusy={setUploading}
                onUploaded={(uploaded) => {
                  form.setFieldValue('avatar', uploaded.fileKey);
                  setPreview(uploaded.url);
                }}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 9 }}>
              <Grid>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <TextInput label={t`Personnel ID`} required {...form.getInputProps('personId')} />
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <TextInput label={t`Name`} required {...form.getInputProps('name')} />
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <TextInput label={t`Role`} required {...form.getInputProps('role')} />
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <Input.Wrapper label={t`Gender`} labelElement="div" required>
                    <SegmentedControl
                      display="flex"
                      data={[
                        { value: 'male', label: t`Male` },
                        { value: 'female', label: t`Female` },
                      ]}
                      {...form.getInputProps('gender')}
                    />
                  </Input.Wrapper>
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <Select
                    label={t`Group`}
                    required
                    data={[...groups.map((g) => ({ value: g.groupKey, label: g.name })), { value: CREATE_GROUP, label: t`Create a group` }]}
                    renderOption={({ option }) =>
                      option.value === CREATE_GROUP ? (
                        <Group gap={6} c="blue" wrap="nowrap">
                          <IconPlus size={14} />
                          {option.label}
                        </Group>
                      ) : (
                        option.label
                      )
                    }
                    {...groupInput}
                    onChange={(value) => (value === CREATE_GROUP ? newGroup.open() : groupInput.onChange(value))}
                    data-testid="group-select"
                  />
                  {creatingGroup && <NewGroupField kind={kind} onCreated={groupCreated} onCancel={newGroup.close} />}
                </Grid.Col>
                {kind === 'employee' && (
                  <Grid.Col span={{ base: 12, sm: 6 }}>
                    <Select
                      label={t`Department`}
                      clearable
                      data={flattenDepartments(departments).map(({ department, depth }) => ({
                        value: department.departmentKey,
                        label: `${'— '.repeat(depth)}${department.name}`,
                      }))}
                      {...form.getInputProps('departmentKey')}
                    />
                  </Grid.Col>
                )}
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <TextInput label={t`Phone`} {...form.getInputProps('phone')} />
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <TextInput label={t`Email`} type="email" {...form.getInputProps('email')} />
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <TextInput label={t`IC card number`} {...form.getInputProps('icCard')} />
                </Grid.Col>
                {kind === 'employee' && seesAttendance && (
                  <Grid.Col span={{ base: 12, sm: 6 }}>
                    <Select
                      label={t`Attendance group`}
                      clearable
                      placeholder={t`None`}
                      data={(attendanceGroups.data ?? []).map((g) => ({ value: g.attendanceGroupKey, label: g.name }))}
                      {...form.getInputProps('attendanceGroupKey')}
                      onChange={(key) => {
                        // Someone in an attendance group needs attendance: choosing a group switches it on.
                        form.setFieldValue('attendanceGroupKey', key);
                        if (key) form.setFieldValue('needsAttendance', true);
                      }}
                      data-testid="attendance-group-select"
                    />
                  </Grid.Col>
                )}
                {kind === 'employee' && (
                  <Grid.Col span={{ base: 12, sm: 6 }}>
                    <Stack gap="xs" pt={24}>
                      <Switch
                        label={t`Needs attendance`}
                        {...form.getInputProps('needsAttendance', { type: 'checkbox' })}
                        onChange={(event) => {
                          // Turning it off takes the employee out of their attendance group.
                          form.setFieldValue('needsAttendance', event.currentTarget.checked);
                          if (!event.currentTarget.checked && seesAttendance) form.setFieldValue('attendanceGroupKey', null);
                        }}
                        data-testid="needs-attendance"
                      />
                      <Switch label={t`May open doors remotely`} {...form.getInputProps('remoteDoorOpen', { type: 'checkbox' })} />
                    </Stack>
                  </Grid.Col>
                )}
                <Grid.Col span={12}>
                  <Textarea label={t`Remark`} autosize minRows={2} maxLength={500} {...form.getInputProps('remark')} />
                </Grid.Col>
              </Grid>
              {person?.state === 'resigned' && (
                <Text c="orange" size="sm" mt="sm">
                  <Trans>This employee has resigned.</Trans>
                </Text>
              )}
              <Group justify="flex-end" mt="lg">
                {person && (
                  <Button variant="subtle" color="red" mr="auto" onClick={() => setErasing(true)} data-testid="erase-person">
                    <Trans>Erase</Trans>
                  </Button>
                )}
                <Button variant="default" onClick={() => navigate(screens(kind).list)}>
                  <Trans>Back</Trans>
                </Button>
                <Button type="submit" loading={update.isPending || create.isPending} disabled={uploading}>
                  <Trans>Save</Trans>
                </Button>
              </Group>
            </Grid.Col>
          </Grid>
        </form>
      </Paper>
      {person && <SyncStatePanel personKey={keyOf(person)} />}
      {person && <RecentPasses filter={{ personKey: keyOf(person) }} />}
    </ScreenPage>
  );
}
