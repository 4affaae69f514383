import type express from 'express';
import type { Pool } from 'pg';

interface TreeNode {
  id: number;
  name: string;
  parent_id: number | null;
  children: TreeNode[];
}

/**
 * The hand-written twin of the library's hierarchy show (select=name): one depth-limited,
 * cycle-safe WITH RECURSIVE with `pg`, then the tree nested in one pass, siblings by id.
 */
export function addTreeBaseline(app: express.Express, pool: Pool): void {
  const walk = {
    down: `SELECT c.id, c.name, c.parent_id FROM categories c WHERE c.id IN (
             WITH RECURSIVE w(id, path) AS (
               SELECT id, ARRAY[id] FROM categories WHERE id = $1
               UNION ALL SELECT c.id, w.path || c.id FROM categories c JOIN w ON c.parent_id = w.id WHERE NOT c.id = ANY(w.path))
             SELECT id FROM w) ORDER BY c.id`,
    up: `SELECT c.id, c.name, c.parent_id FROM categories c WHERE c.id IN (
           WITH RECURSIVE w(id, parent, path) AS (
             SELECT id, parent_id, ARRAY[id] FROM categories WHERE id = $1
             UNION ALL SELECT c.id, c.parent_id, w.path || c.id FROM categories c JOIN w ON c.id = w.parent WHERE NOT c.id = ANY(w.path))
           SELECT id FROM w) ORDER BY c.id`,
  };
  app.get('/categories/:id/tree/:direction', async (req, res, next) => {
    try {
      const sql = req.params.direction === 'up' ? walk.up : walk.down;
      const { rows } = await pool.query<Omit<TreeNode, 'children'>>(sql, [Number(req.params.id)]);
      const nodes = new Map<number, TreeNode>(rows.map((r) => [r.id, { id: r.id, name: r.name, parent_id: r.parent_id, children: [] }]));
      let top: TreeNode | null = null;
      for (const node of nodes.values()) {
        const parent = node.parent_id === null ? undefined : nodes.get(node.parent_id);
        if (parent) parent.children.push(node);
        else top = node;
      }
      res.json(top);
    } catch (err) {
      next(err);
    }
  });
}
