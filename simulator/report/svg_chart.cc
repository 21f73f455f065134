#include "simulator/report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace gangplank::simulator::report {
namespace {

// A colour-blind friendly palette (Okabe-Ito), cycled when there are more series.
constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                 "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Tick label text: integers without decimals, otherwise up to three significant decimals.
std::string TickText(double v) {
  char buf[32];
  if (std::fabs(v - std::round(v)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `target` ticks over `span`.
double NiceStep(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double nice = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
  return nice * mag;
}

struct Range {
  double lo = 0, hi = 1;
};

Range DataRange(const LineChart& c, bool x_axis) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Series& s : c.series) {
    if (s.x.size() != s.y.size()) continue;
    for (double v : x_axis ? s.x : s.y) {
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!std::isfinite(lo)) return {};
  if (hi == lo) return {lo - 1, hi + 1};
  if (!x_axis) {  // Breathing room above and below the curves.
    const double pad = (hi - lo) * 0.05;
    return {lo - pad, hi + pad};
  }
  return {lo, hi};
}

}  // namespace

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string RenderLineChart(const LineChart& c) {
  Range xr = DataRange(c, true), yr = DataRange(c, false);
  if (c.x_min) xr.lo = *c.x_min;
  if (c.x_max) xr.hi = *c.x_max;
  if (c.y_min) yr.lo = *c.y_min;
  if (c.y_max) yr.hi = *c.y_max;
  if (xr.hi <= xr.lo) xr.hi = xr.lo + 1;
  if (yr.hi <= yr.lo) yr.hi = yr.lo + 1;

  const int legend_width = 190;
  const double left = 64, top = 36, right = c.width - legend_width, bottom = c.height - 52;
  auto px = [&](double x) { return left + (x - xr.lo) / (xr.hi - xr.lo) * (right - left); };
  auto py = [&](double y) { return bottom - (y - yr.lo) / (yr.hi - yr.lo) * (bottom - top); };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << c.width << "\" height=\"" << c.height
    << "\" viewBox=\"0 0 " << c.width << ' ' << c.height
    << "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n";
  o << "<title>" << EscapeXml(c.title) << "</title>\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  o << "<text x=\"" << Num((left + right) / 2) << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" "
       "font-weight=\"bold\">"
    << EscapeXml(c.title) << "</text>\n";

  // Grid and ticks.
  const double xs = NiceStep(xr.hi - xr.lo, 8), ys = NiceStep(yr.hi - yr.lo, 6);
  for (double t = std::ceil(xr.lo / xs) * xs; t <= xr.hi + xs * 1e-9; t += xs) {
    o << "<line x1=\"" << Num(px(t)) << "\" y1=\"" << Num(top) << "\" x2=\"" << Num(px(t)) << "\" y2=\""
      << Num(bottom) << "\" stroke=\"#e5e5e5\"/>\n";
    o << "<text x=\"" << Num(px(t)) << "\" y=\"" << Num(bottom + 16) << "\" text-anchor=\"middle\">"
      << TickText(t) << "</text>\n";
  }
  for (double t = std::ceil(yr.lo / ys) * ys; t <= yr.hi + ys * 1e-9; t += ys) {
    o << "<line x1=\"" << Num(left) << "\" y1=\"" << Num(py(t)) << "\" x2=\"" << Num(right) << "\" y2=\""
      << Num(py(t)) << "\" stroke=\"#e5e5e5\"/>\n";
    o << "<text x=\"" << Num(left - 6) << "\" y=\"" << Num(py(t) + 4) << "\" text-anchor=\"end\">"
      << TickText(t) << "</text>\n";
  }
  o << "<rect x=\"" << Num(left) << "\" y=\"" << Num(top) << "\" width=\"" << Num(right - left)
    << "\" height=\"" << Num(bottom - top) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  o << "<text x=\"" << Num((left + right) / 2) << "\" y=\"" << Num(bottom + 38)
    << "\" text-anchor=\"middle\">" << EscapeXml(c.x_label) << "</text>\n";
  o << "<text transform=\"translate(16," << Num((top + bottom) / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">" << EscapeXml(c.y_label) << "</text>\n";

  // Curves, clipped to the plot area.
  o << "<clipPath id=\"plot\"><rect x=\"" << Num(left) << "\" y=\"" << Num(top) << "\" width=\""
    << Num(right - left) << "\" height=\"" << Num(bottom - top) << "\"/></clipPath>\n";
  for (size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const char* colour = kPalette[i % kPalette.size()];
    if (s.x.size() == s.y.size() && !s.x.empty()) {
      o << "<polyline clip-path=\"url(#plot)\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.6\""
        << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"";
      for (size_t k = 0; k < s.x.size(); ++k) {
        if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k])) continue;
        o << Num(px(s.x[k])) << ',' << Num(py(s.y[k])) << ' ';
      }
      o << "\"/>\n";
    }
    const double ly = top + 8 + 18.0 * static_cast<double>(i);
    o << "<line x1=\"" << Num(right + 12) << "\" y1=\"" << Num(ly) << "\" x2=\"" << Num(right + 36)
      << "\" y2=\"" << Num(ly) << "\" stroke=\"" << colour << "\" stroke-width=\"2.5\""
      << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    o << "<text x=\"" << Num(right + 42) << "\" y=\"" << Num(ly + 4) << "\">" << EscapeXml(s.name)
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace gangplank::simulator::report
