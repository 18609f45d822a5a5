/**
 * The Markdown form of an export, for people: one section per record type in the export's order
 * (events, entities, memories with their versions and signals, edges, relations, provenance,
 * working memory). Chunks are spans of the events above and are left out. Not importable: import
 * takes the JSON lines.
 */

type Row = Record<string, unknown>;

const SECTIONS: Record<string, string> = {
  event: 'Events',
  entity: 'Entities',
  memory: 'Memories',
  edge: 'Edges',
  relation: 'Memory relations',
  memory_entity: 'Entities named by memories',
  provenance: 'Provenance (object ← supporting event)',
  working_memory: 'Working memory',
};

const short = (id: unknown) => String(id).slice(0, 8);
const oneLine = (s: unknown, max = 2000) => {
  const t = String(s ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
};
const day = (s: unknown) => (typeof s === 'string' ? s.slice(0, 19).replace('T', ' ') : '');

export async function* markdownOf(records: AsyncIterable<Row>): AsyncGenerator<string> {
  const entityNames = new Map<string, string>();
  const memoryText = new Map<string, string>();
  let section = '';
  for await (const r of records) {
    const type = String(r.record);
    if (type === 'header') {
      const scope = r.scope as Row;
      yield `# memloom export\n\nExported ${String(r.exported_at)}${scope.user_id ? ` · user \`${String(scope.user_id)}\`` : ''}${scope.dataset ? ` · dataset \`${String(scope.dataset)}\`` : ''}.\n`;
      continue;
    }
    if (type === 'chunk') continue;
    if (type === 'end') {
      const counts = Object.entries(r.counts as Record<string, number>)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      yield `\n---\nTotals: ${counts}.\n`;
      continue;
    }
    if (type !== section && SECTIONS[type]) {
      section = type;
      yield `\n## ${SECTIONS[type]}\n\n`;
    }
    yield line(type, r, entityNames, memoryText);
  }
}

function line(type: string, r: Row, entityNames: Map<string, string>, memoryText: Map<string, string>): string {
  switch (type) {
    case 'event':
      return `- ${day(r.occurred_at)} · ${String(r.type)}${r.role ? `/${String(r.role)}` : ''}${r.session_id ? ` · session \`${String(r.session_id)}\`` : ''} · \`${short(r.id)}\`: ${oneLine(r.content)}\n`;
    case 'entity':
      entityNames.set(String(r.id), String(r.name));
      return `- **${String(r.name)}** (${String(r.type)})${r.description ? `: ${oneLine(r.description, 500)}` : ''}\n`;
    case 'memory': {
      memoryText.set(String(r.id), oneLine(r.content, 80));
      const s = r.signals as Row | null;
      const flags = [
        String(r.status),
        `v${String(r.version)}`,
        `importance ${String(r.importance)}`,
        r.is_crystal ? 'crystal' : '',
        r.superseded_by ? `superseded by \`${short(r.superseded_by)}\`` : '',
        s ? `accessed ${String(s.access_count)}×` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return `- **${String(r.kind)}** \`${short(r.id)}\` (${flags}; ${day(r.occurred_at)}${r.user_id ? `; user \`${String(r.user_id)}\`` : ''}): ${oneLine(r.content)}\n`;
    }
    case 'edge':
      return `- ${entityNames.get(String(r.source_entity_id)) ?? short(r.source_entity_id)} —${String(r.relation)}→ ${entityNames.get(String(r.target_entity_id)) ?? short(r.target_entity_id)}${r.invalid_at ? ` (invalid since ${day(r.invalid_at)})` : ''}${r.description ? `: ${oneLine(r.description, 300)}` : ''}\n`;
    case 'relation':
      return `- \`${short(r.from_memory_id)}\` ${String(r.relation)} \`${short(r.to_memory_id)}\` (${memoryText.get(String(r.from_memory_id)) ?? ''} → ${memoryText.get(String(r.to_memory_id)) ?? ''})\n`;
    case 'memory_entity':
      return `- \`${short(r.memory_id)}\` names ${entityNames.get(String(r.entity_id)) ?? short(r.entity_id)}\n`;
    case 'provenance': {
      const run = r.run as Row | null;
      return `- ${String(r.object_type)} \`${short(r.object_id)}\` ← event \`${short(r.event_id)}\`${run ? ` (${String(run.stage)}${run.model ? `, ${String(run.model)}` : ''})` : ''}\n`;
    }
    case 'working_memory':
      return `### ${r.user_id === '' ? '(no user)' : String(r.user_id)} (refreshed ${day(r.refreshed_at)})\n\n${String(r.markdown).replace(/^#/gm, '###')}\n\n`;
    default:
      return '';
  }
}
