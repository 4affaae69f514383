import { expect } from 'chai';
import { generateTypes } from '../../../lib/client';

/** The generated `Api` entries: own fields, relations (to-one, to-many, a key that is also a relation) and the run-time `resources`. */
describe('generated Api map: fields, relations and resources', () => {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const document = {
    info: { title: 'Books' },
    'x-resources': { books: 'Book', writers: 'Writer' },
    components: {
      schemas: {
        Book: {
          type: 'object',
          required: ['id'],
          properties: {
            id: { type: 'integer' },
            title: { type: 'string' },
            // a mongoose ref path named like its relation: a field and a relation
            writer: { 'x-key-relation': 'belongsTo', anyOf: [{ type: 'string' }, ref('Writer'), { type: 'null' }] },
            editions: { 'x-relation': 'hasMany', type: 'array', items: ref('Book') },
          },
        },
        Writer: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, name: { type: 'string' }, books: { 'x-relation': 'hasMany', type: 'array', items: ref('Book') } } },
      },
    },
    paths: {
      '/books': { post: { requestBody: { content: { 'application/json': { schema: { oneOf: [ref('BookCreate'), { type: 'object', properties: { book: { type: 'array', items: ref('BookCreate') } } }] } } } } } },
      '/books/update-multiple': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { book: { type: 'array', items: {} } } } } } } } },
    },
  };
  const text = generateTypes(document);

  it('lists the own fields (a relation-only property is not one; a key that is also a relation is)', () => {
    expect(text).to.contain('fields: "id" | "title" | "writer";');
    expect(text).to.contain('fields: "id" | "name";');
  });

  it('describes each relation: to-one or to-many, the related record and its resource entry', () => {
    expect(text).to.contain('"writer": { many: false; record: Writer; types: Api["writers"] };');
    expect(text).to.contain('"editions": { many: true; record: Book; types: Api["books"] };');
    expect(text).to.contain('"books": { many: true; record: Book; types: Api["books"] };');
  });

  it('writes the run-time resources: the MODEL key and the batch route the app registered', () => {
    expect(text).to.contain('"books": { model: "book", batch: "POST /update-multiple" },');
    expect(text).not.to.contain('"writers": { model');
  });
});
