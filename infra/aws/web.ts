import { Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from './api.ts';

/** The header through which the API knows a request came through CloudFront (functions/lib/http.ts). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/**
 * Viewer-request function of the console behaviour: a path whose last segment has no file
 * extension is a route of the SPA router, so S3 is asked for index.html instead. Files keep their
 * path, so a missing chunk or template answers its own error rather than a page of HTML.
 */
export const SPA_FALLBACK_CODE = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.indexOf('/assets/') !== 0 && !/\\.[^/]*$/.test(uri)) request.uri = '/index.html';
  return request;
}
`;

export interface ConsoleSiteProps {
  bucket: Bucket;
  logs: Bucket;
  apiDomainName: string;
  /** Value CloudFront sends in `x-origin-verify` to the API (a Secrets Manager dynamic reference). */
  originVerify: string;
}

/**
 * CloudFront in front of the console bucket (origin access control) and the API under `/v1/*`,
 * so the browser sees one origin. Console routes fall back to index.html in a CloudFront Function
 * of the console behaviour only: API errors reach the console as they are.
 */
export class ConsoleSite extends Construct {
  readonly distribution: Distribution;
  readonly spaFallback: EdgeFunction;
  /** The uploads of the built console, when web/dist exists: hashed chunks, then the root files. */
  readonly deployments: BucketDeployment[] = [];

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy:
            "default-src 'self'; img-src 'self' data: blob: https://*.amazonaws.com; connect-src 'self' https://*.amazonaws.com wss://*.amazonaws.com; style-src 'self' 'unsafe-inline'; script-src 'self'; font-src 'self' data:; media-src 'self' https://*.amazonaws.com; frame-ancestors 'none'; base-uri 'self'; object-src 'none'",
          override: true,
        },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, preload: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
      },
    });
    this.spaFallback = new EdgeFunction(this, 'SpaFallback', {
      code: FunctionCode.fromInline(SPA_FALLBACK_CODE),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Pass Cloud console: routes without a file extension load index.html',
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Pass Cloud console',
      defaultRootObject: 'index.html',
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: props.logs,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(props.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        compress: true,
        functionAssociations: [{ function: this.spaFallback, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/v1/*': {
          // The API answers only requests that carry the secret (and only then trusts CloudFront-Viewer-Address);
          // CloudFront overwrites a header of that name sent by the viewer.
          origin: new HttpOrigin(props.apiDomainName, { customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originVerify } }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          // Every viewer header but Host (API Gateway routes by its own host name), plus CloudFront's
          // viewer headers, CloudFront-Viewer-Address among them: the address the login throttle counts.
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: headers,
        },
      },
    });

    const dist = resolve(REPO_ROOT, 'web/dist');
    if (existsSync(resolve(dist, 'index.html'))) {
      // Chunks are named by their hash, so they never change; old ones stay (no prune) because a
      // browser holding the previous index.html still asks for them.
      const assets = new BucketDeployment(this, 'DeployAssets', {
        sources: [Source.asset(resolve(dist, 'assets'))],
        destinationBucket: props.bucket,
        destinationKeyPrefix: 'assets/',
        cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
        prune: false,
        memoryLimit: 512,
      });
      // index.html and the other root files: revalidated on every load, uploaded once the chunks they name are there.
      const root = new BucketDeployment(this, 'Deploy', {
        sources: [Source.asset(dist, { exclude: ['assets', 'assets/**'] })],
        destinationBucket: props.bucket,
        cacheControl: [CacheControl.noCache()],
        prune: false,
        distribution: this.distribution,
        distributionPaths: ['/index.html'],
        memoryLimit: 512,
      });
      root.node.addDependency(assets);
      this.deployments.push(assets, root);
    }
  }
}
