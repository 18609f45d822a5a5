/**
 * A result's dates as agents and people read them: the day it was said, and the day it is about
 * when that differs ("2026-11-05, about 2026-12-15" for a deadline set on 5 November).
 */
export function resultDate(r: { occurred_at: string; event_time?: string | null | undefined }): string {
  const said = r.occurred_at.slice(0, 10);
  const about = r.event_time?.slice(0, 10);
  return about && about !== said ? `${said}, about ${about}` : said;
}
