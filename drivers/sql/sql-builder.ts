/**
 * The thin SQL builder: identifier quoting and bound parameters. Client values only ever travel
 * in `bind`; SQL text holds identifiers taken from the model (quoted, escaped) and `$n` markers.
 */

export interface SqlStatement {
  sql: string;
  bind: unknown[];
  /**
   * Run as a named (server-side prepared) statement: PostgreSQL parses it once per connection and
   * may keep a generic plan. Only where a generic plan cannot be much worse than a custom one
   * (drivers/sql/prepare-policy.ts: equality tests; ranges and patterns on unindexed columns in an
   * aggregate or a shallow page).
   */
  prepare?: boolean;
}

/** A double-quoted identifier with embedded quotes doubled (PostgreSQL rules). */
export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new Error('Invalid identifier');
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal for names that come from the model (never for client values). */
export function quoteLiteral(text: string): string {
  if (text.includes('\0') || text.includes('$')) throw new Error('Invalid literal');
  return `'${text.replace(/'/g, "''")}'`;
}

/** Collects bind values and hands out `$n` markers; also numbers table aliases. */
export class ParamBuilder {
  readonly bind: unknown[] = [];
  private aliases = 0;

  constructor(initial: unknown[] = []) {
    this.bind.push(...initial);
  }

  param(value: unknown): string {
    this.bind.push(value);
    return `$${this.bind.length}`;
  }

  /** How many aliases were handed out: a cached statement head resumes the numbering after its own. */
  get aliasCount(): number {
    return this.aliases;
  }

  skipAliases(count: number): void {
    this.aliases += count;
  }

  alias(prefix: string): string {
    const name = `${prefix}${this.aliases}`;
    this.aliases += 1;
    return name;
  }
}
