import { Box, Checkbox, Input, Stack, Text } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';
import { AUTH_CODES, type AuthCode } from '@passcloud/functions/contract/menu';
import { menuTitle } from '../../app/menuTitles.ts';
import { permissionTree, type PermissionNode } from './api.ts';

const TREE = permissionTree();

interface Props {
  value: AuthCode[];
  onChange: (codes: AuthCode[]) => void;
  /** Codes the signed-in account holds: nobody grants more than it has. */
  grantable: ReadonlySet<string>;
  /** Codes that cannot be taken away (the owner keeps account management). */
  locked?: ReadonlySet<string>;
  disabled?: boolean;
  error?: string | null;
}

/**
 * Permissions as the menu tree, with the menu's own titles: checking a branch checks every screen
 * under it, and a branch shows as partly checked while only some are.
 */
export function PermissionTree({ value, onChange, grantable, locked = new Set(), disabled, error }: Props) {
  const { t } = useLingui();
  const chosen = new Set<string>(value);

  const toggle = (node: PermissionNode, on: boolean) => {
    const next = new Set<string>(chosen);
    for (const code of node.codes) {
      if (!grantable.has(code)) continue;
      if (on) next.add(code);
      else if (!locked.has(code)) next.delete(code);
    }
    onChange(AUTH_CODES.filter((code) => next.has(code)));
  };

  const render = (node: PermissionNode, depth: number) => {
    const held = node.codes.filter((code) => chosen.has(code)).length;
    const mine = node.codes.some((code) => grantable.has(code));
    const label = node.titles.map(menuTitle).join(' / ');
    return (
      <Box key={node.id} pl={depth * 24}>
        <Checkbox
          label={label}
          checked={held === node.codes.length}
          indeterminate={held > 0 && held < node.codes.length}
          disabled={disabled || !mine || node.codes.every((code) => locked.has(code) && chosen.has(code))}
          title={mine ? undefined : t`Your account does not hold this permission, so it cannot grant it`}
          onChange={(event) => toggle(node, event.currentTarget.checked)}
          data-testid={`permission-${node.id}`}
          py={4}
        />
        {node.children.map((child) => render(child, depth + 1))}
      </Box>
    );
  };

  return (
    <Input.Wrapper label={t`Permissions`} required error={error} description={t`Checking an entry checks everything under it.`}>
      <Stack gap={0} mt="xs" data-testid="permission-tree" role="group" aria-label={t`Permissions`}>
        {TREE.map((node) => render(node, 0))}
        {value.length === 0 && (
          <Text size="xs" c="dimmed" mt={4}>
            {t`No permission chosen yet.`}
          </Text>
        )}
      </Stack>
    </Input.Wrapper>
  );
}
