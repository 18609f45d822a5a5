import type { TestProject } from 'vitest/node';
import { createTemplate, dropTemplate } from './server-db.js';

/** vitest globalSetup of the server suite: one migrated template database per run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = await createTemplate();
  project.provide('memloomServerTemplate' as never, template as never);
  return () => dropTemplate(template);
}
