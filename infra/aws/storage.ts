import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type BucketProps } from 'aws-cdk-lib/aws-s3';
import { AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { TABLES, type TableDef } from '@passcloud/functions/data/tables';
import { BUCKETS, type BucketName } from '@passcloud/functions/lib/storage';

/** The DynamoDB tables of `functions/data/tables.ts`: on demand, point-in-time recovery, TTL. */
export class Tables extends Construct {
  readonly byEnv: Record<string, Table> = {};

  constructor(scope: Construct, id: string) {
    super(scope, id);
    for (const def of TABLES) this.byEnv[def.env] = this.table(def);
  }

  private table(def: TableDef): Table {
    const table = new Table(this, def.defaultName.replace(/^passcloud-/, ''), {
      partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
      sortKey: { name: def.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: def.ttlAttribute,
      removalPolicy: RemovalPolicy.RETAIN,
      ...(def.appendOnly ? { resourcePolicy: appendOnlyPolicy() } : {}),
    });
    for (const index of def.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      });
    }
    return table;
  }

  environment(): Record<string, string> {
    return Object.fromEntries(Object.entries(this.byEnv).map(([env, table]) => [env, table.tableName]));
  }
}

/** Actions that change or remove an item. */
export const ITEM_CHANGES = ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'];

/**
 * Nobody, whatever their IAM grants, changes or removes an item of the table; TTL expiry is
 * DynamoDB's own and not subject to it. (A table's own policy names the table as `*`.)
 */
function appendOnlyPolicy(): PolicyDocument {
  return new PolicyDocument({
    statements: [new PolicyStatement({ sid: 'AppendOnly', effect: Effect.DENY, principals: [new AnyPrincipal()], actions: ITEM_CHANGES, resources: ['*'] })],
  });
}

/** Private, encrypted, TLS-only buckets; every object key starts with the tenant id. */
export class Buckets extends Construct {
  readonly logs: Bucket;
  readonly data: Record<BucketName, Bucket>;
  readonly web: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const secure: BucketProps = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    };
    this.logs = new Bucket(this, 'Logs', {
      ...secure,
      // CloudFront standard logs are delivered with ACLs.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });
    const logged = (prefix: string): BucketProps => ({ ...secure, serverAccessLogsBucket: this.logs, serverAccessLogsPrefix: `s3/${prefix}/` });
    this.data = {
      photos: new Bucket(this, 'Photos', logged('photos')),
      // Captures stay in S3 Standard: they are under 128 KB, and Standard-IA charges every object as
      // at least 128 KB and 30 days (https://aws.amazon.com/s3/pricing/), so moving them would cost more.
      captures: new Bucket(this, 'Captures', { ...logged('captures'), lifecycleRules: [{ id: 'captures-expire', expiration: Duration.days(180) }] }),
      recordings: new Bucket(this, 'Recordings', { ...logged('recordings'), lifecycleRules: [{ id: 'recordings-expire', expiration: Duration.days(365) }] }),
      // Versioned, so an overwritten or removed package can be restored for 30 days; older versions go.
      packages: new Bucket(this, 'Packages', {
        ...logged('packages'),
        versioned: true,
        lifecycleRules: [{ id: 'packages-old-versions', noncurrentVersionExpiration: Duration.days(30), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      }),
      // The import worker removes each file when done; files never imported go after two days.
      imports: new Bucket(this, 'Imports', {
        ...logged('imports'),
        lifecycleRules: [{ id: 'imports-expire', expiration: Duration.days(2), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      }),
    };
    this.web = new Bucket(this, 'Console', { ...logged('console'), removalPolicy: RemovalPolicy.DESTROY, autoDeleteObjects: false });
  }

  environment(): Record<string, string> {
    return Object.fromEntries((Object.keys(BUCKETS) as BucketName[]).map((name) => [BUCKETS[name].env, this.data[name].bucketName]));
  }
}
