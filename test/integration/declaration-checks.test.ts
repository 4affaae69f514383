import { expect } from 'chai';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi, type ResourceDeclaration } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * `router()` refuses every declaration mistake with a message naming the resource, the key and
 * what to do; one case per mistake, on both drivers.
 */
interface Models {
  Widget: unknown;
  Part: unknown;
  Label: unknown;
  pivot: string;
}

const MODELS: Record<string, () => Promise<{ models: Models; close(): Promise<void> }>> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/declaration_checks';
    const c = await mongoose.createConnection(uri.toString()).asPromise();
    const Widget = c.model('Widget', new mongoose.Schema({ name: String, parent_id: { type: mongoose.Schema.Types.ObjectId, ref: 'Widget' } }));
    const Part = c.model('Part', new mongoose.Schema({ label: String, widget_id: { type: mongoose.Schema.Types.ObjectId, ref: 'Widget' } }));
    const Label = c.model('Label', new mongoose.Schema({ text: String }));
    c.model('WidgetLabel', new mongoose.Schema({ widget_id: mongoose.Schema.Types.ObjectId, label_id: mongoose.Schema.Types.ObjectId, position: Number }), 'widget_label');
    return { models: { Widget, Part, Label, pivot: 'widget_label' }, close: () => c.close() };
  },
  sql: async () => {
    const s = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const Widget = s.define('Widget', { name: DataTypes.STRING, parent_id: DataTypes.INTEGER }, { tableName: 'dc_widgets', underscored: true });
    const Part = s.define('Part', { label: DataTypes.STRING, widget_id: DataTypes.INTEGER }, { tableName: 'dc_parts', underscored: true });
    const Label = s.define('Label', { text: DataTypes.STRING }, { tableName: 'dc_labels', underscored: true });
    s.define('WidgetLabel', { widget_id: DataTypes.INTEGER, label_id: DataTypes.INTEGER, position: DataTypes.INTEGER }, { tableName: 'dc_widget_label', underscored: true });
    return { models: { Widget, Part, Label, pivot: 'dc_widget_label' }, close: () => s.close() };
  },
};

type Decls = Array<ResourceDeclaration>;

for (const [driver, build] of Object.entries(MODELS)) {
  describe(`declarations checked at start (${driver})`, function () {
    this.timeout(30_000);
    let m: Models;
    let close: () => Promise<void>;
    before(async () => {
      const built = await build();
      m = built.models;
      close = built.close;
    });
    after(async () => close());

    const base = (): Decls => [
      { name: 'widgets', MODEL: 'widget', model: m.Widget, fillable: ['name', 'parent_id'], HIERARCHY_FIELD_ID: 'parent_id', relations: { parts: { kind: 'hasMany', target: 'part', foreignKey: 'widget_id' }, labels: { kind: 'belongsToMany', target: 'label', pivot: { table: m.pivot, parentKey: 'widget_id', relatedKey: 'label_id', columns: ['position'] } } }, RELATIONS: ['parts', 'labels'] },
      { name: 'parts', MODEL: 'part', model: m.Part, fillable: ['label', 'widget_id'], relations: { widget: { kind: 'belongsTo', target: 'widget', foreignKey: 'widget_id', onDelete: 'restrict' } } },
      { name: 'labels', MODEL: 'label', model: m.Label, fillable: ['text'] },
    ];
    const start = (decls: Decls) => () => {
      const api = createRestApi();
      for (const d of decls) api.register(d);
      api.router();
    };
    const change = (index: number, patch: Record<string, unknown>): Decls => base().map((d, i) => (i === index ? ({ ...d, ...patch } as ResourceDeclaration) : d));
    const relation = (index: number, name: string, patch: Record<string, unknown>): Decls =>
      base().map((d, i) => (i === index ? { ...d, relations: { ...d.relations, [name]: { ...d.relations![name], ...patch } } } : d)) as Decls;

    it('a valid set of declarations starts', () => {
      expect(start(base())).to.not.throw();
    });

    it('upsertKeys on the primary key start (a unique key)', () => {
      expect(start(change(2, { upsertKeys: [['id']] }))).to.not.throw();
    });

    const mistakes: Array<[string, () => Decls, RegExp]> = [
      ['an unknown field in fillable', () => change(0, { fillable: ['name', 'colour'] }), /Resource widget: fillable: "colour" is not a field/],
      ['an unknown field in writeOnly', () => change(0, { writeOnly: ['secret'] }), /Resource widget: writeOnly: "secret" is not a field/],
      ['an unknown field in fieldsByRole', () => change(0, { fieldsByRole: { admin: ['price'] } }), /Resource widget: fieldsByRole\.admin: "price" is not a field/],
      ['an unknown relation kind', () => relation(1, 'widget', { kind: 'belongsTo2' }), /Resource part: relations\.widget\.kind: "belongsTo2" is not a relation kind/],
      ['a typo in onDelete', () => relation(1, 'widget', { onDelete: 'restric' }), /Resource part: relations\.widget\.onDelete: "restric" is not a delete rule/],
      ['a foreign key the model does not have', () => relation(1, 'widget', { foreignKey: 'widgetId' }), /Resource part: relations\.widget\.foreignKey: "widgetId" is not a field of part/],
      ['a hasMany foreign key the target does not have', () => relation(0, 'parts', { foreignKey: 'owner_id' }), /Resource widget: relations\.parts\.foreignKey: "owner_id" is not a field of part/],
      ['a hasMany localKey the parent does not have', () => relation(0, 'parts', { localKey: 'code' }), /Resource widget: relations\.parts\.localKey: "code" is not a field of widget/],
      ['a localKey on a belongsTo', () => relation(1, 'widget', { localKey: 'label' }), /Resource part: relations\.widget\.localKey: only a hasOne or hasMany relation has a localKey/],
      ['a pivot table that does not exist', () => relation(0, 'labels', { pivot: { table: 'nope_pivot', parentKey: 'widget_id', relatedKey: 'label_id' } }), /Resource widget: relations\.labels\.pivot\.table: no table or collection model "nope_pivot"/],
      ['a pivot column that does not exist', () => relation(0, 'labels', { pivot: { table: m.pivot, parentKey: 'widget_id', relatedKey: 'label_id', columns: ['weight'] } }), /Resource widget: relations\.labels\.pivot: "weight" not in pivot/],
      ['a superuserField that is not a field (decision 69)', () => change(2, { superuserField: 'is_root' }), /Resource label: superuserField: "is_root" is not a field/],
      ['HIERARCHY_FIELD_ID that is not a field', () => change(0, { HIERARCHY_FIELD_ID: 'parent' }), /Resource widget: HIERARCHY_FIELD_ID: "parent" is not a field/],
      ['two resources with the same name (duplicate route names)', () => change(2, { name: 'widgets' }), /Resource label: name: "widgets" is already the name of widget/],
      ['a missing name', () => change(0, { name: undefined }), /Resource widget: name: give the route segment/],
      ['a missing MODEL', () => change(0, { MODEL: undefined }), /Resource widgets: MODEL: give the model identifier/],
      ['a missing fillable', () => change(0, { fillable: undefined }), /Resource widget: fillable: list the writable fields/],
      ['RELATIONS naming a relation that does not exist', () => change(0, { RELATIONS: ['parts', 'gadgets'] }), /gadgets/],
      // decision 79: match keys must be backed by a unique index or constraint
      ['upsertKeys without a unique index', () => change(0, { upsertKeys: [['name']] }), /Resource widget: upsertKeys: upsertKeys \[name\] of widgets: no unique index/],
      ['upsertKeys naming an unknown field', () => change(0, { upsertKeys: [['code']] }), /Resource widget: upsertKeys: .*"code" not a field/],
      // decision 81
      ['a versionField that is not a field', () => change(0, { versionField: 'rev' }), /Resource widget: versionField: "rev" is not a field/],
      ['requireIfMatch without a versionField', () => change(0, { requireIfMatch: true }), /Resource widget: requireIfMatch: needs a versionField/],
    ];
    for (const [title, decls, message] of mistakes) {
      it(`refuses ${title}`, () => {
        expect(start(decls())).to.throw(message);
      });
    }
  });
}
