import type { Resource } from '../routes.ts';
import type { HttpEvent, HttpResult } from '#lib/http';
import { files } from './files.ts';
import { systems } from './systems.ts';

/** Every resource's Lambda handler, for the local host (AWS bundles each file on its own). */
export const handlers: Record<Resource, (event: HttpEvent) => Promise<HttpResult>> = {
  systems: systems.handler,
  files: files.handler,
};

export const resourceHandlers = { systems: systems.handlers, files: files.handlers };
