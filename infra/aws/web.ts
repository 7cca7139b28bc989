import { Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from './api.ts';

export interface ConsoleSiteProps {
  bucket: Bucket;
  logs: Bucket;
  apiDomainName: string;
}

/**
 * CloudFront in front of the console bucket (origin access control) and the API under `/v1/*`,
 * so the browser sees one origin. Unknown paths fall back to index.html for the SPA router.
 */
export class ConsoleSite extends Construct {
  readonly distribution: Distribution;

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
      },
      additionalBehaviors: {
        '/v1/*': {
          origin: new HttpOrigin(props.apiDomainName),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: headers,
        },
      },
      errorResponses: [403, 404].map((httpStatus) => ({ httpStatus, responseHttpStatus: 200, responsePagePath: '/index.html', ttl: Duration.seconds(10) })),
    });

    const dist = resolve(REPO_ROOT, 'web/dist');
    if (existsSync(resolve(dist, 'index.html'))) {
      new BucketDeployment(this, 'Deploy', {
        sources: [Source.asset(dist)],
        destinationBucket: props.bucket,
        distribution: this.distribution,
        distributionPaths: ['/index.html'],
        memoryLimit: 512,
      });
    }
  }
}
