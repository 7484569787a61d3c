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

struct chart {
  std::string title, x_title, y_title;
  std::vector<chart_line> lines;
  std::vector<std::string> legend;  ///< Entry i is drawn in palette color i.
  std::optional<double> target;     ///< A dashed horizontal line.
  std::vector<double> x_cover;      ///< Values the x axis must include.
  std::vector<double> y_cover;      ///< Values the y axis must include.
};

/// The chart as an `<svg>` element (720 x 380 user units). Non-finite coordinates are
/// clamped, an empty or one-value range is padded, a chart without points says "no
/// data". O(points).
std::string svg_chart(const chart& c);

/// `v` with `decimals` digits after the point; never "-0.00".
std::string fixed(double v, int decimals);

/// Text safe inside HTML/SVG elements and attribute values.
std::string escape(std::string_view s);

}  // namespace adarl
