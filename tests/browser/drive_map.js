// Drives one map page (`rulemap map --html`) in headless Chromium, as a person would: waits
// until it is interactive, clicks an instruction file in the graph, opens a directory of the
// tree, selects it, switches the agent that colours the tree, opens a group of the graph.
// Every Content-Security-Policy violation meanwhile is recorded (the page's own listener,
// installed before the page runs, and Chromium's console lines about the policy); at the end,
// a probe injects what the policy must refuse (a style and a script without the nonce, a
// style attribute, an inline handler, an image from the network) and records what happened.
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
const result = { name, requests: [], errors: [], refused: [], steps: {} };
let probing = null; // during the probe, what the console says goes here
// how Chromium reports a violation on the console: "Refused to …" (older), "… violates the
// following Content Security Policy directive …" (newer)
const CSP_LINE = /^Refused to |Content Security Policy/;

// runs in the page before its own scripts (Playwright's init scripts are not subject to the
// page's policy): every violation the page reports, kept for the driver
function listenForViolations() {
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
  });
}

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
    page.on("request", (r) => { if (!r.url().startsWith("file:")) (probing ? probing.requests : result.requests).push(r.url()); });
    page.on("requestfailed", (r) => { if (probing) probing.failed.push(r.failure() ? r.failure().errorText : "failed"); });
    page.on("pageerror", (e) => (probing ? probing.console : result.errors).push(String(e)));
    page.on("console", (m) => {
      const text = m.text();
      if (probing) probing.console.push(text);
      else {
        if (CSP_LINE.test(text)) result.refused.push(text);
        if (m.type() === "error") result.errors.push(text);
      }
    });
    await page.addInitScript(listenForViolations);
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
    result.agentNames = await page.evaluate(() => window.rulemapMap.data.agents.map((a) => a.name));
    result.summary = await page.evaluate(() => document.getElementById("summary").textContent);
    result.errorsInData = await page.evaluate(() =>
      window.rulemapMap.data.findings.filter((f) => f.severity === "error").length);
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
      // the files the directory's most common load brings, highlighted where drawn
      const highlight = await page.evaluate((p) => {
        const m = window.rulemapMap, D = m.data;
        const d = D.tree.find((x) => x.path === p);
        const loads = d.loads[m.state.agent] || [];
        const load = loads.length ? D.loads[m.state.agent][loads[0][0]] : null;
        const drawn = new Set(m.cy.nodes().map((n) => n.id()));
        return {
          shown: m.cy.nodes(".inload").map((n) => n.id()).sort(),
          expected: load ? load.files.map((e) => D.paths[D.entries[e][0]]).filter((x) => drawn.has(x)).sort() : [],
        };
      }, dir.child);
      result.steps.dir = { path: dir.path, child: dir.child, before, after, why, highlight };
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
        const budgeted = D.agents.find((a) => a.name === name).limit > 0;
        // docs/map.md: a budget's share; without one, amber past the size warning, green
        // where it loads something
        return Array.from(document.querySelectorAll("#tree .row")).map((r) => {
          const s = at[r.getAttribute("data-dir")].agents[name];
          const nothing = !s[1] && !s[2] && !s[3] && !s[4];
          const c = nothing ? "none" : s[1] ? "over" : budgeted ? (s[0] === null ? "none" : s[0] < 500 ? "ok" : s[0] < 1000 ? "warn" : "over")
            : s[5] ? "warn" : s[3] ? "ok" : "none";
          return [r.getAttribute("data-dir"), c];
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
      const kept = () => page.evaluate(() => ({
        zoom: window.rulemapMap.cy.zoom(), pan: window.rulemapMap.cy.pan(),
        details: document.querySelector("#details h3") ? document.querySelector("#details h3").textContent : null,
        selected: JSON.stringify(window.rulemapMap.state.selected),
      }));
      const keptBefore = await kept();
      await page.click(`#agents button[data-agent="${pick}"]`);
      const keptAfter = await kept();
      const second = await colours();

      result.steps.agent = {
        agent: pick, first, firstExpected, second, secondExpected: await expected(pick), keptBefore, keptAfter,
        selected: await page.evaluate(() => document.querySelector('#agents button[aria-selected="true"]').getAttribute("data-agent")),
      };
      await shot(page, "agent");
    }

    // every agent's row figures and colours (docs/map.md): "–" only where it loads nothing
    {
      const names = await page.evaluate(() => window.rulemapMap.data.agents.map((a) => a.name));
      const was = await page.evaluate(() => window.rulemapMap.state.agent);
      result.figures = {};
      for (const n of names) {
        await page.click(`#agents button[data-agent="${n}"]`);
        result.figures[n] = await page.evaluate(() => {
          const D = window.rulemapMap.data;
          const at = {};
          D.tree.forEach((d) => { at[d.path] = d; });
          return Array.from(document.querySelectorAll("#tree .row")).map((r) => [
            r.getAttribute("data-dir"), r.querySelector(".pct").textContent,
            at[r.getAttribute("data-dir")].agents[window.rulemapMap.state.agent],
            r.getAttribute("data-colour")]);
        });
      }
      await page.click(`#agents button[data-agent="${was}"]`);
      await shot(page, "figures");
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

    // the tree by keyboard alone (the ARIA tree pattern)
    {
      const focused = () => page.evaluate(() => {
        const r = document.activeElement;
        return r && r.classList.contains("row") ? { dir: r.getAttribute("data-dir"), expanded: r.getAttribute("aria-expanded"), tabbable: document.querySelectorAll('#tree .row[tabindex="0"]').length } : null;
      });
      await page.focus('#tree .row[data-dir=""]');
      await page.keyboard.press("Home");
      const keys = { start: await focused() };
      await page.keyboard.press("ArrowDown");
      keys.down = await focused();
      // the first directory below the root with children of its own
      const target = await page.evaluate(() => {
        const D = window.rulemapMap.data;
        const i = D.tree.findIndex((d) => d.path && !d.path.includes("/") && d.children.length);
        return i < 0 ? null : { path: D.tree[i].path, child: D.tree[D.tree[i].children[0]].path };
      });
      if (target) {
        await page.evaluate((p) => window.rulemapMap.toggle(window.rulemapMap.reveal(p), true), target.path);
        await page.focus(`#tree .row[data-dir="${target.path}"]`);
        await page.keyboard.press("ArrowLeft"); // an open directory closes
        keys.closed = await focused();
        await page.keyboard.press("ArrowRight");
        keys.opened = await focused();
        await page.keyboard.press("ArrowRight");
        keys.child = await focused();
        await page.keyboard.press("ArrowLeft");
        keys.parent = await focused();
        await page.keyboard.press("Enter");
        keys.details = await page.evaluate(() => document.querySelector("#details h3").textContent);
        keys.target = target;
      }
      result.steps.keys = keys;
      await shot(page, "keys");
    }

    // readable: the graph's labels on screen, and Details at 1024×700 (a laptop, the
    // webview's default size) without a part cut off
    result.matchEdges = await page.evaluate(() => window.rulemapMap.cy.edges('[kind = "matches"]').map((e) => [e.source().id(), e.target().id()]));
    result.nestedEdges = await page.evaluate(() => window.rulemapMap.cy.edges('[kind = "nested"]').map((e) => [e.source().id(), e.target().id(), e.data("on"), e.visible()]));
    result.legend = await page.evaluate(() => Array.from(document.querySelectorAll("#graph-legend > span")).map((e) => ({
      text: e.textContent.trim(), visible: e.getBoundingClientRect().height > 0 })));
    result.labelPx = await page.evaluate(() => {
      const cy = window.rulemapMap.cy;
      const sizes = cy.elements().filter((e) => e.data("label")).map((e) => parseFloat(e.style("font-size")) * cy.zoom());
      return sizes.length ? Math.min(...sizes) : null;
    });
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.evaluate(() => {
      const D = window.rulemapMap.data;
      const deepest = D.tree.reduce((best, d, i) => (d.path.split("/").length > D.tree[best].path.split("/").length ? i : best), 0);
      window.rulemapMap.selectDir(deepest);
    });
    await page.waitForTimeout(300);
    result.small = await page.evaluate(() => {
      const box = document.getElementById("details");
      const r = box.getBoundingClientRect();
      const cells = Array.from(box.querySelectorAll("td, th"));
      return {
        width: window.innerWidth, right: r.right, scrollWidth: box.scrollWidth, clientWidth: box.clientWidth,
        // a cell's text wider than the cell (cut, not wrapped)
        clipped: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
      };
    });
    await shot(page, "small");
    // narrower still: a webview beside a file (the panels stack; none is cut off)
    result.narrow = {};
    for (const width of [800, 560]) {
      await page.setViewportSize({ width, height: 800 });
      await page.waitForTimeout(200);
      result.narrow[width] = await page.evaluate(() => ["tree-panel", "graph-panel", "details-panel", "findings-panel"].map((id) => {
        const r = document.getElementById(id).getBoundingClientRect();
        return [id, Math.round(r.left), Math.round(r.right), Math.round(r.width), window.innerWidth];
      }));
      await shot(page, `narrow-${width}`);
    }
    await page.setViewportSize({ width: 1600, height: 1000 });

    // find by part of a name: the shortest instruction file or rule path holding it
    await page.fill("#find", "");
    const part = await page.evaluate(() => {
      const docs = window.rulemapMap.data.graph.nodes.filter((n) => !n.id.startsWith("/") && n.id.includes("/"));
      if (!docs.length) return null;
      const id = docs[docs.length - 1].id;
      return id.slice(id.lastIndexOf("/") - 2).toUpperCase(); // a tail, in other letter case
    });
    if (part) {
      await page.fill("#find", part);
      await page.press("#find", "Enter");
      result.steps.part = {
        typed: part,
        title: await page.evaluate(() => document.querySelector("#details h3").textContent),
        expected: await page.evaluate((p) => window.rulemapMap.data.graph.nodes.map((n) => n.id)
          .filter((id) => !id.startsWith("/") && id.toLowerCase().includes(p.toLowerCase()))
          .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))[0], part),
      };
      await shot(page, "part");
    }

    // a sentence, not a name: a page opened from a file says how to ask where it reaches
    await page.fill("#find", "Keep every handler small and tested");
    await page.press("#find", "Enter");
    result.steps.sentence = {
      title: await page.evaluate(() => document.querySelector("#details h3").textContent),
      hint: await page.evaluate(() => (document.getElementById("why-hint") || {}).textContent || null),
    };
    await shot(page, "sentence");

    // the page's own policy, and every violation while it was used (none, the test says)
    result.policy = await page.evaluate(() => {
      const meta = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
      return meta ? meta.getAttribute("content") : null;
    });
    result.violations = await page.evaluate(() => window.__cspViolations);
    result.styled = await page.evaluate(() => ({
      // the stylesheet applied: the grid of panels, the header's flex row
      main: getComputedStyle(document.querySelector("main")).display,
      header: getComputedStyle(document.querySelector("header")).display,
      graphPosition: getComputedStyle(document.getElementById("graph")).position,
    }));

    // the probe: what an escaping bug would put in the page is refused
    probing = { console: [], requests: [], failed: [] };
    const before = result.violations.length;
    result.probe = await page.evaluate(async () => {
      const target = document.createElement("div");
      target.id = "csp-probe";
      document.body.appendChild(target);
      const style = document.createElement("style");
      style.textContent = "#csp-probe { outline: 7px solid rgb(1, 2, 3); }";
      document.head.appendChild(style);
      target.setAttribute("style", "color: rgb(4, 5, 6)");
      target.setAttribute("onclick", "window.__handlerRan = true");
      target.click();
      const script = document.createElement("script");
      script.textContent = "window.__scriptRan = true";
      document.body.appendChild(script);
      const img = document.createElement("img");
      img.src = "https://example.invalid/x.png";
      document.body.appendChild(img);
      await new Promise((r) => setTimeout(r, 300)); // violation events are queued as tasks
      const seen = getComputedStyle(target);
      return {
        styleApplied: seen.outlineColor === "rgb(1, 2, 3)",
        attributeApplied: seen.color === "rgb(4, 5, 6)",
        handlerRan: window.__handlerRan === true,
        scriptRan: window.__scriptRan === true,
      };
    });
    result.probe.violations = (await page.evaluate(() => window.__cspViolations)).slice(before).map((v) => v.directive);
    result.probe.console = probing.console.filter((line) => CSP_LINE.test(line));
    result.probe.requests = probing.requests;
    result.probe.failed = probing.failed;
    probing = null;
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(result) + "\n");
})().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + "\n");
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(1);
});
