// The index's "fits my hardware" filter and the compare page. Both read
// models.json, which the build writes with the verdicts it computed: the
// script only compares a count with the build's minimum, it sizes nothing.
// Without the script the index lists every model and the compare page
// says where the data is.
(function () {
  "use strict";
  function text(tag, s, cls) {
    var e = document.createElement(tag);
    if (s !== undefined) e.textContent = s;
    if (cls) e.className = cls;
    return e;
  }
  function load(url, done) {
    fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": HTTP " + r.status);
      return r.json();
    }).then(done).catch(function (e) { console.warn("models.json: " + e.message); });
  }
  function tokens(n) { return n.toLocaleString("en-US") + " tokens"; }

  var form = document.getElementById("fits");
  if (form) load(form.getAttribute("data-models"), function (doc) {
    var acc = form.elements.accelerator, ctx = form.elements.context, count = form.elements.count;
    acc.appendChild(new Option("choose…", ""));
    doc.accelerators.forEach(function (a) {
      acc.appendChild(new Option(a.name + (a.class ? " (" + a.class + ")" : ""), a.id));
    });
    doc.contexts.forEach(function (c) { ctx.appendChild(new Option(tokens(c), String(c))); });
    var entries = {};
    doc.models.forEach(function (m) { entries[m.slug] = m; });
    var rows = Array.prototype.slice.call(document.querySelectorAll("table#models tbody tr[data-slug]"));
    function apply() {
      var id = acc.value, c = ctx.value, n = parseInt(count.value, 10);
      if (!id || !(n > 0)) {
        rows.forEach(function (r) { r.hidden = false; });
        form.elements.status.value = "";
        return;
      }
      var shown = 0;
      rows.forEach(function (r) {
        var e = entries[r.getAttribute("data-slug")];
        var min = e && e.min_gpus[c] ? e.min_gpus[c][id] : undefined;
        r.hidden = !(min !== undefined && n >= min);
        if (!r.hidden) shown++;
      });
      form.elements.status.value = shown + " of " + rows.length + " fit " + n + " × " + id + " at " + tokens(Number(c)) +
        " (" + doc.assumptions + ")";
    }
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("reset", function () { setTimeout(apply, 0); });
    form.hidden = false;
    apply();
  });

  var pick = document.getElementById("compare-pick");
  if (pick) load(pick.getAttribute("data-models"), function (doc) {
    var root = pick.getAttribute("data-root") || "";
    var out = document.getElementById("compare");
    var want = (new URLSearchParams(location.search).get("models") || "").split(",").filter(Boolean);
    if (want.length === 0) want = doc.models.slice(0, 2).map(function (m) { return m.slug; });
    var legend = text("legend", "Models");
    var set = text("fieldset");
    set.appendChild(legend);
    doc.models.forEach(function (m) {
      var l = text("label"), box = document.createElement("input");
      box.type = "checkbox"; box.name = "model"; box.value = m.slug; box.checked = want.indexOf(m.slug) >= 0;
      l.appendChild(box); l.appendChild(document.createTextNode(" " + m.title));
      set.appendChild(l);
    });
    pick.appendChild(set);
    function fact(m, k) { var f = m.facts[k]; return f ? f.display : "—"; }
    var rows = [
      ["organisation", function (m) { return m.org; }],
      ["family", function (m) { return m.family; }],
      ["parameters", function (m) { return fact(m, "params.total"); }],
      ["activated per token", function (m) { return fact(m, "params.active_no_embedding"); }],
      ["checkpoint", function (m) { return fact(m, "bytes.checkpoint"); }],
      ["bits per parameter", function (m) { return fact(m, "bits_per_param"); }],
      ["KV cache per token", function (m) { return fact(m, "kv.bytes_per_token"); }],
      ["download", function (m) { return fact(m, "download.seconds"); }],
      ["smallest deployment", function (m) { return m.smallest_layout || "none deployable"; }],
      ["cheapest per token", function (m) {
        var c = m.facts["deploy.cheapest.layout"], usd = m.facts["deploy.cheapest.usd_per_m_output_tokens"];
        if (!usd) return "—";
        if (usd.value === null) return "unknown: " + usd.reason;
        return usd.display + " per million output tokens" + (c && c.value ? " on " + c.display.replace(/^(\d+)x/, "$1 × ") : "");
      }],
      ["cheapest $/h at the serving context", function (m) {
        var c = m.facts["fit.cheapest_serving"];
        var layout = c && c.display ? c.display.replace(/^(\d+)x/, "$1 × ") : "";
        return fact(m, "cost.cheapest_serving.usd_per_hour") + (layout ? " on " + layout : "");
      }],
      ["claims", function (m) { return m.claims.tally; }],
      ["revision", function (m) { return m.revision ? m.revision.slice(0, 12) : "not recorded"; }]
    ];
    function draw() {
      var chosen = Array.prototype.filter.call(pick.querySelectorAll("input[name=model]"), function (b) { return b.checked; })
        .map(function (b) { return b.value; });
      var models = doc.models.filter(function (m) { return chosen.indexOf(m.slug) >= 0; });
      var q = new URLSearchParams(location.search);
      q.set("models", chosen.join(","));
      history.replaceState(null, "", "?" + q.toString());
      out.textContent = "";
      if (models.length < 2) { out.appendChild(text("p", "Pick at least two models.")); return; }
      var table = text("table"), head = text("thead"), hr = text("tr"), body = text("tbody");
      table.id = "comparison";
      hr.appendChild(text("th", ""));
      models.forEach(function (m) {
        var th = text("th"), a = text("a", m.title);
        th.scope = "col"; th.setAttribute("data-slug", m.slug);
        a.href = root + m.url;
        th.appendChild(a);
        var links = text("span", "", "sub links");
        [["Hub", m.hub.page], ["files", m.hub.files], ["config", m.hub.config]].forEach(function (l, i) {
          if (i) links.appendChild(document.createTextNode(" · "));
          var la = text("a", l[0]); la.href = l[1]; links.appendChild(la);
        });
        th.appendChild(links);
        hr.appendChild(th);
      });
      head.appendChild(hr);
      rows.forEach(function (r) {
        var tr = text("tr"), th = text("th", r[0]);
        th.scope = "row";
        tr.appendChild(th);
        models.forEach(function (m) { tr.appendChild(text("td", r[1](m))); });
        body.appendChild(tr);
      });
      table.appendChild(head); table.appendChild(body);
      out.appendChild(table);
    }
    pick.addEventListener("change", draw);
    draw();
  });
})();
