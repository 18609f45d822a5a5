/**
 * Every queue of the pipeline, in flow order. One lowercase word names the folder, the queue and
 * the `stage` log field. `workers/catalog.ts` maps each name to its stage and is typed
 * `Record<QueueName, …>`, so a name without a stage (or a stage without a name) does not compile;
 * the list lives here because `src` never imports `workers`.
 */
export const QUEUE_NAMES = ['triage', 'chunk', 'embed', 'extract', 'dream', 'briefing', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export function isQueueName(name: string): name is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(name);
}
