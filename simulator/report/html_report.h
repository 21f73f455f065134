// A self-contained HTML page built from simple sections (headings, paragraphs, tables, inline SVG).
// Inline CSS only: the page opens from disk with no network and no scripts.
#pragma once

#include <string>
#include <vector>

namespace gangplank::simulator::report {

class HtmlReport {
 public:
  explicit HtmlReport(std::string title);

  // Text arguments are plain text and get escaped; only AddRawSvg/AddRawHtml insert markup verbatim.
  void AddHeading(const std::string& text, int level = 2);  // level 1..6 (clamped)
  void AddParagraph(const std::string& text);
  // A table; rows shorter than the header are padded with empty cells.
  void AddTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
  void AddPreformatted(const std::string& text);
  void AddRawSvg(const std::string& svg);
  void AddRawHtml(const std::string& html);

  // The whole page (<!DOCTYPE html> ... </html>).
  std::string Render() const;

 private:
  std::string title_;
  std::vector<std::string> body_;
};

}  // namespace gangplank::simulator::report
