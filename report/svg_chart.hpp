#pragma once
// Line charts as SVG text, inline in report.html or standalone (docs/): axes with round
// ticks and titles, one polyline per series (optional point markers with tooltips), a
// dashed horizontal target line and a legend. Pure; styling is in attributes so that a
// chart looks the same inside and outside a page.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace adarl {

/// One point of a series, in data units.
struct chart_point {
  double x = 0, y = 0;
};

/// One series.
struct chart_line {
  size_t color = 0;   ///< Palette index (the legend entry of the same index).
  std::string label;  ///< Tooltip of the polyline.
  std::vector<chart_point> points;
  std::vector<std::string> notes;  ///< If set, a marker per point with this tooltip.
  double width = 1.2;
};

/// A chart: its series, axes and legend. The defaults draw the report's 720 x 380
/// charts with the legend in a right margin.
struct chart {
  std::string title, x_title, y_title;
  std::vector<chart_line> lines;
  std::vector<std::string> legend;    ///< Entry i is drawn in palette color i...
  std::vector<size_t> legend_colors;  ///< ...or in legend_colors[i] when given.
  bool legend_top = false;           ///< Legend in a row under the title (narrow charts).
  std::optional<double> target;      ///< A dashed horizontal line.
  std::vector<double> x_cover;       ///< Values the x axis must include.
  std::vector<double> y_cover;       ///< Values the y axis must include.
  double width = 720, height = 380;  ///< User units; the page scales the chart to fit.
};

/// The chart as an `<svg>` element of c.width x c.height user units (at least
/// 240 x 160). Ticks are round numbers (1, 2 or 5 times a power of ten), thousands read
/// "12k", millions "1.5M". The right margin holds the legend unless it is empty or on
/// top. Non-finite coordinates are clamped, an empty or one-value range is padded, a
/// chart without points says "no data". O(points).
std::string svg_chart(const chart& c);

/// A tick label: `v` on an axis whose ticks are `step` apart, with as many decimals as
/// the step needs, "k" for thousands and "M" for millions ("0", "0.25", "12k", "1.5M").
std::string tick_text(double v, double step);

/// `v` with `decimals` digits after the point; never "-0.00".
std::string fixed(double v, int decimals);

/// Text safe inside HTML/SVG elements and attribute values.
std::string escape(std::string_view s);

}  // namespace adarl
