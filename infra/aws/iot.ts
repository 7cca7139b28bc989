import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnAuthorizer, CfnPolicy, CfnThingType, CfnTopicRule } from 'aws-cdk-lib/aws-iot';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { resolve } from 'node:path';
import { RULE_FILTERS, ruleSql } from '@passcloud/functions/contract/protocol';
import { devicePolicy } from '@passcloud/functions/iot/policy';
import { HandlerFunction, REPO_ROOT } from './api.ts';
import type { StackEnvironment } from './environment.ts';

/** The policy variable IoT Core fills in with the connected thing's name (certificate-based devices). */
export const THING_NAME_VARIABLE = '${iot:Connection.Thing.ThingName}';

export type RuleName = keyof typeof RULE_FILTERS;

export interface DeviceIotProps {
  /** The stack's values; the policy prefix is added here. */
  environment: StackEnvironment;
}

/**
 * AWS IoT Core for the face terminals (DESIGN.md §6):
 * - the thing type every bound device is registered as;
 * - the custom authorizer devices connect through (MQTT username `<thing>?x-amz-customauthorizer-name=<name>`,
 *   password = the secret issued at binding), backed by `functions/iot/authorizer.ts`;
 * - the IoT policy for devices an operator provisions with certificates instead;
 * - the topic rules that hand device messages, shadow documents and presence events to `functions/iot/ingest.ts`;
 * - the account's ATS data endpoint, for the `devices` API function.
 *
 * Names start with the stack name, so two stacks in one account and region do not collide
 * (the default stack `PassCloud` gets the thing type `PassCloudFaceTerminal`).
 */
export class DeviceIot extends Construct {
  readonly thingType: CfnThingType;
  readonly thingTypeName: string;
  readonly authorizer: CfnAuthorizer;
  readonly authorizerName: string;
  readonly authorizerFunction: HandlerFunction;
  readonly ingestFunction: HandlerFunction;
  readonly certificatePolicy: CfnPolicy;
  readonly rules: Record<RuleName, CfnTopicRule>;
  readonly ruleErrors: LogGroup;
  /** Host name of the account's `iot:Data-ATS` endpoint. */
  readonly dataEndpoint: string;

  constructor(scope: Construct, id: string, props: DeviceIotProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const prefix = stack.stackName;
    const iotArn = `arn:${stack.partition}:iot:${stack.region}:${stack.account}`;

    // 1. Every bound device becomes a thing of this type (the devices function registers it).
    this.thingTypeName = `${prefix}FaceTerminal`;
    this.thingType = new CfnThingType(this, 'FaceTerminalType', {
      thingTypeName: this.thingTypeName,
      thingTypeProperties: {
        thingTypeDescription: 'Pass Cloud face-recognition terminal bound to a tenant',
        searchableAttributes: ['tenantId', 'serial'],
      },
    });

    // 2. The custom authorizer: checks the per-device secret against the hash in the main table.
    props.environment.IOT_POLICY_PREFIX = iotArn;
    this.authorizerFunction = new HandlerFunction(this, 'AuthorizerFunction', {
      entry: resolve(REPO_ROOT, 'functions/iot/authorizer.ts'),
      description: 'IoT Core custom authorizer for face terminals (MQTT username/password)',
      // IoT Core waits at most 5 seconds for a custom authorizer.
      timeout: Duration.seconds(5),
      memorySize: 512,
      environment: props.environment,
    });
    this.authorizerName = `${prefix}DeviceAuthorizer`;
    this.authorizer = new CfnAuthorizer(this, 'DeviceAuthorizer', {
      authorizerName: this.authorizerName,
      authorizerFunctionArn: this.authorizerFunction.functionArn,
      // MQTT username/password: there is no token to sign.
      signingDisabled: true,
      status: 'ACTIVE',
      enableCachingForHttp: false,
    });
    this.authorizerFunction.addPermission('IotInvoke', {
      principal: new ServicePrincipal('iot.amazonaws.com'),
      sourceArn: this.authorizer.attrArn,
      sourceAccount: stack.account,
    });

    // 3. For devices provisioned with a certificate attached to their thing: the same grants as the
    //    authorizer's per-device policy (functions/iot/policy.ts), with the thing name as a policy variable.
    //    CreatePolicy takes one document of at most 2,048 characters, whitespace excluded; with the
    //    longest partition and region this one is 1,677 (tests/cdk/iotPolicies.test.ts measures it).
    //    https://docs.aws.amazon.com/iot/latest/apireference/API_CreatePolicy.html
    const document = devicePolicy(THING_NAME_VARIABLE, iotArn);
    this.certificatePolicy = new CfnPolicy(this, 'CertificateDevicePolicy', {
      policyName: `${prefix}Device`,
      policyDocument: {
        ...document,
        Statement: document.Statement.map((statement) =>
          statement.Action.includes('iot:Connect')
            ? // Only a certificate attached to the thing of that name may connect as it.
              { ...statement, Condition: { Bool: { 'iot:Connection.Thing.IsAttached': 'true' } } }
            : statement,
        ),
      },
    });

    // 4. Device messages, shadow documents and presence go to the ingest function.
    this.ingestFunction = new HandlerFunction(this, 'IngestFunction', {
      entry: resolve(REPO_ROOT, 'functions/iot/ingest.ts'),
      description: 'IoT topic rules: heartbeats, logs, command results, shadow documents, presence',
      timeout: Duration.seconds(30),
      memorySize: 512,
      environment: props.environment,
    });
    this.ruleErrors = new LogGroup(this, 'RuleErrors', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
    const errorRole = new Role(this, 'RuleErrorRole', {
      assumedBy: new ServicePrincipal('iot.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      description: 'Lets IoT topic rules write failed rule actions to the rule error log group',
    });
    errorRole.addToPolicy(
      new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:DescribeLogStreams', 'logs:PutLogEvents'], resources: [this.ruleErrors.logGroupArn] }),
    );
    const ruleNamePrefix = prefix.replace(/[^A-Za-z0-9_]/g, '_');
    this.rules = Object.fromEntries(
      (Object.entries(RULE_FILTERS) as [RuleName, string][]).map(([name, filter]) => {
        const id = `${name[0]!.toUpperCase()}${name.slice(1)}Rule`;
        const rule = new CfnTopicRule(this, id, {
          ruleName: `${ruleNamePrefix}_${name}`,
          topicRulePayload: {
            description: `Pass Cloud: ${filter} to the ingest function`,
            sql: ruleSql(filter),
            awsIotSqlVersion: '2016-03-23',
            ruleDisabled: false,
            actions: [{ lambda: { functionArn: this.ingestFunction.functionArn } }],
            errorAction: { cloudwatchLogs: { logGroupName: this.ruleErrors.logGroupName, roleArn: errorRole.roleArn } },
          },
        });
        this.ingestFunction.addPermission(`${id}Invoke`, {
          principal: new ServicePrincipal('iot.amazonaws.com'),
          sourceArn: rule.attrArn,
          sourceAccount: stack.account,
        });
        return [name, rule];
      }),
    ) as Record<RuleName, CfnTopicRule>;

    // 5. The account's ATS data endpoint (shadows and publishing through HTTPS, devices over MQTT).
    const endpoint = new AwsCustomResource(this, 'DataEndpoint', {
      onUpdate: {
        service: 'IoT',
        action: 'DescribeEndpoint',
        parameters: { endpointType: 'iot:Data-ATS' },
        physicalResourceId: PhysicalResourceId.fromResponse('endpointAddress'),
      },
      policy: AwsCustomResourcePolicy.fromStatements([new PolicyStatement({ actions: ['iot:DescribeEndpoint'], resources: ['*'] })]),
      installLatestAwsSdk: false,
    });
    this.dataEndpoint = endpoint.getResponseField('endpointAddress');
    Validations.of(endpoint).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'iot:DescribeEndpoint has no resource-level permissions; this deploy-time lookup only reads the account’s ATS endpoint address.',
    });
    Object.assign(props.environment, this.devicesEnvironment(), this.brokerEnvironment());
  }

  /** What the `devices` function needs to reach the data plane and to hand devices their broker address. */
  devicesEnvironment(): Record<string, string> {
    return {
      IOT_DATA_ENDPOINT: `https://${this.dataEndpoint}`,
      // Devices use TLS on 443 with ALPN `mqtt` (custom authentication on the default endpoint).
      IOT_MQTT_URL: `mqtts://${this.dataEndpoint}:443`,
      IOT_AUTHORIZER_NAME: this.authorizer.ref,
      IOT_THING_TYPE: this.thingType.ref,
    };
  }

  /** The broker as system settings show it to devices and integrators: MQTT over TLS and over WebSocket, both on 443. */
  brokerEnvironment(): Record<string, string> {
    return { IOT_MQTT_URL: `mqtts://${this.dataEndpoint}:443`, IOT_WS_URL: `wss://${this.dataEndpoint}:443/mqtt` };
  }

  /** Lets the ingest function answer pass records on `pc/<thing>/records/ack` and calls on `pc/<thing>/calls/ack`; it needs IOT_DATA_ENDPOINT too. */
  grantRecordsAck(fn: IFunction): void {
    const stack = Stack.of(this);
    for (const topic of ['records', 'calls']) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:Publish'], resources: [stack.formatArn({ service: 'iot', resource: 'topic', resourceName: `pc/*/${topic}/ack` })] }));
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagArn(stack, `topic/pc/*/${topic}/ack`)}]`,
        reason: `Each ${topic} message is answered on pc/<thing>/${topic}/ack of the device that sent it; the thing comes from the topic the device policy held it to.`,
      });
    }
  }

  /**
   * Lets a function publish commands to devices (the `settings` function tells online terminals
   * of a new client package; ingest opens a door station's door for the monitor in its call) and
   * nothing else of IoT.
   */
  grantCommandPublish(
    fn: IFunction,
    reason = 'Update commands go to pc/<thing>/commands of the online terminals of the session’s tenant; the thing is derived from that tenant and each device key.',
  ): void {
    const stack = Stack.of(this);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:Publish'], resources: [stack.formatArn({ service: 'iot', resource: 'topic', resourceName: 'pc/*/commands' })] }));
    Validations.of(fn).acknowledge({ id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'topic/pc/*/commands')}]`, reason });
  }

  /** Lets a function tell terminals that face changes wait (`pc/<thing>/faces/notify`); it needs IOT_DATA_ENDPOINT too. */
  grantFaceNotify(fn: IFunction): void {
    const stack = Stack.of(this);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:Publish'], resources: [stack.formatArn({ service: 'iot', resource: 'topic', resourceName: 'pc/*/faces/notify' })] }));
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'topic/pc/*/faces/notify')}]`,
      reason: 'Face-change notifications go to pc/<thing>/faces/notify of the devices whose authorizations changed; the thing is derived from the session’s tenant and each device key.',
    });
  }

  /** Lets ingest tell open consoles of new passes (`console/<tenantId>/...`, contract/live.ts); it needs IOT_DATA_ENDPOINT too. */
  grantLiveAnnounce(
    fn: IFunction,
    reason = 'Passes are announced on console/<tenantId>/passes and /blacklist of the tenant whose terminal sent them; the tenant comes from the topic the device policy held it to.',
  ): void {
    const stack = Stack.of(this);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:Publish'], resources: [stack.formatArn({ service: 'iot', resource: 'topic', resourceName: 'console/*' })] }));
    Validations.of(fn).acknowledge({ id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'topic/console/*')}]`, reason });
  }

  /** Lets a function write the surveys a terminal is to show into its shadow (`desired.questionnaires`); it needs IOT_DATA_ENDPOINT too. */
  grantQuestionnaireDelivery(fn: IFunction): void {
    const stack = Stack.of(this);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:UpdateThingShadow'], resources: [stack.formatArn({ service: 'iot', resource: 'thing', resourceName: '*' })] }));
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'thing/*')}]`,
      reason: 'Things are named <tenantId>_<deviceKey>, known only per request; the surveys go to the shadows of the session’s tenant’s terminals in the survey’s scope.',
    });
  }

  /** Lets a function end the live connections of a session that ended (client ids `console-<tenantId>-...`); it needs IOT_DATA_ENDPOINT too. */
  grantLiveDisconnect(fn: IFunction): void {
    const stack = Stack.of(this);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:DeleteConnection'], resources: [stack.formatArn({ service: 'iot', resource: 'client', resourceName: 'console-*' })] }));
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'client/console-*')}]`,
      reason: 'A session’s live connections have client ids console-<tenantId>-<session>-<tab>, known only when the session ends; the ids come from the session record of the caller’s tenant.',
    });
  }

  /**
   * Lets the `intercom` function delete intercoms (their things, shadows and connections) and send
   * door stations their door commands; it registers nothing, that is binding's.
   */
  grantIntercomManagement(fn: IFunction): void {
    const stack = Stack.of(this);
    const things = stack.formatArn({ service: 'iot', resource: 'thing', resourceName: '*' });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:DeleteThingShadow', 'iot:DeleteThing'], resources: [things] }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:Publish'], resources: [stack.formatArn({ service: 'iot', resource: 'topic', resourceName: 'pc/*/commands' })] }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:DeleteConnection'], resources: [stack.formatArn({ service: 'iot', resource: 'client', resourceName: '*' })] }));
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'thing/*')}]`,
      reason: 'Things are named <tenantId>_<deviceKey>, known only per request; the function derives the name from the session’s tenant and the intercom it deletes.',
    });
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'client/*')}]`,
      reason: 'Client ids are the thing names <tenantId>_<deviceKey>; a deleted intercom is disconnected under the name derived from the session’s tenant.',
    });
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'topic/pc/*/commands')}]`,
      reason: 'Door commands go to pc/<thing>/commands of the door station of a call of the session’s tenant only.',
    });
  }

  /**
   * Lets the `devices` function register things, keep their shadows and send commands. Thing names
   * (`<tenantId>_<deviceKey>`) are only known per request, so the resources end in wildcards,
   * each acknowledged here; the tenant prefix is enforced in code.
   */
  grantDeviceManagement(fn: IFunction): void {
    const stack = Stack.of(this);
    const things = stack.formatArn({ service: 'iot', resource: 'thing', resourceName: '*' });
    const commands = stack.formatArn({ service: 'iot', resource: 'topic', resourceName: 'pc/*/commands' });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:GetThingShadow', 'iot:UpdateThingShadow', 'iot:DeleteThingShadow'], resources: [things] }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:CreateThing', 'iot:DeleteThing'], resources: [things] }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:Publish'], resources: [commands] }));
    // A deleted device, or a unit a replacement superseded, is disconnected at once (DeleteConnection).
    const clients = stack.formatArn({ service: 'iot', resource: 'client', resourceName: '*' });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iot:DeleteConnection'], resources: [clients] }));
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'client/*')}]`,
      reason: 'Client ids are the thing names <tenantId>_<deviceKey>, known only per request; the function derives the name from the session’s tenant and the device it deleted or settled.',
    });
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'thing/*')}]`,
      reason:
        'Things are named <tenantId>_<deviceKey>, known only per request; the function derives the name from the session’s tenant (functions/contract/protocol.ts thingName).',
    });
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, 'topic/pc/*/commands')}]`,
      reason: 'Commands go to pc/<thing>/commands of the addressed device only; the thing is derived from the session’s tenant and the device key in the path.',
    });
  }
}

/** An IoT ARN as cdk-nag spells it in finding ids. */
function nagArn(stack: Stack, resource: string): string {
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  return `arn:<AWS::Partition>:iot:${region}:${account}:${resource}`;
}
