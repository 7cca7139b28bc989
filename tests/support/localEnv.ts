import { inject } from 'vitest';
import { resetClients } from '@passcloud/functions/lib/aws';

// Tests that seed or inspect records directly reach the same stand-ins as the host.
Object.assign(process.env, inject('localEnv'));
resetClients();
