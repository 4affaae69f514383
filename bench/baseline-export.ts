import ExcelJS from 'exceljs';
import type express from 'express';
import type { Pool } from 'pg';
import Cursor from 'pg-cursor';

export const EXPORT_COLUMNS = ['id', 'name', 'sku', 'price', 'stock', 'status', 'created_at'];

/**
 * The hand-written twin of GET /api/v1/products/export/excel?columns=<EXPORT_COLUMNS>: a `pg`
 * cursor read in batches of 500 into exceljs's streaming workbook writer, waiting on the socket.
 */
export function addExportBaseline(app: express.Express, pool: Pool): void {
  app.get('/products/export/excel', async (_req, res, next) => {
    const client = await pool.connect();
    try {
      res.setHeader('Content-Type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      res.setHeader('Content-Disposition', 'attachment; filename="excel.xlsx"');
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: res, useStyles: true, useSharedStrings: false });
      const sheet = workbook.addWorksheet('Export');
      sheet.addRow(EXPORT_COLUMNS).commit();
      const cursor = client.query(new Cursor(`SELECT ${EXPORT_COLUMNS.join(', ')} FROM products ORDER BY id`));
      for (;;) {
        const rows = (await cursor.read(500)) as Array<Record<string, unknown>>;
        if (rows.length === 0) break;
        for (const r of rows) sheet.addRow([r.id, r.name, r.sku, Number(r.price), r.stock, r.status, r.created_at]).commit();
        if (res.writableNeedDrain) await new Promise((resolve) => res.once('drain', resolve));
      }
      await cursor.close();
      sheet.commit();
      await workbook.commit();
    } catch (error) {
      next(error);
    } finally {
      client.release();
    }
  });
}

/** Peak resident memory of this process since the last reset, sampled every 50 ms. */
export function addMemoryProbe(app: express.Express): void {
  let peak = process.memoryUsage().rss;
  setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50).unref();
  app.get('/__memory', (req, res) => {
    const usage = process.memoryUsage();
    const now = usage.rss;
    const mb = (n: number): number => Math.round(n / 1048576);
    // the split says where RSS went: the JS heap, or Buffers outside it
    res.json({ peak_mb: mb(Math.max(peak, now)), rss_mb: mb(now), heap_total_mb: mb(usage.heapTotal), heap_used_mb: mb(usage.heapUsed), external_mb: mb(usage.external), array_buffers_mb: mb(usage.arrayBuffers) });
    if (req.query.reset) peak = now;
  });
}
