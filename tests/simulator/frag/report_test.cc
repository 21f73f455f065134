#include <gmock/gmock.h>

#include <algorithm>
#include <gtest/gtest.h>

#include "simulator/report/html_report.h"
#include "simulator/report/svg_chart.h"

namespace gangplank::simulator::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SvgChart, DrawsEverySeriesWithItsEscapedName) {
  LineChart c;
  c.title = "A <b> & c";
  c.x_label = "x";
  c.y_label = "y";
  c.series.push_back({"one", {0, 1, 2}, {0, 5, 10}, false});
  c.series.push_back({"two\"", {0, 2}, {3, 4}, true});
  const std::string svg = RenderLineChart(c);
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("A &lt;b&gt; &amp; c"));
  EXPECT_THAT(svg, Not(HasSubstr("<b>")));
  EXPECT_THAT(svg, HasSubstr("two&quot;"));
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 10, true);
  size_t polylines = 0;
  for (size_t pos = 0; (pos = svg.find("<polyline", pos)) != std::string::npos; ++pos) ++polylines;
  EXPECT_EQ(polylines, 2u);
  EXPECT_THAT(svg, HasSubstr("stroke-dasharray"));
}

TEST(SvgChart, SkipsMismatchedSeriesButKeepsTheLegend) {
  LineChart c;
  c.series.push_back({"broken", {0, 1}, {0}, false});
  const std::string svg = RenderLineChart(c);
  EXPECT_THAT(svg, Not(HasSubstr("<polyline")));
  EXPECT_THAT(svg, HasSubstr("broken"));
}

TEST(HtmlReport, IsSelfContainedAndEscapesText) {
  HtmlReport page("T & U");
  page.AddHeading("<h>", 9);
  page.AddParagraph("a < b");
  page.AddTable({"k", "v"}, {{"x"}, {"y", "<z>"}});
  page.AddRawSvg("<svg></svg>");
  const std::string html = page.Render();
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("<title>T &amp; U</title>"));
  EXPECT_THAT(html, HasSubstr("<h6>&lt;h&gt;</h6>"));
  EXPECT_THAT(html, HasSubstr("<p>a &lt; b</p>"));
  EXPECT_THAT(html, HasSubstr("<td>x</td><td></td>"));
  EXPECT_THAT(html, HasSubstr("<td>&lt;z&gt;</td>"));
  EXPECT_THAT(html, HasSubstr("<figure><svg></svg></figure>"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("http://")));  // No external assets.
}

}  // namespace
}  // namespace gangplank::simulator::report
