import { afterEach, describe, expect, it } from 'vitest';
import { termsAnswer } from '@passcloud/functions/contract/systems';
import { defineResource, ok, publicRoute, type HttpEvent } from '@passcloud/functions/lib/http';
import { systems } from '@passcloud/functions/resources/systems';

/**
 * A handler's declared answer (lib/http.ts `answer`) is what the OpenAPI document publishes; on
 * the local host and in the tests (`ANSWER_CHECK=1`) an answer that strays from it fails with 500,
 * so a drift between the code and the document fails a test instead of reaching an integrator.
 */

const event = (): HttpEvent =>
  ({
    rawPath: '/v1/systems/terms',
    headers: { 'accept-language': 'en_US' },
    requestContext: { http: { method: 'GET', sourceIp: '127.0.0.1' }, requestId: 'answers-test' },
    isBase64Encoded: false,
  }) as unknown as HttpEvent;

/** The systems resource with its terms answering `data`. */
const answering = (data: unknown) =>
  defineResource('systems', {
    ...systems.handlers,
    'GET /v1/systems/terms': publicRoute({ answer: termsAnswer, handle: async () => ok(data as never) }),
  } as never);

afterEach(() => {
  delete process.env.ANSWER_CHECK;
});

describe('declared answers', () => {
  it('pass when the data is what the contract says', async () => {
    process.env.ANSWER_CHECK = '1';
    const answer = await answering({ locale: 'en_US', title: 'Terms', content: 'Text' }).handler(event());
    expect(answer.statusCode).toBe(200);
  });

  it('fail with 500 where answers are checked, naming nothing of the internals to the caller', async () => {
    process.env.ANSWER_CHECK = '1';
    const answer = await answering({ locale: 'en_US', title: 42 }).handler(event());
    expect(answer.statusCode).toBe(500);
    expect(String(answer.body)).not.toMatch(/title|contract/);
  });

  it('are not checked on AWS, where ANSWER_CHECK is never set', async () => {
    const answer = await answering({ locale: 'en_US', title: 42 }).handler(event());
    expect(answer.statusCode).toBe(200);
  });
});
