import { inject } from 'vitest';
import { onDynamoClient, resetClients } from '@passcloud/functions/lib/aws';
import { journalWrites } from '@passcloud/infra/local/writeJournal';

// Tests that seed or inspect records directly reach the same stand-ins as the host, and note the
// partitions they write, as the host does (tests/support/tenantItems.ts reads a company by them).
Object.assign(process.env, inject('localEnv'));
resetClients();
onDynamoClient(journalWrites);
