#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

namespace adarl {

std::string fixed(double v, int decimals) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.front() == '-' && s.find_first_not_of("0.", 1) == std::string::npos)
    s.erase(0, 1);
  return s;
}

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

namespace {

using opt = std::optional<double>;
using point = chart_point;

/// Chart geometry in SVG user units; the legend sits in the right margin unless it is
/// on top or empty.
constexpr double margin_left = 64, margin_top = 36, margin_bottom = 52;
constexpr double legend_margin = 170, plain_margin = 28, legend_row = 20;
constexpr double min_width = 240, min_height = 160;
constexpr double ticks_wanted = 5;
/// The x tick labels' baseline below the plot: the lowest y label is centred on the
/// bottom edge, so that the first x label (centred on the left edge) clears it even when
/// it is wide ("0.005" where an axis does not start at 0): 12-unit glyphs reach about 11
/// above their baseline and the y label about 7 below the edge.
constexpr double x_tick_drop = 20;
constexpr const char* palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
const char* color(size_t i) {
  return palette[i % std::size(palette)];
}

/// An axis range [lo, hi] (lo < hi, both finite) cut at multiples of `step`.
struct axis {
  double lo = 0, hi = 1, step = 0.2;
};

/// A range with round ticks covering [lo, hi]; an empty (lo > hi) or one-value range
/// gets a default or padded span, so that mapping never divides by zero.
axis nice_axis(double lo, double hi) {
  if (!(lo <= hi)) return {};
  if (hi - lo <= 1e-9 * std::max(1.0, std::abs(lo))) {
    const double pad = std::abs(lo) > 1e-6 ? std::abs(lo) * 0.1 : 0.5;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / ticks_wanted;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / mag;
  const double step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * mag;
  // The epsilon keeps 0.30000000000000004 from adding a tick.
  const axis a{std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step,
               step};
  const bool ok = std::isfinite(a.lo) && std::isfinite(a.hi) && std::isfinite(step) &&
                  step > 0 && a.hi > a.lo && (a.hi - a.lo) / step < 100;
  return ok ? a : axis{};
}

/// A coordinate with one decimal, clamped so that absurd input cannot print "inf".
std::string coord(double v) {
  if (!(v > -1e6)) v = -1e6;
  if (!(v < 1e6)) v = 1e6;
  return fixed(v, 1);
}

std::string svg_text(double x, double y, const std::string& body, const char* anchor,
                     const std::string& extra = "") {
  return "<text x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" text-anchor=\"" + anchor +
         "\"" + extra + ">" + escape(body) + "</text>\n";
}

std::string svg_line(double x1, double y1, double x2, double y2,
                     const std::string& style) {
  return "<line x1=\"" + coord(x1) + "\" y1=\"" + coord(y1) + "\" x2=\"" + coord(x2) +
         "\" y2=\"" + coord(y2) + "\" " + style + "/>\n";
}

/// Maps data to SVG coordinates of the plot area (inside the margins).
struct plot_area {
  axis x, y;
  double width = 720, height = 380;
  double left = margin_left, top = margin_top, right = 550, bottom = 328;
  double px(double v) const { return left + (v - x.lo) / (x.hi - x.lo) * (right - left); }
  double py(double v) const {
    return bottom - (v - y.lo) / (y.hi - y.lo) * (bottom - top);
  }
};

/// The axes that cover every point, the target, c.x_cover and c.y_cover, and the plot
/// area inside the margins.
plot_area fit(const chart& c) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  double x_lo = inf, x_hi = -inf, y_lo = inf, y_hi = -inf;
  const auto cover = [](double v, double& lo, double& hi) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  for (const auto& l : c.lines) {
    for (const auto& p : l.points) {
      cover(p.x, x_lo, x_hi);
      cover(p.y, y_lo, y_hi);
    }
  }
  for (double x : c.x_cover) cover(x, x_lo, x_hi);
  for (double y : c.y_cover) cover(y, y_lo, y_hi);
  if (c.target) cover(*c.target, y_lo, y_hi);
  plot_area a{nice_axis(x_lo, x_hi), nice_axis(y_lo, y_hi)};
  a.width = std::isfinite(c.width) ? std::max(min_width, c.width) : min_width;
  a.height = std::isfinite(c.height) ? std::max(min_height, c.height) : min_height;
  const bool side_legend = !c.legend.empty() && !c.legend_top;
  a.right = a.width - (side_legend ? legend_margin : plain_margin);
  a.top = margin_top + (!c.legend.empty() && c.legend_top ? legend_row : 0);
  a.bottom = a.height - margin_bottom;
  // The y tick labels end 6 units left of the plot and the rotated y title takes the
  // first 20: a long label ("0.0015") moves the plot right instead of running into the
  // title (7 units per character of the 12-unit font).
  std::size_t widest = 0;
  for (double k = 0; k <= std::round((a.y.hi - a.y.lo) / a.y.step); ++k)
    widest = std::max(widest, tick_text(a.y.lo + k * a.y.step, a.y.step).size());
  a.left = std::max(margin_left, 26 + 7.0 * static_cast<double>(widest));
  return a;
}

/// Grid, tick labels, frame and axis titles.
std::string svg_axes(const plot_area& a, const chart& c) {
  const std::string grid = "stroke=\"#e4e4e4\"";
  std::string s;
  for (double k = 0; k <= std::round((a.x.hi - a.x.lo) / a.x.step); ++k) {
    const double v = a.x.lo + k * a.x.step;
    s += svg_line(a.px(v), a.top, a.px(v), a.bottom, grid);
    s += svg_text(a.px(v), a.bottom + x_tick_drop, tick_text(v, a.x.step), "middle");
  }
  for (double k = 0; k <= std::round((a.y.hi - a.y.lo) / a.y.step); ++k) {
    const double v = a.y.lo + k * a.y.step;
    s += svg_line(a.left, a.py(v), a.right, a.py(v), grid);
    s += svg_text(a.left - 6, a.py(v) + 4, tick_text(v, a.y.step), "end");
  }
  s += "<rect x=\"" + coord(a.left) + "\" y=\"" + coord(a.top) + "\" width=\"" +
       coord(a.right - a.left) + "\" height=\"" + coord(a.bottom - a.top) +
       "\" fill=\"none\" stroke=\"#333333\"/>\n";
  s += svg_text((a.left + a.right) / 2, a.height - 12, c.x_title, "middle");
  s += svg_text(-(a.top + a.bottom) / 2, 16, c.y_title, "middle",
                " transform=\"rotate(-90)\"");
  return s;
}

/// One polyline per line, markers where asked (and for a lone point, which draws no
/// line), the dashed target.
std::string svg_lines(const plot_area& a, const chart& c) {
  std::string s;
  if (c.target) {
    s += svg_line(a.left, a.py(*c.target), a.right, a.py(*c.target),
                  "stroke=\"#555555\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"");
    s += svg_text(a.right - 4, a.py(*c.target) - 5, "target " + fixed(*c.target, 3),
                  "end", " fill=\"#555555\"");
  }
  for (const auto& l : c.lines) {
    std::string pts;
    for (const auto& p : l.points)
      pts += (pts.empty() ? "" : " ") + coord(a.px(p.x)) + "," + coord(a.py(p.y));
    s += "<polyline fill=\"none\" stroke=\"" + std::string(color(l.color)) +
         "\" stroke-width=\"" + fixed(l.width, 1) +
         "\" stroke-opacity=\"0.85\" points=\"" + pts + "\"><title>" + escape(l.label) +
         "</title></polyline>\n";
    if (l.notes.empty() && l.points.size() != 1) continue;
    for (size_t i = 0; i < l.points.size(); ++i)
      s += "<circle cx=\"" + coord(a.px(l.points[i].x)) + "\" cy=\"" +
           coord(a.py(l.points[i].y)) + "\" r=\"3\" fill=\"" + color(l.color) +
           "\"><title>" + escape(i < l.notes.size() ? l.notes[i] : l.label) +
           "</title></circle>\n";
  }
  return s;
}

/// Legend text width, estimated at 7 units per character of the 12-unit font.
double text_width(const std::string& s) {
  return 7.0 * static_cast<double>(s.size());
}

std::string svg_legend(const plot_area& a, const chart& c) {
  std::string s;
  double x = a.left;
  for (size_t i = 0; i < c.legend.size(); ++i) {
    const char* col = color(i < c.legend_colors.size() ? c.legend_colors[i] : i);
    const double y =
        c.legend_top ? margin_top + 4 : a.top + 8 + 18 * static_cast<double>(i);
    const double x0 = c.legend_top ? x : a.right + 14;
    s += svg_line(x0, y, x0 + 20, y,
                  "stroke=\"" + std::string(col) + "\" stroke-width=\"3\"");
    s += svg_text(x0 + 26, y + 4, c.legend[i], "start");
    x += 26 + text_width(c.legend[i]) + 18;
  }
  return s;
}

}  // namespace

std::string tick_text(double v, double step) {
  if (std::abs(v) < step * 1e-9) return "0";
  const double unit = step >= 1e5 ? 1e6 : step >= 1000 ? 1e3 : 1;
  const int exponent = static_cast<int>(std::floor(std::log10(step / unit) + 1e-9));
  const std::string suffix = unit == 1e6 ? "M" : unit == 1e3 ? "k" : "";
  return fixed(v / unit, std::max(0, -exponent)) + suffix;
}

std::string svg_chart(const chart& c) {
  const plot_area a = fit(c);
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
                  coord(a.width) + " " + coord(a.height) + "\" width=\"" +
                  coord(a.width) + "\" height=\"" + coord(a.height) +
                  "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n";
  s += "<title>" + escape(c.title) + "</title>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s += svg_text(a.left, 22, c.title, "start", " font-size=\"14\" font-weight=\"bold\"");
  s += svg_axes(a, c) + svg_lines(a, c) + svg_legend(a, c);
  const bool empty = std::all_of(c.lines.begin(), c.lines.end(),
                                 [](const chart_line& l) { return l.points.empty(); });
  if (empty)
    s += svg_text((a.left + a.right) / 2, (a.top + a.bottom) / 2, "no data", "middle",
                  " fill=\"#888888\"");
  return s + "</svg>\n";
}

}  // namespace adarl
