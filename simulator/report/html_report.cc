#include "simulator/report/html_report.h"

#include <algorithm>

#include "simulator/report/svg_chart.h"

namespace gangplank::simulator::report {

HtmlReport::HtmlReport(std::string title) : title_(std::move(title)) {}

void HtmlReport::AddHeading(const std::string& text, int level) {
  const std::string n = std::to_string(std::clamp(level, 1, 6));
  body_.push_back("<h" + n + ">" + EscapeXml(text) + "</h" + n + ">");
}

void HtmlReport::AddParagraph(const std::string& text) { body_.push_back("<p>" + EscapeXml(text) + "</p>"); }

void HtmlReport::AddTable(const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows) {
  std::string t = "<table>\n<thead><tr>";
  for (const std::string& h : header) t += "<th>" + EscapeXml(h) + "</th>";
  t += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    t += "<tr>";
    const size_t cells = std::max(row.size(), header.size());
    for (size_t i = 0; i < cells; ++i) t += "<td>" + (i < row.size() ? EscapeXml(row[i]) : std::string()) + "</td>";
    t += "</tr>\n";
  }
  t += "</tbody>\n</table>";
  body_.push_back(std::move(t));
}

void HtmlReport::AddPreformatted(const std::string& text) {
  body_.push_back("<pre>" + EscapeXml(text) + "</pre>");
}

void HtmlReport::AddRawSvg(const std::string& svg) { body_.push_back("<figure>" + svg + "</figure>"); }

void HtmlReport::AddRawHtml(const std::string& html) { body_.push_back(html); }

std::string HtmlReport::Render() const {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + EscapeXml(title_) +
      "</title>\n<style>\n"
      "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\n"
      "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 10px;text-align:right}\n"
      "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}\n"
      "figure{margin:1em 0}pre{background:#f7f7f7;padding:.6em;overflow-x:auto}\n"
      "</style>\n</head>\n<body>\n<h1>" +
      EscapeXml(title_) + "</h1>\n";
  for (const std::string& section : body_) page += section + "\n";
  page += "</body>\n</html>\n";
  return page;
}

}  // namespace gangplank::simulator::report
