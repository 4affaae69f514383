import type { Driver } from '../../driver';
import { checkWriteOptions } from './check-write-options';
import { checkDeclarationFields, checkDeclarationShape } from './check-declaration';
import { DeclarationError } from '../../errors/declaration-error';
import type { ResourceDeclaration } from '../../declaration';
import type { Catalog, ModelInfo } from '../../resource/model-info';
import { DriverPool } from '../../driver/load-driver';

export interface ResourceEntry {
  declaration: ResourceDeclaration;
  info: ModelInfo;
  driver: Driver;
}

/** Native model name (mongoose modelName / Sequelize name) of a declared model. */
function nativeName(model: unknown): string | undefined {
  const m = model as { modelName?: unknown; name?: unknown };
  if (typeof m.modelName === 'string') return m.modelName;
  if (typeof m.name === 'string') return m.name;
  return undefined;
}

/**
 * Every registered resource, described once by its driver. Relations may only link resources of
 * the same driver instance (a MongoDB model cannot eager-load a PostgreSQL one).
 */
export class Registry implements Catalog {
  private readonly declarations = new Map<string, ResourceDeclaration>();
  private readonly entries = new Map<string, ResourceEntry>();
  private readonly pool = new DriverPool();
  private built = false;

  add(declaration: ResourceDeclaration): void {
    if (this.built) throw new Error('Resources must be registered before router() is called.');
    checkDeclarationShape(declaration);
    if (this.declarations.has(declaration.MODEL)) throw new DeclarationError(declaration.MODEL, 'MODEL', 'registered twice; give each resource its own MODEL.');
    const sameName = [...this.declarations.values()].find((d) => d.name === declaration.name);
    if (sameName) throw new DeclarationError(declaration.MODEL, 'name', `"${declaration.name}" is already the name of ${sameName.MODEL}: route names would collide; choose another name.`);
    this.declarations.set(declaration.MODEL, declaration);
  }

  /** Describes every resource and binds the drivers; idempotent. */
  build(): void {
    if (this.built) return;
    const byNative = new Map<string, string>();
    for (const decl of this.declarations.values()) {
      const native = nativeName(decl.model);
      if (native) byNative.set(native, decl.MODEL);
    }
    const modelNameOf = (native: string): string | undefined => byNative.get(native) ?? (this.declarations.has(native) ? native : undefined);
    for (const decl of this.declarations.values()) {
      const driver = decl.driver ?? this.pool.forModel(decl.model, decl.MODEL);
      const { paranoid, ...described } = driver.describe(decl, modelNameOf);
      const softDelete = decl.softDelete === true ? 'deleted_at' : typeof decl.softDelete === 'string' ? decl.softDelete : decl.softDelete === false ? null : (paranoid ?? null);
      const info: ModelInfo = {
        ...described,
        fields: softDeleteLast(described.fields, softDelete),
        name: decl.MODEL,
        softDelete,
        // the deletion time is written by destroy and restore only, never from a body
        // the version field (decision 81) is the library's: never written from a body either
        fillable: decl.fillable.filter((f) => !['id', 'created_at', 'updated_at'].includes(f) && f !== softDelete && f !== decl.versionField),
        fieldsByRole: decl.fieldsByRole ?? {},
        hierarchyField: decl.HIERARCHY_FIELD_ID ?? null,
        owner: decl.owner ?? null,
        versionField: decl.versionField ?? null,
      };
      this.entries.set(decl.MODEL, { declaration: decl, info, driver });
    }
    this.checkRelations();
    for (const { declaration, info, driver } of this.entries.values()) {
      checkDeclarationFields(declaration, info, (name) => this.entries.get(name)?.info, driver.pivotColumns?.bind(driver));
      checkWriteOptions(declaration, info);
    }
    const drivers = new Set([...this.entries.values()].map((e) => e.driver));
    for (const driver of drivers) driver.bind(this);
    this.built = true;
  }

  entry(name: string): ResourceEntry {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`Unknown model ${name}`);
    return entry;
  }

  entriesList(): ResourceEntry[] {
    return [...this.entries.values()];
  }

  drivers(): Driver[] {
    return [...new Set([...this.entries.values()].map((e) => e.driver))];
  }

  model(name: string): ModelInfo {
    return this.entry(name).info;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  all(): ModelInfo[] {
    return [...this.entries.values()].map((e) => e.info);
  }

  /** Fails at start-up, not at request time, when a relation points nowhere or across drivers. */
  private checkRelations(): void {
    for (const { info, driver } of this.entries.values()) {
      for (const rel of [...Object.values(info.relations), ...Object.values(info.hiddenRelations)]) {
        const target = this.entries.get(rel.target);
        const visible = rel.name in info.relations;
        if (!target && !visible) continue; // a ref to a model the app does not expose
        if (!target) throw new Error(`Relation ${info.name}.${rel.name} targets ${rel.target}, which is not registered.`);
        if (target.driver !== driver) {
          throw new Error(`Relation ${info.name}.${rel.name} links models of different drivers; relations must stay within one database.`);
        }
      }
    }
  }
}

/**
 * One record key order on every driver (decision 67): the deletion time of a soft-deletable model
 * comes last, after the timestamps (as a Sequelize paranoid model lists it), wherever the model
 * declares it (a mongoose schema lists its timestamps after every declared path).
 */
function softDeleteLast<F>(fields: Record<string, F>, softDelete: string | null): Record<string, F> {
  if (!softDelete || !Object.prototype.hasOwnProperty.call(fields, softDelete)) return fields;
  const { [softDelete]: last, ...rest } = fields;
  return { ...rest, [softDelete]: last };
}
