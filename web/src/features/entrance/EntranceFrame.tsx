import type { ReactNode } from 'react';
import { Box, Button, Container, Group, UnstyledButton } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { Brand } from '../../components/Brand.tsx';
import { LanguageSelect } from '../../components/LanguageSelect.tsx';
import { getToken } from '../../app/session.ts';
import { redirectIn, withRedirect } from '../../app/redirect.ts';
import classes from './Entrance.module.css';

/** Product navigation of the home page; the selected entry is kept locally (default index 1). */
export function EntranceFrame({ children, forceIndex }: { children: ReactNode; forceIndex?: number }) {
  const { t } = useLingui();
  const { search } = useLocation();
  const navigate = useNavigate();
  const [index, setIndex] = useLocalStorage({ key: 'entranceNavIndex', defaultValue: 1 });
  const items = [
    { label: t`Home`, to: '/entrance', section: undefined },
    { label: t`Face access control`, to: '/entrance', section: 'access' },
    { label: t`Smart elevator`, to: '/smart-elevator', section: undefined },
    { label: t`Intercom`, to: '/entrance', section: 'intercom' },
  ];
  const selected = forceIndex ?? index;
  return (
    <Box className={classes.page}>
      <Group justify="space-between" px="lg" py="sm" className={classes.top}>
        <Group gap="xl" wrap="nowrap">
          <Brand />
          <Group gap={4} component="nav" aria-label={t`Products`} wrap="nowrap" visibleFrom="sm">
            {items.map((item, i) => (
              <UnstyledButton
                key={item.label}
                className={classes.nav}
                data-active={i === selected || undefined}
                onClick={() => {
                  setIndex(i);
                  navigate(item.to);
                  if (item.section) setTimeout(() => document.getElementById(item.section!)?.scrollIntoView({ behavior: 'smooth' }), 50);
                }}
              >
                {item.label}
              </UnstyledButton>
            ))}
          </Group>
        </Group>
        <Group gap="xs" wrap="nowrap">
          <LanguageSelect />
          {getToken() ? (
            <Button component={Link} to="/">
              <Trans>Open console</Trans>
            </Button>
          ) : (
            <>
              <Button variant="default" component={Link} to="/register">
                <Trans>Register</Trans>
              </Button>
              <Button component={Link} to={withRedirect('/login', redirectIn(search))}>
                <Trans>Log in</Trans>
              </Button>
            </>
          )}
        </Group>
      </Group>
      <Container size="lg" py={48}>
        {children}
      </Container>
    </Box>
  );
}
