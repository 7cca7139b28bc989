import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Stack, Tabs, Text } from '@mantine/core';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { plural } from '@lingui/core/macro';
import { DEFAULT_SETTINGS, SETTING_SECTIONS, type DeviceSettings, type SettingName } from '@passcloud/functions/contract/devices';
import { api } from '../../app/api.ts';
import { showFailure, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { SECTION_NAMES, SettingsSection, useSettingTexts, type SectionName } from './settings.tsx';
import classes from './DeviceDetailPage.module.css';

/** Picks settings in the detail screen's sections and applies them to every selected device. */
export function BatchSettingsModal({ deviceKeys, opened, onClose }: { deviceKeys: string[]; opened: boolean; onClose: () => void }) {
  const { t } = useLingui();
  const texts = useSettingTexts();
  const [values, setValues] = useState<DeviceSettings>(DEFAULT_SETTINGS);
  const [included, setIncluded] = useState<Set<SettingName>>(new Set());
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [tab, setTab] = useState<SectionName>('temperature');
  const [problem, setProblem] = useState<string | null>(null);

  const close = () => {
    setIncluded(new Set());
    setValues(DEFAULT_SETTINGS);
    setErrors({});
    setProblem(null);
    onClose();
  };

  const include = (name: SettingName, on: boolean) => {
    const next = new Set(included);
    if (on) next.add(name);
    else next.delete(name);
    setIncluded(next);
  };

  const chosen = (): Partial<DeviceSettings> => Object.fromEntries([...included].map((name) => [name, values[name]]));

  const send = useWrite(
    (settings: Partial<DeviceSettings>) => api.post<{ updated: number }>('/v1/devices/batchSettings', { deviceKeys, settings }, { silent: true }),
    {
      touches: ['devices'],
      success: ({ updated }) => plural(updated, { one: 'Settings sent to # device', other: 'Settings sent to # devices' }),
      onSuccess: close,
      // The problems the server names go to their settings; the rest shows above the buttons.
      onError: (error) => {
        if (error instanceof RequestError && error.issues.length) {
          const fields: Record<string, string> = {};
          for (const issue of error.issues) fields[issue.path.replace(/^settings\./, '')] = issue.message;
          setErrors(fields);
          setProblem(error.issues.find((i) => !i.path.startsWith('settings.'))?.message ?? null);
        } else if (error instanceof RequestError) setProblem(error.message);
        else showFailure(error);
      },
    },
  );

  const apply = () => {
    setProblem(null);
    const settings = chosen();
    const found = texts.validate(settings);
    setErrors(found);
    const first = SECTION_NAMES.find((s) => (SETTING_SECTIONS[s] as readonly SettingName[]).some((n) => found[n]));
    if (first) setTab(first);
    else send.mutate(settings);
  };

  const count = deviceKeys.length;
  const chosenCount = included.size;
  return (
    <Modal opened={opened} onClose={close} title={t`Batch configuration`} size="xl" data-testid="batch-settings">
      <Stack>
        <Text size="sm" c="dimmed">
          <Plural
            value={count}
            one="Tick the settings to apply to the selected device; the others stay as they are."
            other="Tick the settings to apply to the # selected devices; the others stay as they are on each device."
          />
        </Text>
        <Tabs
          value={tab}
          onChange={(v) => v && setTab(v as SectionName)}
          orientation="vertical"
          classNames={{ list: classes.tabList, tab: classes.tab, tabLabel: classes.tabLabel, panel: classes.tabPanel }}
        >
          <Tabs.List>
            {SECTION_NAMES.map((section) => {
              const picked = (SETTING_SECTIONS[section] as readonly SettingName[]).filter((n) => included.has(n)).length;
              return (
                <Tabs.Tab
                  key={section}
                  value={section}
                  rightSection={
                    picked ? (
                      <Badge size="xs" circle>
                        {picked}
                      </Badge>
                    ) : undefined
                  }
                >
                  {texts.sections[section]}
                </Tabs.Tab>
              );
            })}
          </Tabs.List>
          {SECTION_NAMES.map((section) => (
            <Tabs.Panel key={section} value={section}>
              <SettingsSection
                section={section}
                values={values}
                onChange={(name, value) => {
                  setValues({ ...values, [name]: value });
                  if (!included.has(name)) include(name, true);
                }}
                errors={errors}
                texts={texts}
                included={included}
                onInclude={include}
              />
            </Tabs.Panel>
          ))}
        </Tabs>
        {problem && (
          <Alert color="red" variant="light">
            {problem}
          </Alert>
        )}
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            <Plural value={chosenCount} one="# setting chosen" other="# settings chosen" />
          </Text>
          <Group gap="xs">
            <Button variant="default" onClick={close}>
              <Trans>Cancel</Trans>
            </Button>
            <Button onClick={apply} loading={send.isPending} disabled={included.size === 0} data-testid="batch-apply">
              <Plural value={count} one="Apply to # device" other="Apply to # devices" />
            </Button>
          </Group>
        </Group>
      </Stack>
    </Modal>
  );
}
