// Draws the records a page sent (read as a JSON list on stdin) with the browser's renderer, ui/web/draw.js, and
// prints the HTML of each as a JSON list: how tests/drawn.py lets the Python tests read what the browser shows.
import { draw, rowsHtml } from "../../ui/web/draw.js";
import { panelHtml } from "../../ui/web/trees.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const messages = JSON.parse(Buffer.concat(chunks).toString("utf-8"));
// Compare's rows component sends {rows, options, tree}: drawn as rows.js draws them (the panel under them)
const html = messages.map((m) =>
  m.kind ? draw(m) : rowsHtml(m.rows || [], m.options || {}) + (m.tree && m.tree.panel ? panelHtml(m.tree.panel) : ""),
);
process.stdout.write(JSON.stringify(html));
