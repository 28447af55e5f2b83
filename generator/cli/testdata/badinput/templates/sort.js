// Sorts table#models by a clicked header. The table is complete without
// this script; sorting is an enhancement. Numeric columns sort by the raw
// value in data-value, unknown values last.
(function () {
  var table = document.getElementById("models");
  if (!table) return;
  var heads = table.querySelectorAll("thead th[data-sort]");
  heads.forEach(function (th, col) {
    th.tabIndex = 0;
    function sort() {
      var numeric = th.getAttribute("data-sort") === "num";
      var asc = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-value"), y = b.cells[col].getAttribute("data-value");
        if (numeric) {
          var fx = x === "" ? NaN : parseFloat(x), fy = y === "" ? NaN : parseFloat(y);
          if (isNaN(fx) && isNaN(fy)) return 0;
          if (isNaN(fx)) return 1;
          if (isNaN(fy)) return -1;
          return asc ? fx - fy : fy - fx;
        }
        return asc ? x.localeCompare(y) : y.localeCompare(x);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
  });
})();
