/* Rulemap's instruction map (docs/map.md). This script only shows the data `rulemap map`
   computed in Python (the JSON above it): it never works out what an agent loads. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("rulemap-data").textContent);
  // the directories come packed as rows (page.py `packed`): objects again, by agent name
  function unpackTree(tree) {
    if (Array.isArray(tree)) return tree;
    return tree.rows.map(function (r) {
      var d = { path: r[0], name: r[0] === "" ? "." : r[0].slice(r[0].lastIndexOf("/") + 1), files: r[1], own: r[2], docs: r[3], children: r[4], agents: {}, loads: {} };
      tree.agents.forEach(function (name, k) {
        if (r[5][k]) d.agents[name] = r[5][k];
        if (r[6][k]) d.loads[name] = r[6][k];
      });
      return d;
    });
  }
  D.tree = unpackTree(D.tree);
  var GRAPH_CAP = 40; // instruction files and rules drawn at once; beyond, grouped by directory
  var SMALL_GROUP = 12; // a group this small is drawn open while the cap allows
  var IMPORTS_SHOWN = 8; // per file; the rest as one "+K more" node
  var DEPTH = 2; // import hops followed from the files drawn
  var FINDINGS_SHOWN = 200;
  var REASONS = {
    project: "project file", nested: "nested file of its directory", rule: "rule, always",
    scoped: "scoped rule, globs match", "import": "imported", user: "user-level file",
    requested: "asked for"
  };
  var DOC_KINDS = { instruction: 1, rule: 1, "scoped-rule": 1 };

  // the page opens on the lead agent (host/selection.py): the one whose files are here
  var lead = D.lead && D.agents.some(function (a) { return a.name === D.lead.name; }) ? D.lead.name : null;
  var state = { agent: lead || (D.agents.length ? D.agents[0].name : null), scope: "", selected: null };
  var nodesById = {};
  var outEdges = {};
  var inEdges = {};
  var findingsByPath = {};
  var treeByPath = {};
  var rows = {}; // tree index -> {row, kids, open}
  var cy = null;

  D.graph.nodes.forEach(function (n) { nodesById[n.id] = n; });
  D.graph.edges.forEach(function (e) {
    (outEdges[e.from] = outEdges[e.from] || []).push(e);
    (inEdges[e.to] = inEdges[e.to] || []).push(e);
  });
  D.findings.forEach(function (f) { (findingsByPath[f.path] = findingsByPath[f.path] || []).push(f); });
  D.tree.forEach(function (d, i) { treeByPath[d.path] = i; });

  // ----- small helpers ------------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") node.textContent = attrs[k];
        else if (k === "cls") node.className = attrs[k];
        else if (k === "on") node.addEventListener("click", attrs[k]);
        else node.setAttribute(k, attrs[k]);
      });
    }
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function num(n) { return Number(n).toLocaleString("en-US"); }
  function plural(n, one, many) { return num(n) + " " + (n === 1 ? one : (many || one + "s")); }
  function agentOf(name) { for (var i = 0; i < D.agents.length; i++) if (D.agents[i].name === name) return D.agents[i]; return null; }
  function dirname(p) { var i = p.lastIndexOf("/"); return i < 0 ? "" : p.slice(0, i); }
  function under(scope, p) { return scope === "" || p.indexOf(scope + "/") === 0; }
  function colour(share, over) {
    if (over) return "over";
    if (share === null || share === undefined) return "none";
    return share < 500 ? "ok" : share < 1000 ? "warn" : "over";
  }
  function pct(share) { return share === null || share === undefined ? "–" : Math.round(share / 10) + "%"; }
  // A directory's figures for an agent: [share, over, leftOut, size, loaded, warned] (tree.py).
  // An agent with a budget is measured by its share of it; one without, by the size it loads
  // (the bar against the largest load in the repository) and marked past its size warning.
  function budgeted(agent) { return !!agent && agent.limit > 0; }
  function statsOf(d, name) { return d.agents[name] || [null, 0, 0, 0, 0, 0]; }
  function loadsNothing(s) { return !s[1] && !s[2] && !s[3] && !s[4]; }
  function measureColour(agent, s) {
    if (loadsNothing(s)) return "none";
    if (budgeted(agent) || s[1]) return colour(s[0], s[1]);
    return s[5] ? "warn" : s[3] ? "ok" : "none";
  }
  function compact(n) {
    return n >= 1e6 ? (n / 1e6).toFixed(1) + "M" : n >= 1e4 ? Math.round(n / 1e3) + "k" : n >= 1e3 ? (n / 1e3).toFixed(1) + "k" : String(n);
  }
  // in a tree row, "1.2k · 8" (size · files; the legend and the tooltip say so: a narrow
  // panel keeps the directory's name); in Details, "1.2k chars · 8 files"
  function measureText(agent, s, short) {
    if (loadsNothing(s)) return "–";
    if (budgeted(agent)) return pct(s[0]);
    return short ? compact(s[3]) + " · " + num(s[4]) : compact(s[3]) + " " + (agent ? agent.unit : "") + " · " + plural(s[4], "file");
  }
  function measureTitle(agent, s) {
    if (budgeted(agent)) return "largest share of the budget a file here uses";
    if (!agent) return "";
    var t = "largest load of a file here: " + num(s[3]) + " " + agent.unit + " in " + plural(s[4], "file") + " (" + agent.title + " has no shared budget: the bar is against the largest load in the repository)";
    if (agent.sizeWarning) t += s[5] ? "; " + plural(s[5], "file") + " here load a file over " + agent.title + "'s " + num(agent.sizeWarning) + "-character size warning" : "; no file over its " + num(agent.sizeWarning) + "-character size warning";
    return t;
  }
  function measureBar(agent, s) {
    var width;
    if (budgeted(agent) || !agent) width = s[0] === null || s[0] === undefined ? 0 : Math.min(100, s[0] / 10);
    else {
      var largest = statsOf(D.tree[0], agent.name)[3];
      width = largest ? Math.max(s[3] ? 2 : 0, Math.min(100, s[3] * 100 / largest)) : 0;
    }
    var b = el("span", { cls: "bar " + measureColour(agent, s), title: measureTitle(agent, s) });
    var fill = el("i"); fill.style.width = width + "%"; b.appendChild(fill);
    return b;
  }
  function unitName(agent) { return agent ? agent.unit : ""; }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  // ----- header ---------------------------------------------------------------------------
  function header() {
    document.getElementById("root-name").textContent = D.root;
    var errors = D.findings.filter(function (f) { return f.severity === "error"; }).length;
    document.getElementById("summary").textContent =
      plural(D.files, "file") + " in " + plural(D.tree.length, "directory", "directories") + " · " +
      plural(D.graph.nodes.filter(function (n) { return DOC_KINDS[n.kind]; }).length, "instruction file or rule", "instruction files and rules") +
      " · " + plural(D.findingsTotal, "finding") + (errors ? " (" + plural(errors, "error") + ")" : "") +
      " · cwd " + D.cwd;
    var box = document.getElementById("agents");
    D.agents.forEach(function (a) {
      box.appendChild(el("button", {
        type: "button", role: "tab", "data-agent": a.name, "aria-selected": String(a.name === state.agent),
        title: a.title + (a.why ? " (selected: " + a.why + ")" : "") + ": " + a.budgetLine + " at start-up" + (a.sampled ? " (one file per directory explained)" : ""),
        text: a.title, on: function () { setAgent(a.name); }
      }));
    });
  }

  function setAgent(name) {
    state.agent = name;
    Array.prototype.forEach.call(document.querySelectorAll("#agents button"), function (b) {
      b.setAttribute("aria-selected", String(b.getAttribute("data-agent") === name));
    });
    Object.keys(rows).forEach(function (i) { paintRow(Number(i)); });
    treeNote();
    if (cy) {
      cy.nodes().forEach(function (n) { n.data("reach", reachClass(n.data("id"))); });
      cy.edges('[kind = "nested"]').forEach(function (e) { e.data("on", nestedOn(e.data("agents"))); });
    }
    if (state.selected) show(state.selected);
  }

  // ----- directory tree (children built on demand) ------------------------------------------
  function treeNote() {
    var a = agentOf(state.agent);
    // the legend in the chosen agent's measure: its budget's share, or the size it loads
    document.getElementById("legend-ok").textContent = budgeted(a) || !a ? "< 50% of the budget" : a.unit + " · files a file here loads (bar: against the largest)";
    document.getElementById("legend-warn").textContent = budgeted(a) || !a ? "50–100%" : a.sizeWarning ? "a file over its " + num(a.sizeWarning) + "-character size warning" : "(no size warning documented)";
    document.getElementById("tree-note").textContent = a ? "· " + a.title + (a.sampled ? " (sampled per directory)" : "") : "";
  }
  function rowFor(i, depth) {
    var d = D.tree[i];
    var twist = el("span", { cls: "twist", text: d.children.length ? "▸" : "" });
    var row = el("div", { cls: "row", role: "treeitem", "data-dir": d.path, "data-index": String(i), tabindex: i === 0 ? "0" : "-1", "aria-level": String(depth + 1) });
    if (d.children.length) row.setAttribute("aria-expanded", "false");
    row.style.paddingLeft = 8 + depth * 14 + "px";
    row.appendChild(twist);
    row.appendChild(el("span", { cls: "name", text: d.path === "" ? D.root + "/" : d.name + "/", title: d.path || "." }));
    var wrap = el("div", null, [row]);
    var kids = el("div");
    kids.hidden = true;
    wrap.appendChild(kids);
    rows[i] = { row: row, kids: kids, open: false, depth: depth, twist: twist };
    paintRow(i);
    twist.addEventListener("click", function (ev) { ev.stopPropagation(); toggle(i); });
    row.addEventListener("click", function () { selectDir(i); });
    row.addEventListener("dblclick", function () { toggle(i); });
    return wrap;
  }
  function paintRow(i) {
    var r = rows[i], d = D.tree[i];
    var agent = agentOf(state.agent);
    var stats = statsOf(d, state.agent);
    var old = r.row.querySelectorAll(".extra");
    Array.prototype.forEach.call(old, function (n) { n.remove(); });
    var extra = [];
    if (d.docs) extra.push(el("span", { cls: "badge doc extra", title: "instruction files and rules here", text: String(d.docs) }));
    extra.push(el("span", { cls: "count extra", text: num(d.files) }));
    var b = measureBar(agent, stats); b.classList.add("extra"); extra.push(b);
    extra.push(el("span", { cls: "pct extra" + (budgeted(agent) ? "" : " size"), text: measureText(agent, stats, true), title: measureTitle(agent, stats) }));
    if (stats[1]) extra.push(el("span", { cls: "badge extra", title: plural(stats[1], "file") + " whose load is cut or leaves files out", text: num(stats[1]) + " over" }));
    else if (!budgeted(agent) && stats[5]) extra.push(el("span", { cls: "badge warn extra", title: measureTitle(agent, stats), text: num(stats[5]) + " large" }));
    extra.forEach(function (n) { r.row.appendChild(n); });
    r.row.setAttribute("data-colour", measureColour(agent, stats));
  }
  function toggle(i, open) {
    var r = rows[i], d = D.tree[i];
    if (!d.children.length) return;
    var want = open === undefined ? !r.open : open;
    if (want && !r.kids.firstChild) {
      var frag = document.createDocumentFragment();
      d.children.forEach(function (c) { frag.appendChild(rowFor(c, r.depth + 1)); });
      r.kids.appendChild(frag);
    }
    r.open = want;
    r.kids.hidden = !want;
    r.twist.textContent = want ? "▾" : "▸";
    r.row.setAttribute("aria-expanded", String(want));
  }
  // The keyboard (the ARIA tree pattern): ↑/↓ the previous/next visible directory, → opens a
  // directory or goes to its first child, ← closes it or goes to its parent, Home/End the
  // first/last, Enter or Space shows its Details. One row is in the tab order at a time.
  function visibleRows() {
    return Array.prototype.filter.call(document.querySelectorAll("#tree .row"), function (r) { return r.offsetParent !== null; });
  }
  function focusRow(row) {
    Array.prototype.forEach.call(document.querySelectorAll('#tree .row[tabindex="0"]'), function (r) { r.setAttribute("tabindex", "-1"); });
    row.setAttribute("tabindex", "0");
    row.focus();
  }
  function treeKeys(ev) {
    var row = ev.target.closest ? ev.target.closest(".row") : null;
    if (!row) return;
    var i = Number(row.getAttribute("data-index")), d = D.tree[i], r = rows[i];
    var shown = visibleRows(), at = shown.indexOf(row), next = null;
    if (ev.key === "ArrowDown") next = shown[at + 1];
    else if (ev.key === "ArrowUp") next = shown[at - 1];
    else if (ev.key === "Home") next = shown[0];
    else if (ev.key === "End") next = shown[shown.length - 1];
    else if (ev.key === "ArrowRight") {
      if (d.children.length && !r.open) toggle(i, true);
      else if (d.children.length) next = rows[d.children[0]].row;
    } else if (ev.key === "ArrowLeft") {
      if (d.children.length && r.open) toggle(i, false);
      else if (d.path) next = rows[treeByPath[dirname(d.path)]].row;
    } else if (ev.key === "Enter" || ev.key === " ") selectDir(i);
    else return;
    ev.preventDefault();
    if (next) focusRow(next);
  }
  function reveal(path) { // expand the tree down to `path`; its index
    var parts = path === "" ? [] : path.split("/");
    var at = "";
    toggle(0, true);
    for (var k = 0; k < parts.length; k++) {
      at = at ? at + "/" + parts[k] : parts[k];
      var i = treeByPath[at];
      if (i === undefined) break;
      if (k < parts.length - 1) toggle(i, true);
    }
    return treeByPath[path];
  }
  function tree() {
    var box = document.getElementById("tree");
    box.addEventListener("keydown", treeKeys);
    box.appendChild(rowFor(0, 0));
    toggle(0, true);
    treeNote();
  }

  // ----- the instruction graph ------------------------------------------------------------
  function reachClass(id) {
    var n = nodesById[id];
    if (!n || !n.reach || !state.agent) return "";
    var r = n.reach[state.agent];
    if (!r) return "";
    if (r.cut) return "cut";
    if (r.leftOut && !r.files) return "left";
    if (!r.files) return "never";
    return "loaded";
  }
  function nestedOn(agents) { return agents.indexOf(state.agent) >= 0 ? 1 : 0; }
  function elements(scope) {
    var docs = D.graph.nodes.filter(function (n) { return DOC_KINDS[n.kind] && under(scope, n.id); });
    var shown = [], clusters = {}, out = [], seen = {}, note = [];
    // group by the next directory down; a lone group is split again; small groups are
    // drawn while the cap allows, smallest first
    function split(list, prefix) {
      var groups = {};
      list.forEach(function (n) {
        var rest = prefix ? n.id.slice(prefix.length + 1) : n.id;
        var slash = rest.indexOf("/");
        if (slash < 0) shown.push(n);
        else {
          var key = (prefix ? prefix + "/" : "") + rest.slice(0, slash);
          (groups[key] = groups[key] || []).push(n);
        }
      });
      var keys = Object.keys(groups);
      if (keys.length === 1 && groups[keys[0]].length > GRAPH_CAP) return split(groups[keys[0]], keys[0]);
      keys.sort(function (a, b) { return groups[a].length - groups[b].length; });
      keys.forEach(function (k) {
        if (groups[k].length <= SMALL_GROUP && shown.length + groups[k].length <= GRAPH_CAP) shown = shown.concat(groups[k]);
        else clusters[k] = groups[k].length;
      });
    }
    if (docs.length <= GRAPH_CAP) shown = docs;
    else {
      split(docs, scope);
      if (shown.length > GRAPH_CAP) { note.push((shown.length - GRAPH_CAP) + " more here not drawn"); shown = shown.slice(0, GRAPH_CAP); }
    }
    function labelOf(id) {
      var rel = scope && id.indexOf(scope + "/") === 0 ? id.slice(scope.length + 1) : id;
      if (rel.length <= 30) return rel;
      var parts = rel.split("/");
      return parts.length > 2 ? "…/" + parts.slice(-2).join("/") : rel;
    }
    function add(n) {
      if (seen[n.id]) return;
      seen[n.id] = 1;
      var label = labelOf(n.id);
      out.push({ group: "nodes", data: { id: n.id, label: label, kind: DOC_KINDS[n.kind] || n.kind === "import" ? n.kind : "broken", reach: reachClass(n.id), findings: (findingsByPath[n.id] || []).length } });
    }
    shown.forEach(add);
    var frontier = shown.map(function (n) { return n.id; });
    for (var depth = 0; depth < DEPTH && frontier.length; depth++) {
      var next = [];
      frontier.forEach(function (id) {
        var edges = outEdges[id] || [];
        edges.slice(0, IMPORTS_SHOWN).forEach(function (e) {
          var target = nodesById[e.to];
          if (!target) return;
          var fresh = !seen[e.to];
          add(target);
          if (fresh) next.push(e.to);
          out.push({ group: "edges", data: { id: "e:" + e.from + ">" + e.to + ":" + e.line, source: e.from, target: e.to, kind: e.kind, status: e.status, label: e.kind === "symlink" ? "symlink" : e.line ? "@" + e.line : "" } });
        });
        if (edges.length > IMPORTS_SHOWN) {
          var more = "more:" + id;
          out.push({ group: "nodes", data: { id: more, label: "+" + (edges.length - IMPORTS_SHOWN) + " more", kind: "more", of: id } });
          out.push({ group: "edges", data: { id: "e:" + more, source: id, target: more, kind: "import", status: "ok", label: "" } });
        }
      });
      frontier = next;
    }
    // what a directory inherits: a nested file loads after its parent's, for the agents
    // whose loads say so (shown for the chosen one)
    (D.graph.nested || []).forEach(function (e) {
      if (!seen[e.from] || !seen[e.to]) return;
      out.push({ group: "edges", data: { id: "n:" + e.from + ">" + e.to, source: e.from, target: e.to, kind: "nested", status: "ok", label: "then", agents: e.agents, on: nestedOn(e.agents) } });
    });
    // what each scoped rule matches, by directory
    shown.forEach(function (n) {
      if (!n.matched || shown.length > 25) return;
      n.matched.areas.slice(0, 2).forEach(function (a) {
        var path = a[0].replace(/\/$/, "");
        var id = "dir:" + path;
        if (!seen[id]) { seen[id] = 1; out.push({ group: "nodes", data: { id: id, label: (a[0].slice(-1) === "/" ? a[0] : a[0]), kind: "dir", path: path } }); }
        out.push({ group: "edges", data: { id: "m:" + n.id + ">" + id, source: n.id, target: id, kind: "matches", status: "ok", label: num(a[1]) } });
      });
    });
    Object.keys(clusters).sort().forEach(function (key) {
      var label = key.split("/").pop() + "/  (" + clusters[key] + ")";
      out.push({ group: "nodes", data: { id: "cluster:" + key, label: label, kind: "cluster", path: key, w: label.length * 6 + 16 } });
    });
    var drawn = shown.length;
    var total = docs.length;
    var text = "Drawn: " + plural(drawn, "instruction file or rule", "instruction files and rules") + (total > drawn ? " of " + num(total) + " under this directory; the others are grouped by directory (click a group to open it)" : "") +
      ". Imports followed " + DEPTH + " hops, " + IMPORTS_SHOWN + " per file." + (note.length ? " " + note.join("; ") : "");
    return { elements: out, note: text };
  }
  function graphStyle() {
    // the page's own colours (a dark editor theme in a webview gives light text)
    var body = getComputedStyle(document.body);
    var fg = body.color || "#1f2328", bg = body.backgroundColor || "#fff";
    return [
      { selector: "node", style: { label: "data(label)", "font-size": 10, "text-valign": "bottom", "text-margin-y": 3, "text-wrap": "ellipsis", "text-max-width": 140, width: 18, height: 18, "background-color": "#0969da", color: fg, "border-width": 0 } },
      { selector: 'node[kind = "instruction"]', style: { shape: "round-rectangle", width: 26, height: 18, "background-color": "#0969da" } },
      { selector: 'node[kind = "rule"], node[kind = "scoped-rule"]', style: { shape: "tag", "background-color": "#8250df" } },
      { selector: 'node[kind = "import"]', style: { shape: "ellipse", "background-color": "#57606a", width: 14, height: 14 } },
      { selector: 'node[kind = "broken"]', style: { shape: "ellipse", "background-color": bg, "border-width": 2, "border-color": "#cf222e", "border-style": "dashed", width: 14, height: 14 } },
      { selector: 'node[kind = "cluster"]', style: { shape: "round-rectangle", height: 26, "background-color": "#d0d7de", "border-width": 1, "border-color": "#8c959f", "text-valign": "center", "text-margin-y": 0, "font-size": 10, "text-max-width": 200, width: "data(w)" } },
      { selector: 'node[kind = "dir"]', style: { shape: "rectangle", width: 10, height: 10, "background-color": "#afb8c1" } },
      { selector: 'node[kind = "more"]', style: { shape: "round-rectangle", "background-color": "#eaeef2", "border-width": 1, "border-color": "#8c959f", width: 10, height: 10 } },
      { selector: 'node[reach = "never"]', style: { opacity: 0.35 } },
      { selector: 'node[reach = "cut"]', style: { "border-width": 3, "border-color": "#cf222e" } },
      { selector: 'node[reach = "left"]', style: { "border-width": 3, "border-color": "#d4a72c", opacity: 0.6 } },
      { selector: "node[findings > 0]", style: { "underlay-color": "#cf222e", "underlay-opacity": 0.18, "underlay-padding": 5, "underlay-shape": "ellipse" } },
      { selector: "node.inload", style: { "underlay-color": "#2da44e", "underlay-opacity": 0.35, "underlay-padding": 7, "underlay-shape": "round-rectangle" } },
      { selector: "node:selected", style: { "overlay-color": "#0969da", "overlay-opacity": 0.25, "overlay-padding": 6 } },
      { selector: "edge", style: { width: 1.2, "line-color": "#8c959f", "target-arrow-color": "#8c959f", "target-arrow-shape": "triangle", "curve-style": "bezier", "arrow-scale": 0.8, label: "data(label)", "font-size": 8, color: fg, "text-opacity": 0.7, "text-rotation": "autorotate", "text-background-color": bg, "text-background-opacity": 0.8 } },
      { selector: 'edge[status != "ok"]', style: { "line-color": "#cf222e", "target-arrow-color": "#cf222e", "line-style": "dashed" } },
      { selector: 'edge[kind = "matches"]', style: { "line-color": "#c297ff", "target-arrow-color": "#c297ff", "line-style": "dotted" } },
      { selector: 'edge[kind = "symlink"]', style: { "line-style": "dashed" } },
      { selector: 'edge[kind = "nested"]', style: { "line-color": "#0969da", "target-arrow-color": "#0969da", width: 1.6 } },
      { selector: 'edge[kind = "nested"][on = 0]', style: { display: "none" } }
    ];
  }
  function draw() {
    var built = elements(state.scope);
    document.getElementById("scope").textContent = state.scope ? "· " + state.scope + "/" : "· whole repository";
    document.getElementById("scope-up").disabled = !state.scope;
    document.getElementById("graph-note").textContent = built.note;
    if (typeof cytoscape !== "function") {
      document.getElementById("graph").textContent = "The graph library did not load.";
      return;
    }
    if (cy) cy.destroy();
    var big = built.elements.length > 400;
    var box = document.getElementById("graph");
    cy = cytoscape({
      container: document.getElementById("graph"), elements: built.elements, style: graphStyle(),
      layout: big ? { name: "grid", avoidOverlap: true } : { name: "cose", animate: false, randomize: false, nodeDimensionsIncludeLabels: true, boundingBox: { x1: 0, y1: 0, w: Math.max(300, box.clientWidth), h: Math.max(200, box.clientHeight) }, nodeRepulsion: function () { return 12000; }, nodeOverlap: 40, componentSpacing: 60, idealEdgeLength: function () { return 70; }, padding: 24, numIter: 800 },
      wheelSensitivity: 0.3, minZoom: 0.1, maxZoom: 3, boxSelectionEnabled: false
    });
    if (cy.zoom() > 1.3) { cy.zoom(1.3); cy.center(); }
    readableLabels();
    cy.on("tap", "node", function (ev) {
      var d = ev.target.data();
      if (d.kind === "cluster") setScope(d.path);
      else if (d.kind === "dir") selectDir(reveal(d.path));
      else if (d.kind === "more") showDoc(d.of);
      else showDoc(d.id);
    });
    api.cy = cy;
  }
  // Labels drawn at least LABEL_PX on screen at the zoom a drawing opens with (a fitted graph
  // is often zoomed out: 10-unit labels came out at 7–8 px); zooming further out shrinks them.
  var LABEL_PX = 11;
  function readableLabels() {
    if (!cy) return;
    var scale = Math.max(1, 1 / cy.zoom());
    cy.style()
      .selector("node").style({ "font-size": LABEL_PX * scale, "text-max-width": 140 * scale })
      .selector('node[kind = "cluster"]').style({ "font-size": LABEL_PX * scale, "text-max-width": 200 * scale })
      .selector("edge").style({ "font-size": LABEL_PX * scale })
      .update();
  }
  function setScope(path) {
    state.scope = path;
    draw();
    var i = reveal(path);
    if (i !== undefined) highlightRow(i);
  }

  // ----- details: reach of a file, "why" of a directory -----------------------------------
  function show(sel) { if (sel.type === "doc") showDoc(sel.id); else selectDir(sel.index); }
  function highlightRow(i) {
    Array.prototype.forEach.call(document.querySelectorAll(".row.selected"), function (r) { r.classList.remove("selected"); r.removeAttribute("aria-selected"); });
    if (rows[i]) {
      rows[i].row.classList.add("selected");
      rows[i].row.setAttribute("aria-selected", "true");
      if (rows[i].row.scrollIntoView) rows[i].row.scrollIntoView({ block: "nearest" });
    }
  }
  function reachRow(a, r) {
    if (!r) return el("tr", null, [el("td", { text: a.title }), el("td", { colspan: "3", cls: "never", text: "not computed" })]);
    if (!r.files && !r.leftOut) {
      return el("tr", { "data-agent": a.name }, [el("td", { text: a.title }), el("td", { colspan: "3", cls: "never", text: "never: " + (r.never || "no file's load includes it") })]);
    }
    var cut = r.cut ? plural(r.cut, "file") + (r.cutLine ? ", from line " + r.cutLine : "") : "–";
    return el("tr", { "data-agent": a.name, cls: r.cut ? "cut" : "" }, [
      el("td", { text: a.title + (a.sampled ? " *" : "") }), el("td", { cls: "num", text: num(r.files) }),
      el("td", { text: cut }), el("td", { cls: "num", text: r.leftOut ? num(r.leftOut) : "–" })
    ]);
  }
  function findingList(list) {
    var box = el("div");
    list.slice(0, 50).forEach(function (f) { box.appendChild(findingRow(f, false)); });
    return box;
  }
  function showDoc(id) {
    var n = nodesById[id];
    if (!n) return;
    state.selected = { type: "doc", id: id };
    highlightLoad(null);
    if (cy) { cy.$(":selected").unselect(); var g = cy.getElementById(id); if (g && g.length) g.select(); }
    var box = clear(document.getElementById("details"));
    box.appendChild(el("h3", null, [el("code", { text: id })]));
    var kind = { instruction: "instruction file", rule: "rule (always loaded)", "scoped-rule": "scoped rule", "import": "imported file" }[n.kind] || n.kind + " import target";
    box.appendChild(el("div", { cls: "note", text: kind + (n.chars !== undefined ? " · " + num(n.chars) + " chars" : "") + (n.aliasOf ? " · a symlink to " + n.aliasOf : "") }));
    if (n.globs && n.globs.length) {
      box.appendChild(el("h4", { text: "Globs" }));
      box.appendChild(el("div", null, n.globs.map(function (g) { return el("code", { text: g + "  " }); })));
      if (n.matched) {
        var m = n.matched;
        box.appendChild(el("div", { cls: "note", text: "matches " + plural(m.files, "file") + (m.under ? " under " + m.under + "/" : "") + (m.every && m.under ? " (every file there)" : "") }));
        m.areas.forEach(function (a) {
          var path = a[0].replace(/\/$/, "");
          box.appendChild(el("div", null, [el("span", { cls: "linkish", text: a[0], on: function () { if (treeByPath[path] !== undefined) selectDir(reveal(path)); } }), " " + num(a[1])]));
        });
      }
    }
    box.appendChild(el("h4", { text: "Who loads it (files of the repository whose load includes it)" }));
    var table = el("table", { id: "reach-table" }, [el("tr", null, [el("th", { text: "agent" }), el("th", { text: "files" }), el("th", { text: "cut by the budget" }), el("th", { text: "left out" })])]);
    D.agents.forEach(function (a) { table.appendChild(reachRow(a, n.reach ? n.reach[a.name] : null)); });
    box.appendChild(table);
    if (D.agents.some(function (a) { return a.sampled; })) box.appendChild(el("div", { cls: "note", text: "* this agent has no load groups: one file per directory was explained, and stands for its directory." }));
    var outs = outEdges[id] || [], ins = inEdges[id] || [];
    if (outs.length) {
      box.appendChild(el("h4", { text: "Imports (" + outs.length + ")" }));
      outs.forEach(function (e) { box.appendChild(el("div", null, [el("span", { cls: "linkish", text: e.to, on: function () { showDoc(e.to); } }), " " + (e.kind === "symlink" ? "symlink" : e.line ? "line " + e.line : "") + (e.status !== "ok" ? " — " + e.status : "")])); });
    }
    if (ins.length) {
      box.appendChild(el("h4", { text: "Imported by (" + ins.length + ")" }));
      ins.forEach(function (e) { box.appendChild(el("div", null, [el("span", { cls: "linkish", text: e.from, on: function () { showDoc(e.from); } }), " " + (e.kind === "symlink" ? "symlink" : e.line ? "line " + e.line : "")])); });
    }
    var fs = findingsByPath[id] || [];
    if (fs.length) { box.appendChild(el("h4", { text: "Findings (" + fs.length + ")" })); box.appendChild(findingList(fs)); }
  }
  function highlightLoad(load) {
    if (!cy) return;
    cy.nodes(".inload").removeClass("inload");
    if (!load) return;
    load.files.forEach(function (entryId) {
      var node = cy.getElementById(D.paths[D.entries[entryId][0]]);
      if (node.length) node.addClass("inload");
    });
  }
  function loadTable(agent, load) {
    var t = el("table", { cls: "load" }, [el("tr", null, [el("th", { text: "#" }), el("th", { text: "file" }), el("th", { text: "why" }), el("th", { text: unitName(agent) }), el("th", { text: "cut at" })])]);
    load.files.forEach(function (entryId, k) {
      var e = D.entries[entryId];
      var why = REASONS[e[1]] || e[1];
      if (e[2] >= 0) why += " by " + D.paths[e[2]];
      t.appendChild(el("tr", { cls: e[5] ? "cut" : "" }, [
        el("td", { cls: "num", text: String(k + 1) }),
        el("td", null, [el("span", { cls: nodesById[D.paths[e[0]]] ? "linkish" : "", text: D.paths[e[0]], on: function () { if (nodesById[D.paths[e[0]]]) showDoc(D.paths[e[0]]); } })]),
        el("td", { text: why }), el("td", { cls: "num", text: num(e[3]) }),
        el("td", { text: e[5] ? (e[4] ? "line " + e[4] : "cut") : "" })
      ]));
    });
    return t;
  }
  function selectDir(i) {
    if (i === undefined) return;
    var d = D.tree[i];
    state.selected = { type: "dir", index: i };
    if (!rows[i]) reveal(d.path);
    highlightRow(i);
    if (cy) cy.$(":selected").unselect();
    var box = clear(document.getElementById("details"));
    box.appendChild(el("h3", null, [el("code", { text: (d.path || D.root) + "/" })]));
    box.appendChild(el("div", { cls: "note", text: plural(d.files, "file") + " under it, " + num(d.own) + " directly in it" + (d.docs ? ", " + plural(d.docs, "instruction file or rule", "instruction files and rules") + " here" : "") }));
    box.appendChild(el("div", null, [el("span", { cls: "linkish", text: "draw this directory's instructions", on: function () { setScope(d.path); } })]));
    var t = el("table", { id: "dir-agents" }, [el("tr", null, [el("th", { text: "agent" }), el("th", { text: "largest share or load" }), el("th", { text: "files over" }), el("th", { text: "leaving files out" })])]);
    D.agents.forEach(function (a) {
      var s = statsOf(d, a.name);
      t.appendChild(el("tr", { "data-agent": a.name, cls: s[1] ? "cut" : "" }, [el("td", { text: a.title }), el("td", null, [measureBar(a, s), " " + measureText(a, s)]), el("td", { cls: "num", text: num(s[1]) }), el("td", { cls: "num", text: num(s[2]) })]));
    });
    box.appendChild(t);
    var agent = agentOf(state.agent);
    if (!agent) return;
    box.appendChild(el("h4", { text: "Why: what " + agent.title + " loads for the files directly in it" }));
    var loads = d.loads[agent.name] || [];
    highlightLoad(null);
    if (!loads.length) {
      box.appendChild(el("div", { cls: "note", text: d.own ? "no load recorded" : "no file directly here; open a subdirectory" }));
      return;
    }
    if (agent.sampled) box.appendChild(el("div", { cls: "note", text: agent.title + " has no load groups: the load of one file of this directory stands for all of them." }));
    // the files its most common load brings, highlighted in the graph
    highlightLoad(D.loads[agent.name][loads[0][0]]);
    loads.forEach(function (pair) {
      var load = D.loads[agent.name][pair[0]];
      var share = load.share === null ? "" : " (" + pct(load.share) + " of " + num(agent.limit) + ")";
      box.appendChild(el("div", { cls: "note" }, [el("strong", { text: plural(pair[1], "file") }), " load " + plural(load.files.length, "file") + ", " + num(load.total) + " " + agent.unit + share + (load.over ? " — over the budget" : "") + "; e.g. " + D.paths[load.example]]));
      box.appendChild(loadTable(agent, load));
      if (load.leftOut.length) {
        box.appendChild(el("div", { cls: "note", text: "left out over the budget: " + load.leftOut.map(function (p) { return D.paths[p]; }).join(", ") }));
      }
      if (load.warned && load.warned.length) {
        box.appendChild(el("div", { cls: "note", text: "over " + agent.title + "'s " + num(agent.sizeWarning) + "-character size warning: " + load.warned.map(function (p) { return D.paths[p]; }).join(", ") }));
      }
    });
  }

  // ----- findings ---------------------------------------------------------------------------
  function findingRow(f, jump) {
    var row = el("div", { cls: "finding" }, [
      el("span", { cls: "sev " + f.severity, text: f.severity }), el("code", { text: f.code }), " ",
      el("span", { cls: "muted", text: f.path + ":" + f.line }), el("div", { text: f.message })
    ]);
    if (jump !== false) row.addEventListener("click", function () {
      if (nodesById[f.path]) showDoc(f.path);
      else { var i = treeByPath[dirname(f.path)]; if (i !== undefined) selectDir(reveal(dirname(f.path))); }
    });
    return row;
  }
  function findings() {
    var box = document.getElementById("findings");
    document.getElementById("findings-count").textContent = "· " + num(D.findingsTotal) + (D.findingsTotal > D.findings.length ? " (first " + num(D.findings.length) + " listed)" : "");
    var shown = 0;
    function more() {
      var frag = document.createDocumentFragment();
      D.findings.slice(shown, shown + FINDINGS_SHOWN).forEach(function (f) { frag.appendChild(findingRow(f)); });
      shown += FINDINGS_SHOWN;
      var old = box.querySelector(".more"); if (old) old.remove();
      box.appendChild(frag);
      if (shown < D.findings.length) box.appendChild(el("div", { cls: "more" }, [el("span", { cls: "linkish", text: "show " + Math.min(FINDINGS_SHOWN, D.findings.length - shown) + " more", on: more })]));
    }
    if (!D.findings.length) box.appendChild(el("div", { cls: "more muted", text: "No findings." }));
    else more();
  }

  function overviewDetails() {
    var box = clear(document.getElementById("details"));
    box.appendChild(el("p", { cls: "muted", text: "Click an instruction file, a rule or a directory: who loads it, per agent, and why." }));
    box.appendChild(el("h4", { text: "Each agent at start-up (working in " + D.cwd + ")" }));
    var t = el("table", { id: "agents-table" }, [el("tr", null, [el("th", { text: "agent" }), el("th", { text: "loads" }), el("th", { text: "budget" })])]);
    D.agents.forEach(function (a) {
      t.appendChild(el("tr", { "data-agent": a.name }, [el("td", { text: a.title + (a.sampled ? " *" : "") }), el("td", { text: a.startUp }), el("td", { text: a.budgetLine })]));
    });
    box.appendChild(t);
    if (D.agents.some(function (a) { return a.sampled; })) box.appendChild(el("div", { cls: "note", text: "* no load groups for this agent: the map explains one file per directory, and its load stands for the directory's files." }));
  }

  // ----- find: an instruction file, rule or directory by its path -----------------------------
  // Text that names no file: where it reaches each agent. The engine answers (`rulemap why`),
  // through the editor when the page is in its webview; a page opened from a file says how.
  var editor = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : null;
  function detailsInView() { // stacked (narrow) pages put Details below the fold
    var panel = document.getElementById("details-panel");
    if (panel.scrollIntoView) panel.scrollIntoView({ block: "nearest" });
  }
  function askWhy(text) {
    state.selected = null;
    detailsInView();
    var box = clear(document.getElementById("details"));
    box.appendChild(el("h3", { text: "“" + text + "”" }));
    if (editor) {
      box.appendChild(el("div", { cls: "note", id: "why-asked", text: "No file or directory by that name: asking the language server where this text reaches each agent…" }));
      editor.postMessage({ command: "why", text: text });
      return;
    }
    box.appendChild(el("div", { cls: "note", id: "why-hint" }, [
      "No file or directory by that name. Where a sentence reaches each agent: ",
      el("code", { text: "rulemap why \"" + text + "\"" }),
      ", or this search in the editor's Instruction Map."]));
  }
  function showWhy(m) {
    detailsInView();
    var box = clear(document.getElementById("details"));
    box.appendChild(el("h3", { text: "“" + m.text + "”" }));
    if (m.error || !m.result) {
      box.appendChild(el("div", { cls: "note", text: "No answer: " + (m.error || "none") }));
      return;
    }
    var r = m.result;
    box.appendChild(el("div", { cls: "note", text: r.places.length ? "In " + r.places.map(function (p) { return p.path + ":" + p.line; }).join(", ") + (r.target ? "; for " + r.target : "; at start-up") : "In no instruction file." }));
    var t = el("table", { id: "why-table" }, [el("tr", null, [el("th", { text: "agent" }), el("th", { text: "sees it" }), el("th", { text: "why" })])]);
    r.agents.forEach(function (a) {
      var where = a.path ? el("span", { cls: "linkish", text: a.path + (a.line ? ":" + a.line : ""), on: function () { if (editor) editor.postMessage({ command: "open", path: a.path, line: a.line || undefined }); } }) : null;
      t.appendChild(el("tr", { "data-agent": a.profile, cls: a.seen ? "" : "cut" }, [el("td", { text: a.title }), el("td", { text: a.seen ? "✓ yes" : "✗ no" }), el("td", null, [a.why, where ? " " : null, where])]));
    });
    box.appendChild(t);
  }
  window.addEventListener("message", function (ev) {
    var m = ev.data;
    if (m && m.command === "why" && typeof m.text === "string") showWhy(m);
    // the editor's views changed agent (its Choose Agent Profile): colour by it too
    if (m && m.command === "agent" && typeof m.name === "string" && agentOf(m.name)) setAgent(m.name);
  });
  function find() {
    var input = document.getElementById("find"), list = document.getElementById("find-list");
    var frag = document.createDocumentFragment();
    D.graph.nodes.forEach(function (n) { if (!n.id.startsWith("/")) frag.appendChild(el("option", { value: n.id })); });
    D.tree.forEach(function (d) { if (d.path) frag.appendChild(el("option", { value: d.path + "/" })); });
    list.appendChild(frag);
    function go() {
      var value = input.value.trim().replace(/^\.\//, "");
      if (nodesById[value]) {
        var scope = dirname(value);
        if (!cy || !cy.getElementById(value).length) setScope(scope);
        showDoc(value);
        return;
      }
      var path = value.replace(/\/$/, "");
      if (treeByPath[path] !== undefined) { selectDir(reveal(path)); return; }
      // part of a name: the first instruction file or rule, else directory, holding it
      var lower = value.toLowerCase();
      if (!lower) return;
      var doc = D.graph.nodes.filter(function (n) { return !n.id.startsWith("/") && n.id.toLowerCase().indexOf(lower) >= 0; })
        .sort(function (a, b) { return a.id.length - b.id.length || (a.id < b.id ? -1 : 1); })[0];
      if (doc) { input.value = doc.id; go(); return; }
      var dir = D.tree.filter(function (d) { return d.path && d.path.toLowerCase().indexOf(lower) >= 0; })
        .sort(function (a, b) { return a.path.length - b.path.length || (a.path < b.path ? -1 : 1); })[0];
      if (dir) { input.value = dir.path + "/"; go(); return; }
      askWhy(value);
    }
    input.addEventListener("change", go);
    input.addEventListener("keydown", function (ev) { if (ev.key === "Enter") go(); });
  }

  var api = { data: D, state: state, cy: null, setAgent: setAgent, selectDir: selectDir, showDoc: showDoc, toggle: toggle, setScope: setScope, reveal: reveal, ready: false };
  window.rulemapMap = api;
  header();
  tree();
  findings();
  find();
  overviewDetails();
  draw();
  document.getElementById("fit").addEventListener("click", function () { if (cy) { cy.fit(undefined, 20); readableLabels(); } });
  document.getElementById("scope-up").addEventListener("click", function () { if (state.scope) setScope(dirname(state.scope)); });
  api.ready = true;
  api.readyMs = Math.round(performance.now());
  document.body.setAttribute("data-ready", "1");
})();
