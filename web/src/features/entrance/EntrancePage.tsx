import { Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconDeviceDesktop, IconFaceId, IconPhoneCall, IconTemperature } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useLocation } from 'react-router-dom';
import { useTitle } from '../../components/useTitle.ts';
import { EntranceFrame } from './EntranceFrame.tsx';
import { redirectIn, withRedirect } from '../../app/redirect.ts';
import classes from './Entrance.module.css';

export default function EntrancePage() {
  const { t } = useLingui();
  const { search } = useLocation();
  useTitle(t`Home`);
  const features = [
    { id: 'access', icon: IconFaceId, title: t`Face access control`, text: t`Employees and visitors pass by face, IC card or QR code; every pass is recorded with its photo.` },
    { id: 'temperature', icon: IconTemperature, title: t`Temperature measurement`, text: t`Terminals measure body temperature at the door and alert in real time on fever.` },
    { id: 'devices', icon: IconDeviceDesktop, title: t`Device management`, text: t`Bind terminals with your device binding code, configure them remotely and open doors from the console.` },
    { id: 'intercom', icon: IconPhoneCall, title: t`Intercom`, text: t`Manage intercom devices and listen to call recordings.` },
  ];
  return (
    <EntranceFrame>
      <Stack gap="xl">
        <Stack gap="sm" className={classes.hero} maw={640}>
          <Title order={1}>
            <Trans>Access control, attendance and intercom in one cloud console</Trans>
          </Title>
          <Text size="lg" c="gray.3">
            <Trans>Manage people, face terminals, pass rights and attendance for every site from the browser, in 11 languages.</Trans>
          </Text>
          <Group>
            <Button size="md" component={Link} to="/register">
              <Trans>Register a company</Trans>
            </Button>
            <Button size="md" variant="white" component={Link} to={withRedirect('/login', redirectIn(search))}>
              <Trans>Log in</Trans>
            </Button>
          </Group>
        </Stack>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} mt={40}>
          {features.map((f) => (
            <Card key={f.id} id={f.id} withBorder shadow="sm" radius="md" padding="lg">
              <f.icon size={32} color="var(--mantine-color-blue-6)" />
              <Text fw={600} mt="sm">
                {f.title}
              </Text>
              <Text size="sm" c="dimmed" mt={4}>
                {f.text}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      </Stack>
    </EntranceFrame>
  );
}
