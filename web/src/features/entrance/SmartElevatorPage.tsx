import { Card, List, Stack, Text, Title } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { useTitle } from '../../components/useTitle.ts';
import { EntranceFrame } from './EntranceFrame.tsx';
import classes from './Entrance.module.css';

export default function SmartElevatorPage() {
  const { t } = useLingui();
  useTitle(t`Smart elevator`);
  return (
    <EntranceFrame forceIndex={2}>
      <Stack gap="lg">
        <Stack gap="sm" className={classes.hero} maw={640}>
          <Title order={1}>
            <Trans>Smart elevator</Trans>
          </Title>
          <Text size="lg" c="gray.3">
            <Trans>Face terminals in the lift lobby and the car call only the floors a person may visit.</Trans>
          </Text>
        </Stack>
        <Card withBorder shadow="sm" radius="md" padding="lg" mt={40} maw={640}>
          <List spacing="sm">
            <List.Item>{t`Floors follow the passage authority of each employee and visitor.`}</List.Item>
            <List.Item>{t`Visitors reach only the floor of the person they visit, for the time of their visit.`}</List.Item>
            <List.Item>{t`Every ride is recorded with the photo taken at the terminal.`}</List.Item>
          </List>
        </Card>
      </Stack>
    </EntranceFrame>
  );
}
