import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { MAX_POLICY_CHARS, policyLength } from '@passcloud/functions/iot/policy';
import { synthesized } from '../support/synthOutput.ts';

/**
 * CreatePolicy takes a policy document of at most 2,048 characters, whitespace excluded
 * (https://docs.aws.amazon.com/iot/latest/apireference/API_CreatePolicy.html), so a longer
 * AWS::IoT::Policy fails the deploy. The template's are measured as they would be in the region
 * whose IoT ARN prefix is the longest.
 */

const ACCOUNT = '123456789012';
const LONGEST = RegionInfo.regions.reduce((a, b) => (`${b.partition}:iot:${b.name}`.length > `${a.partition}:iot:${a.name}`.length ? b : a));
const PARTITION = LONGEST.partition ?? 'aws';
const LONGEST_PREFIX = `arn:${PARTITION}:iot:${LONGEST.name}:${ACCOUNT}`;
const PSEUDO: Record<string, string> = { 'AWS::Partition': PARTITION, 'AWS::Region': LONGEST.name, 'AWS::AccountId': ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com' };

/** A template value with its pseudo parameters filled in and its joins made; any other intrinsic fails the test. */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  if (entries.length === 1) {
    const [key, arg] = entries[0]!;
    if (key === 'Ref') {
      expect(PSEUDO, `a policy refers to ${String(arg)}`).toHaveProperty([String(arg)]);
      return PSEUDO[String(arg)];
    }
    if (key === 'Fn::Join') {
      const [separator, parts] = arg as [string, unknown[]];
      return parts.map(resolve).join(separator);
    }
    expect(key.startsWith('Fn::'), `a policy uses ${key}`).toBe(false);
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, resolve(v)]));
}

/** The document as deployed in the longest region: every IoT ARN prefix made the longest one. */
const inLongestRegion = (document: unknown): string => JSON.stringify(resolve(document)).replace(/arn:[a-z-]+:iot:[a-z0-9-]+:\d{12}/g, LONGEST_PREFIX);

let policies: [string, { Properties: { PolicyDocument: unknown } }][];

beforeAll(async () => {
  const template = JSON.parse(readFileSync((await synthesized()).templateFile, 'utf8')) as { Resources: Record<string, { Type: string; Properties: { PolicyDocument: unknown } }> };
  policies = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::IoT::Policy');
});

describe('AWS::IoT::Policy', () => {
  it('measures in the longest region there is', () => {
    expect(LONGEST_PREFIX.length).toBeGreaterThan(`arn:aws:iot:ap-southeast-1:${ACCOUNT}`.length);
    expect(policies.length).toBeGreaterThan(0);
  });

  it('is at most 2,048 characters without whitespace in every region', () => {
    for (const [id, policy] of policies) {
      const text = inLongestRegion(policy.Properties.PolicyDocument);
      expect(text, id).toContain(LONGEST_PREFIX);
      expect(policyLength(text), `${id}: ${text}`).toBeLessThanOrEqual(MAX_POLICY_CHARS);
    }
  });
});
