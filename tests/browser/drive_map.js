// Drives one map page (`rulemap map --html`) in headless Chromium, as a person would: waits
// until it is interactive, clicks an instruction file in the graph, opens a directory of the
// tree, selects it, switches the agent that colours the tree, opens a group of the graph.
// Prints one JSON object of what it saw; tests/browser/test_map_page.py asserts on it.
//
//   node drive_map.js PAGE.html OUT_DIR NAME
//
// Playwright comes from client-vscode's dependencies (playwright-core: no browser download);
// the browser is Debian's Chromium ($RULEMAP_CHROMIUM, default /usr/bin/chromium).
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "..", "client-vscode", "node_modules", "playwright-core"));

const [page_path, out_dir, name] = process.argv.slice(2);
const result = { name, requests: [], errors: [], steps: {} };

async function shot(page, what) {
  const file = path.join(out_dir, `${name}-${what}.png`);
  await page.screenshot({ path: file });
  result.steps[what] = Object.assign(result.steps[what] || {}, { screenshot: file });
}

async function clickNode(page, id) {
  // a real mouse click where cytoscape draws the node
  const where = await page.evaluate((nodeId) => {
    const cy = window.rulemapMap.cy;
    const node = cy.getElementById(nodeId);
    if (!node || !node.length) return null;
    cy.center(node);
    const pos = node.renderedPosition();
    const box = document.getElementById("graph").getBoundingClientRect();
    return { x: box.left + pos.x, y: box.top + pos.y };
  }, id);
  if (!where) throw new Error(`no node ${id} in the graph`);
  await page.mouse.click(where.x, where.y);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.RULEMAP_CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    page.on("request", (r) => { if (!r.url().startsWith("file:")) result.requests.push(r.url()); });
    page.on("pageerror", (e) => result.errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") result.errors.push(m.text()); });
    const started = Date.now();
    await page.goto("file://" + path.resolve(page_path));
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    result.interactiveMs = Date.now() - started;
    result.readyMs = await page.evaluate(() => window.rulemapMap.readyMs);
    // the graph drew: a canvas, and nodes
    result.graph = await page.evaluate(() => ({
      canvases: document.querySelectorAll("#graph canvas").length,
      nodes: window.rulemapMap.cy.nodes().length,
      documents: window.rulemapMap.cy.nodes('[kind = "instruction"], [kind = "rule"], [kind = "scoped-rule"]').map((n) => n.id()),
      clusters: window.rulemapMap.cy.nodes('[kind = "cluster"]').map((n) => n.data("path")),
    }));
    result.agents = await page.evaluate(() => window.rulemapMap.data.agents.map((a) => a.title));
    await shot(page, "start");

    // a click on an instruction file: its reach per agent
    const doc = result.graph.documents.includes("AGENTS.md") ? "AGENTS.md" : result.graph.documents[0];
    if (doc) {
      await clickNode(page, doc);
      await page.waitForSelector("#reach-table", { timeout: 5000 });
      result.steps.file = await page.evaluate(() => ({
        title: document.querySelector("#details h3").textContent,
        rows: Array.from(document.querySelectorAll("#reach-table tr[data-agent]")).map((r) => r.textContent),
      }));
      await shot(page, "file");
    }

    // a directory of the tree opens on demand
    const dir = await page.evaluate(() => {
      const d = window.rulemapMap.data.tree;
      const root = d[0];
      // the root's child with the most subdirectories
      let best = null;
      root.children.forEach((i) => { if (!best || d[i].children.length > d[best].children.length) best = i; });
      return best === null ? null : { index: best, path: d[best].path, child: d[d[best].children[0]] ? d[d[best].children[0]].path : null };
    });
    if (dir && dir.child) {
      const before = await page.evaluate((p) => ({
        rows: document.querySelectorAll("#tree .row").length,
        child: !!document.querySelector(`#tree .row[data-dir="${p}"]`),
      }), dir.child);
      await page.click(`#tree .row[data-dir="${dir.path}"] .twist`);
      const after = await page.evaluate((p) => ({
        rows: document.querySelectorAll("#tree .row").length,
        child: !!document.querySelector(`#tree .row[data-dir="${p}"]`),
      }), dir.child);
      await page.click(`#tree .row[data-dir="${dir.child}"] .name`);
      const why = await page.evaluate(() => ({
        title: document.querySelector("#details h3").textContent,
        text: document.getElementById("details").textContent,
        loads: document.querySelectorAll("#details table.load").length,
      }));
      result.steps.dir = { path: dir.path, child: dir.child, before, after, why };
      await page.click("#fit");
      await shot(page, "dir");
    }

    // another agent colours the tree
    if (result.agents.length > 1) {
      const colours = () => page.evaluate(() => Array.from(document.querySelectorAll("#tree .row")).map((r) => [r.getAttribute("data-dir"), r.getAttribute("data-colour")]));
      // what the data says each shown row's colour is, per agent
      const expected = (agent) => page.evaluate((name) => {
        const D = window.rulemapMap.data;
        const at = {};
        D.tree.forEach((d) => { at[d.path] = d; });
        return Array.from(document.querySelectorAll("#tree .row")).map((r) => {
          const s = at[r.getAttribute("data-dir")].agents[name];
          return [r.getAttribute("data-dir"), s[1] ? "over" : s[0] === null ? "none" : s[0] < 500 ? "ok" : s[0] < 1000 ? "warn" : "over"];
        });
      }, agent);
      const names = await page.evaluate(() => window.rulemapMap.data.agents.map((a) => a.name));
      const first = await colours();
      const firstExpected = await expected(names[0]);
      // the agent whose colours differ most from the first's
      let pick = names[1], most = -1;
      for (const n of names.slice(1)) {
        const e = await expected(n);
        const diff = e.filter((c, i) => c[1] !== firstExpected[i][1]).length;
        if (diff > most) { most = diff; pick = n; }
      }
      await page.click(`#agents button[data-agent="${pick}"]`);
      const second = await colours();
      result.steps.agent = {
        agent: pick, first, firstExpected, second, secondExpected: await expected(pick),
        selected: await page.evaluate(() => document.querySelector('#agents button[aria-selected="true"]').getAttribute("data-agent")),
      };
      await shot(page, "agent");
    }

    // a group of the graph opens (big trees)
    if (result.graph.clusters.length) {
      const cluster = result.graph.clusters[0];
      await clickNode(page, "cluster:" + cluster);
      await page.waitForFunction((p) => window.rulemapMap.state.scope === p, cluster, { timeout: 5000 });
      result.steps.cluster = await page.evaluate(() => ({
        scope: window.rulemapMap.state.scope,
        nodes: window.rulemapMap.cy.nodes().length,
      }));
      result.steps.cluster.path = cluster;
      await shot(page, "cluster");
    }

    // find: a nested instruction file by its path
    const nested = await page.evaluate(() => {
      const docs = window.rulemapMap.data.graph.nodes.filter((n) => n.kind === "instruction" && n.id.includes("/"));
      return docs.length ? docs[docs.length - 1].id : null;
    });
    if (nested) {
      await page.fill("#find", nested);
      await page.press("#find", "Enter");
      result.steps.find = await page.evaluate(() => ({
        title: document.querySelector("#details h3").textContent,
        drawn: window.rulemapMap.cy.$(":selected").map((n) => n.id()),
      }));
      result.steps.find.path = nested;
      await shot(page, "find");
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(result) + "\n");
})().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + "\n");
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(1);
});
