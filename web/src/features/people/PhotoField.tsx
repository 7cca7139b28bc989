import { useState } from 'react';
import { Avatar, Button, FileButton, Progress, Stack, Text } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import type { StoredFile } from '@passcloud/functions/contract/files';
import { RequestError } from '../../app/request.ts';
import { useWrite } from '../../app/queries.ts';
import { uploadPhoto, usePhotoRules } from './api.ts';
import { checkPhoto, photoContentType, type PhotoContentType, type PhotoProblem } from './photoCheck.ts';

/**
 * A person's photo: the preview, the chooser, the upload's progress and the rules it must meet in
 * this company, which its face terminals raise above SPEC's minimum. The server judges the photo
 * by them and names the terminals that could not enrol it; that answer is what is shown.
 */
export function PhotoField({ preview, onUploaded, onBusy }: { preview: string | null; onUploaded(uploaded: StoredFile): void; onBusy(busy: boolean): void }) {
  const { t } = useLingui();
  const rules = usePhotoRules().data;
  const [photoError, setPhotoError] = useState<string | null>(null);
  /** The photo on its way to storage, in percent. */
  const [upload, setUpload] = useState<{ percent: number } | null>(null);

  const photoMessages: Record<PhotoProblem, string> = {
    type: t`Choose a JPG or PNG image`,
    size: t`The photo must be at most 5 MB`,
    small: t`The photo must be at least 640 × 480 pixels`,
    large: t`The photo must be at most 4096 × 2688 pixels`,
    unreadable: t`This image cannot be read`,
  };

  // The photo goes to storage with its progress; the saved person takes it only when saved.
  const uploading = useWrite(
    ({ file, contentType }: { file: File; contentType: PhotoContentType }) => uploadPhoto(file, contentType, (percent) => setUpload({ percent })),
    {
      onSuccess: onUploaded,
      onError: (error) => setPhotoError(error instanceof RequestError ? (error.issues[0]?.message ?? error.message) : t`The photo could not be uploaded`),
    },
  );
  const choosePhoto = async (file: File | null) => {
    if (!file) return;
    setPhotoError(null);
    const problem = await checkPhoto(file);
    // Below SPEC's minimum where terminals raise it: the server's answer names the terminals.
    if (problem && !(problem === 'small' && rules?.terminalCount)) {
      setPhotoError(photoMessages[problem]);
      return;
    }
    const contentType = await photoContentType(file);
    if (!contentType) return setPhotoError(photoMessages.type);
    setUpload({ percent: 0 });
    onBusy(true);
    uploading.mutate(
      { file, contentType },
      {
        onSettled: () => {
          setUpload(null);
          onBusy(false);
        },
      },
    );
  };

  const min = `${rules?.minWidth ?? 640} × ${rules?.minHeight ?? 480}`;
  const named = rules?.terminals.map((d) => d.name).join(', ') ?? '';
  const more = (rules?.terminalCount ?? 0) - (rules?.terminals.length ?? 0);
  return (
    <Stack align="center" gap="xs">
      <Avatar src={preview} size={140} radius="md" alt={t`Photo`} data-testid="photo-preview" />
      <FileButton onChange={(f) => void choosePhoto(f)} accept="image/png,image/jpeg">
        {(props) => (
          <Button {...props} variant="light" loading={!!upload} data-testid="photo-button">
            <Trans>Choose photo</Trans>
          </Button>
        )}
      </FileButton>
      {upload && (
        <Stack gap={4} w="100%" data-testid="photo-progress">
          <Text size="xs" c="dimmed" ta="center">
            <Trans>Uploading the file… {upload.percent}%</Trans>
          </Text>
          <Progress value={upload.percent} size="sm" />
        </Stack>
      )}
      <Text size="xs" c="dimmed" ta="center" data-testid="photo-hint">
        <Trans>JPG or PNG, at most 5 MB, {min} to 4096 × 2688 pixels, the face at least a third of the photo.</Trans>
      </Text>
      {rules && rules.terminalCount > 0 && (
        <Text size="xs" c="dimmed" ta="center" data-testid="photo-terminals">
          {more > 0 ? (
            <Trans>
              Your terminals {named} and {more} more need at least {min} pixels to enrol a face.
            </Trans>
          ) : (
            <Trans>
              Your terminals {named} need at least {min} pixels to enrol a face.
            </Trans>
          )}
        </Text>
      )}
      {photoError && (
        <Text size="sm" c="red" role="alert">
          {photoError}
        </Text>
      )}
    </Stack>
  );
}
