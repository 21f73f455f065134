#include "simulator/csv_table.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace gangplank::simulator {
namespace {

struct Field {
  std::string text;
  int column = 1;
};

// Splits one line into fields; `line_no` and `source` only feed error messages.
std::vector<Field> SplitLine(std::string_view line, const std::string& source, int line_no) {
  std::vector<Field> fields;
  size_t i = 0;
  while (true) {
    Field f;
    f.column = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) {
          throw InputError(source + ":" + std::to_string(line_no) + ":" + std::to_string(f.column) +
                           ": unterminated quoted field");
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f.text.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        f.text.push_back(line[i++]);
      }
      if (i < line.size() && line[i] != ',') {
        throw InputError(source + ":" + std::to_string(line_no) + ":" + std::to_string(i + 1) +
                         ": expected ',' after a quoted field");
      }
    } else {
      size_t end = line.find(',', i);
      if (end == std::string_view::npos) end = line.size();
      f.text.assign(line.substr(i, end - i));
      i = end;
    }
    fields.push_back(std::move(f));
    if (i >= line.size()) break;
    ++i;  // Skip the comma; a trailing comma yields one more empty field.
    if (i == line.size()) {
      fields.push_back(Field{"", static_cast<int>(i) + 1});
      break;
    }
  }
  return fields;
}

}  // namespace

CsvTable CsvTable::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return Parse(buffer.str(), path);
}

CsvTable CsvTable::Parse(std::string_view text, const std::string& source_name) {
  CsvTable table;
  table.source_ = source_name;
  int line_no = 0;
  size_t pos = 0;
  bool have_header = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<Field> fields = SplitLine(line, source_name, line_no);
    if (!have_header) {
      for (Field& f : fields) table.header_.push_back(std::move(f.text));
      have_header = true;
      continue;
    }
    if (fields.size() != table.header_.size()) {
      throw InputError(source_name + ":" + std::to_string(line_no) + ":1: expected " +
                       std::to_string(table.header_.size()) + " fields, found " + std::to_string(fields.size()));
    }
    Row row;
    row.line = line_no;
    for (Field& f : fields) row.cells.push_back(Cell{std::move(f.text), f.column});
    table.rows_.push_back(std::move(row));
  }
  if (!have_header) throw InputError(source_name + ":1:1: empty file, expected a header row");
  return table;
}

std::optional<size_t> CsvTable::FindColumn(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

size_t CsvTable::Column(std::string_view name) const {
  if (std::optional<size_t> i = FindColumn(name)) return *i;
  throw InputError(source_ + ":1:1: missing column '" + std::string(name) + "'");
}

std::string_view CsvTable::Text(size_t row, size_t column) const { return rows_.at(row).cells.at(column).text; }

std::string CsvTable::Where(size_t row, size_t column) const {
  const Row& r = rows_.at(row);
  return source_ + ":" + std::to_string(r.line) + ":" + std::to_string(r.cells.at(column).column_offset);
}

std::int64_t CsvTable::Int(size_t row, size_t column) const {
  std::string_view s = Text(row, column);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    throw InputError(Where(row, column) + ": expected an integer in column '" + header_.at(column) + "', got '" +
                     std::string(s) + "'");
  }
  return value;
}

double CsvTable::Double(size_t row, size_t column) const {
  std::string_view s = Text(row, column);
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    throw InputError(Where(row, column) + ": expected a number in column '" + header_.at(column) + "', got '" +
                     std::string(s) + "'");
  }
  return value;
}

}  // namespace gangplank::simulator
