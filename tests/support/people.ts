import { expect } from 'vitest';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import { call } from './api.ts';

/** A POST that must create (201), answering what it made. */
export async function made<T>(token: string, path: string, body: unknown): Promise<T> {
  const answer = await call<T>('POST', path, { token, body });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data;
}

/** Uploads a photo for a person's avatar; answers its file key. */
export async function avatarOf(token: string, image: Uint8Array, fileName = 'face.jpg'): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(image)]), fileName);
  const answer = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data.fileKey;
}

/** An employee of the group, with the avatar given (terminals hold a face only for a person with a photo); answers the key. */
export async function employeeWith(token: string, fields: { name: string; groupKey: string; avatar?: string; personId: string }): Promise<string> {
  const body = { role: 'Staff', gender: 'female', ...fields };
  return (await made<{ employeeKey: string }>(token, '/v1/employees', body)).employeeKey;
}

/** Waits until the cloud has acknowledged every record the terminal sent and their captures are up. */
export async function delivered(agent: DeviceAgent, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (agent.records.pending > 0) {
    if (Date.now() > end) throw new Error(`${agent.records.pending} records not acknowledged`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await agent.records.settled();
}
