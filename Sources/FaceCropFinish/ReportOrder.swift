/// The order of a report page's crops: as the manifest lists them (the
/// page's own order), or by `face_quality`, best or worst first. The
/// choice sorts the crops of the page shown; each page holds the next
/// `Report.defaultPageSize` crops of the manifest, so a page sorted worst first
/// shows the poorest of its own crops first, not of the whole dataset
/// (`facecrop pick` and the manifest's `face_quality` serve the whole).
/// A crop without a quality record (a dataset made before it) sorts last
/// either way.
package enum ReportOrder {
    package static let style = """
        #order{margin:0 0 8px;font-size:12px}
        #order select{font:inherit}
        """

    package static let control = """
        <p id="order"><label>Order of this page's crops: <select id="crop-order">\
        <option value="manifest">as in the manifest</option>\
        <option value="best">face quality, best first</option>\
        <option value="worst">face quality, worst first</option>\
        </select></label></p>

        """

    package static let script = """
        <script>
        (() => {
          const grid = document.querySelector(".grid");
          const select = document.getElementById("crop-order");
          if (!grid || !select) return;
          const figures = [...grid.querySelectorAll("figure.crop")];
          const number = (f) => Number(f.id.slice(5));
          const quality = (f) => f.dataset.quality === undefined ? null : Number(f.dataset.quality);
          select.addEventListener("change", () => {
            const sorted = figures.slice().sort((a, b) => {
              if (select.value === "manifest") return number(a) - number(b);
              const qa = quality(a), qb = quality(b);
              if (qa === null || qb === null) return (qa === null) - (qb === null) || number(a) - number(b);
              return (select.value === "best" ? qb - qa : qa - qb) || number(a) - number(b);
            });
            for (const figure of sorted) grid.append(figure);
          });
        })();
        </script>

        """
}
