#include "report/svg_chart.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace adarl {
namespace {

TEST(SvgChartTest, TickTextUsesTheDecimalsOfTheStepAndThousandsSuffixes) {
  EXPECT_EQ(tick_text(0, 0.1), "0");
  EXPECT_EQ(tick_text(0.25, 0.05), "0.25");
  EXPECT_EQ(tick_text(0.3, 0.1), "0.3");
  EXPECT_EQ(tick_text(150, 50), "150");
  EXPECT_EQ(tick_text(12000, 2000), "12k");
  EXPECT_EQ(tick_text(2500, 500), "2500");
  EXPECT_EQ(tick_text(1500000, 500000), "1.5M");
  EXPECT_EQ(tick_text(40000000, 10000000), "40M");
  EXPECT_EQ(tick_text(-0.2, 0.1), "-0.2");
}

chart one_line() {
  chart c;
  c.title = "t";
  c.x_title = "x";
  c.y_title = "y";
  chart_line l;
  l.points = {{0, 0}, {100, 1}};
  c.lines.push_back(l);
  return c;
}

/// x and width of the plot frame (the <rect> with a stroke).
std::pair<double, double> frame(const std::string& svg) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(
      svg, m, std::regex(R"re(<rect x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)")re")));
  return {std::stod(m[1]), std::stod(m[2])};
}

TEST(SvgChartTest, TheSizeIsTheChartsAndTheLegendMarginOnlyWhenThereIsALegend) {
  chart c = one_line();
  c.width = 540;
  c.height = 300;
  const std::string plain = svg_chart(c);
  EXPECT_NE(plain.find("viewBox=\"0 0 540.0 300.0\""), std::string::npos);
  EXPECT_EQ(frame(plain).first, 64);
  EXPECT_EQ(frame(plain).second, 540 - 64 - 28);
  c.legend = {"a"};
  EXPECT_EQ(frame(svg_chart(c)).second, 540 - 64 - 170);
  c.legend_top = true;  // the legend above the plot: the full width again, lower top
  const std::string top = svg_chart(c);
  EXPECT_EQ(frame(top).second, 540 - 64 - 28);
  EXPECT_NE(top.find("y=\"56.0\" width"), std::string::npos);
  // The default size stays the comparison page's.
  EXPECT_NE(svg_chart(one_line()).find("viewBox=\"0 0 720.0 380.0\""), std::string::npos);
}

TEST(SvgChartTest, LegendColorsCanBeChosen) {
  chart c = one_line();
  c.legend = {"first", "second"};
  c.legend_colors = {9, 2};
  const std::string svg = svg_chart(c);
  EXPECT_NE(svg.find("stroke=\"#bab0ac\" stroke-width=\"3\""), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#e15759\" stroke-width=\"3\""), std::string::npos);
  EXPECT_EQ(svg.find("stroke=\"#4e79a7\" stroke-width=\"3\""), std::string::npos);
}

TEST(SvgChartTest, LabelsOfATopLegendDoNotOverlap) {
  chart c = one_line();
  c.legend_top = true;
  c.legend = {"step (wall clock)", "generation", "training"};
  const std::string svg = svg_chart(c);
  // Each entry starts after the previous label's end (7 units a character).
  const std::regex re(
      R"re(<text x="([0-9.]+)" y="[0-9.]+" text-anchor="start">([^<]*)</text>)re");
  double end = 0;
  int n = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), e; it != e; ++it, ++n) {
    const double x = std::stod((*it)[1]);
    EXPECT_GT(x, end) << (*it)[2];
    end = x + 7.0 * std::string((*it)[2]).size();
  }
  EXPECT_EQ(n, 3);
}

TEST(SvgChartTest, LongYTickLabelsMoveThePlotInsteadOfMeetingTheYTitle) {
  chart c = one_line();
  c.lines[0].points = {{0, 0.0010}, {100, 0.0015}};  // seconds per step of a fast run
  const std::string svg = svg_chart(c);
  // The y tick labels (end-anchored left of the frame) start right of the rotated y
  // title, which takes the first 20 units (7 units a character).
  const std::regex re(
      R"re(<text x="([0-9.]+)" y="[0-9.]+" text-anchor="end">([^<]*)</text>)re");
  int n = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), e; it != e; ++it, ++n)
    EXPECT_GE(std::stod((*it)[1]) - 7.0 * std::string((*it)[2]).size(), 20.0) << (*it)[2];
  EXPECT_GT(n, 2);
  EXPECT_GT(frame(svg).first, 64);
  EXPECT_EQ(frame(svg_chart(one_line())).first, 64);  // short labels keep the margin
}

}  // namespace
}  // namespace adarl
