// A small CSV reader for the bundled traces. Every value read through it knows its file, line and
// column, so a bad input file produces "file:line:column: what is wrong" and never a silent default.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gangplank::simulator {

// Thrown for unusable input files; what() names the file, line and column.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CsvTable {
 public:
  // Reads a comma-separated file with a header row. Quoted fields ("a,b", "" for a quote) are
  // supported. Throws InputError for a missing file, an empty file, or a row with the wrong number of
  // fields.
  static CsvTable Load(const std::string& path);
  static CsvTable Parse(std::string_view text, const std::string& source_name);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& header() const { return header_; }
  size_t rows() const { return rows_.size(); }

  // Index of a column; throws InputError naming the file and the expected column when absent.
  size_t Column(std::string_view name) const;
  // Index of an optional column; nothing when the header lacks it.
  std::optional<size_t> FindColumn(std::string_view name) const;

  std::string_view Text(size_t row, size_t column) const;
  // Parsed values; throw InputError "file:line:column: expected an integer in column 'x', got 'y'".
  std::int64_t Int(size_t row, size_t column) const;
  double Double(size_t row, size_t column) const;

  // "file:line:column" of a cell, for messages about values that parse but make no sense.
  std::string Where(size_t row, size_t column) const;

 private:
  struct Cell {
    std::string text;
    int column_offset = 0;  // 1-based character column where the field starts.
  };
  struct Row {
    int line = 0;
    std::vector<Cell> cells;
  };

  std::string source_;
  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

}  // namespace gangplank::simulator
