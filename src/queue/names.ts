/** Every queue of the pipeline, in flow order. One lowercase word names the folder, the queue and the `stage` log field. */
export const QUEUE_NAMES = ['triage', 'chunk', 'embed', 'extract', 'dream', 'forget', 'briefing', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export function isQueueName(name: string): name is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(name);
}
