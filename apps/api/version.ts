import { readFileSync } from 'node:fs';

/** memloom's version, from package.json (the OpenAPI document and the MCP server announce it). */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
