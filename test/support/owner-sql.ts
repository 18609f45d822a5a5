import pg from 'pg';
import type { Deps } from '../../src/deps.js';

/**
 * Runs SQL as the database's owner, for test-only schema changes (a trigger that fails a write of
 * poisoned content, to make a genuine database error happen mid-stage). Embedded: the one PGlite
 * session drops back to its superuser and then to memloom_app again; call it while no job runs.
 * Server suite: `dbUrl` is the owner's URL (the app's pool switches role per connection).
 */
export async function asDatabaseOwner(deps: Deps, text: string): Promise<void> {
  if (deps.embedded) {
    await deps.embedded.owner.exec(`RESET ROLE; ${text}; SET ROLE memloom_app`);
    return;
  }
  const owner = new pg.Client({ connectionString: deps.dbUrl });
  await owner.connect();
  try {
    await owner.query(text);
  } finally {
    await owner.end();
  }
}

/**
 * A trigger that makes every insert of a `table` row whose `column` contains `marker` fail with
 * `errcode` (XX000: an internal error, as a bug or a corrupt row would cause; 22xxx: a data
 * error), its message quoting the row's value as PostgreSQL's own messages do. Returns a function
 * that removes it.
 */
export async function poisonWrites(deps: Deps, table: string, column: string, marker: string, errcode = 'XX000'): Promise<() => Promise<void>> {
  const name = `test_poison_${table}`;
  await asDatabaseOwner(
    deps,
    `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF position(${pg.escapeLiteral(marker)} IN NEW.${column}::text) > 0 THEN
         -- as PostgreSQL's own data errors do, the message quotes the value
         RAISE EXCEPTION 'poisoned test row: "%"', left(NEW.${column}::text, 60) USING ERRCODE = '${errcode}';
       END IF;
       RETURN NEW;
     END $$;
     CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  return () => asDatabaseOwner(deps, `DROP TRIGGER ${name} ON ${table}; DROP FUNCTION ${name}()`);
}
