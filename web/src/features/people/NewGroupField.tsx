import { useState } from 'react';
import { Button, Group, Paper, Stack, TextInput } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { queryClient, showFailure, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { groupsKey, type Group as PersonGroup, type Kind } from './api.ts';

/**
 * A group made in place, without leaving the form: its name, then POST /v1/groups of this kind;
 * the new group is chosen. A refusal (a name already taken answers 409 naming it) shows on the name.
 */
export function NewGroupField({ kind, onCreated, onCancel }: { kind: Kind; onCreated: (group: PersonGroup) => void; onCancel: () => void }) {
  const { t } = useLingui();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  // The new group joins the form's group choices from the answer, and is chosen; the pickers elsewhere read it when next shown.
  const adding = useWrite((groupName: string) => api.post<PersonGroup>('/v1/groups', { name: groupName, type: kind }, { silent: true }), {
    touches: ['pickers'],
    success: t`Added`,
    onSuccess: (group) => {
      queryClient.setQueryData<PersonGroup[]>(groupsKey(kind), (groups = []) => [...groups.filter((g) => g.groupKey !== group.groupKey), group]);
      onCreated(group);
    },
    onError: (failure) => {
      if (failure instanceof RequestError) setError(failure.issues.find((issue) => issue.path === 'name')?.message ?? failure.message);
      else showFailure(failure);
    },
  });

  const create = () => {
    if (!name.trim()) return setError(t`Enter the group name`);
    setError(null);
    adding.mutate(name.trim());
  };

  return (
    <Paper withBorder radius="sm" p="xs" mt="xs" data-testid="new-group">
      <Stack gap="xs">
        <TextInput
          aria-label={t`New group name`}
          placeholder={t`New group name`}
          size="xs"
          autoFocus
          maxLength={64}
          value={name}
          onChange={(e) => {
            setName(e.currentTarget.value);
            setError(null);
          }}
          onKeyDown={(e) => {
            // Enter creates the group, not the person; Escape leaves the field.
            if (e.key === 'Enter') {
              e.preventDefault();
              create();
            } else if (e.key === 'Escape') onCancel();
          }}
          error={error}
          data-testid="inline-group-name"
        />
        <Group justify="flex-end" gap="xs">
          <Button size="xs" variant="default" onClick={onCancel}>
            <Trans>Cancel</Trans>
          </Button>
          <Button size="xs" loading={adding.isPending} onClick={create}>
            <Trans>Create</Trans>
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
