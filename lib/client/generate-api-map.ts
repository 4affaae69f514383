/**
 * The `Api` map of a generated file and its run-time twin `resources`: per resource its record,
 * bodies, own field names and relations (name -> related record, to-one or to-many, and the
 * related resource's entry, so paths like `category.parent` type-check), and what the client
 * needs at run time (the MODEL key of batch bodies, the batch route the app registered).
 */
type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; $ref?: string; type?: unknown; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[] };
type Operation = { requestBody?: { content?: Record<string, { schema?: Schema }> } } | undefined;
type Paths = Record<string, Record<string, Operation> | undefined>;

const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/** The record types a schema refers to, and whether it holds them in an array. */
function targets(schema: Schema, inArray = false): Array<{ type: string; many: boolean }> {
  if (schema.$ref) return [{ type: refName(schema.$ref), many: inArray }];
  const parts = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap((s) => targets(s, inArray));
  return schema.items ? parts.concat(targets(schema.items, true)) : parts;
}

/** The key wrapping arrays of records in a body (`{"product": [...]}`): from the batch route, else the bulk store. */
function modelKey(paths: Paths, segment: string): string | undefined {
  const bodies = [paths[`/${segment}/batch`]?.patch, paths[`/${segment}/update-multiple`]?.post, paths[`/${segment}`]?.post].map((op) => op?.requestBody?.content?.['application/json']?.schema);
  for (const body of bodies) {
    for (const candidate of [body, ...(body?.oneOf ?? [])]) {
      const keys = Object.keys(candidate?.properties ?? {});
      if (keys.length === 1 && candidate?.properties?.[keys[0]]?.type === 'array') return keys[0];
    }
  }
  return undefined;
}

export function apiMap(document: Record<string, unknown>, schemas: Record<string, Schema>, resources: Record<string, string>): string {
  const paths = (document.paths ?? {}) as Paths;
  const segmentOf = new Map(Object.entries(resources).map(([segment, type]) => [type, segment]));
  const entries: string[] = [];
  const runtime: string[] = [];
  for (const [segment, type] of Object.entries(resources)) {
    const properties = schemas[type]?.properties ?? {};
    const fields = Object.keys(properties).filter((p) => !properties[p]['x-relation']);
    const relations = Object.keys(properties).flatMap((name) => {
      const s = properties[name];
      if (!s['x-relation'] && !s['x-key-relation']) return [];
      const target = targets(s).find((t) => segmentOf.has(t.type));
      if (!target) return [];
      const many = target.many;
      return [`      ${JSON.stringify(name)}: { many: ${many}; record: ${target.type}; types: Api[${JSON.stringify(segmentOf.get(target.type))}] };`];
    });
    entries.push(
      [
        `  ${JSON.stringify(segment)}: {`,
        `    record: ${type};`,
        `    create: ${type}Create;`,
        `    update: ${type}Update;`,
        `    fields: ${fields.map((f) => JSON.stringify(f)).join(' | ') || 'never'};`,
        relations.length ? `    relations: {\n${relations.join('\n')}\n    };` : '    relations: {};',
        '  };',
      ].join('\n'),
    );
    const model = modelKey(paths, segment);
    const batch = paths[`/${segment}/batch`]?.patch ? 'PATCH /batch' : paths[`/${segment}/update-multiple`]?.post ? 'POST /update-multiple' : undefined;
    if (model) runtime.push(`  ${JSON.stringify(segment)}: { model: ${JSON.stringify(model)}${batch ? `, batch: ${JSON.stringify(batch)}` : ''} },`);
  }
  return [
    `/** Per resource: the record, the create and update bodies, the own fields (what select, filters and orderby take) and the relations (what relations and has() take). */\nexport interface Api {\n${entries.join('\n')}\n}\n`,
    `/** What the client needs at run time (batch bodies' keys and routes): \`createClient<Api>({ baseUrl, resources })\`. */\nexport const resources = {\n${runtime.join('\n')}\n} as const;\n`,
  ].join('\n');
}
