// The chargeback table of `gangplank-operator usage` (operator/utilization/usage_report.h): the queries
// it asks, rows from the answers, never-measured kept apart from zero busy, spans refused before asking.
#include <gtest/gtest.h>

#include "operator/utilization/usage_report.h"

namespace gangplank::op {
namespace {

promql::Sample Row(const std::string& queue, const std::string& ns, double value) {
  promql::Sample s;
  s.labels = {{"queue", queue}, {"namespace", ns}};
  s.value = value;
  return s;
}

TEST(UsageReport, AsksForTheIncreaseOfTheOperatorsCountersPerQueueAndNamespace) {
  EXPECT_EQ(UsageQuery("7d", "", false),
            "sum by (queue, namespace) (increase(gangplank_operator_gpu_seconds_total[7d])) / 3600");
  EXPECT_EQ(UsageQuery("24h", "h100", true),
            "sum by (queue, namespace) (increase(gangplank_operator_busy_gpu_seconds_total{pool=\"h100\"}[24h])) / 3600");
}

TEST(UsageReport, TakesOnlySpansPrometheusReadsAsOneWholeNumberAndUnit) {
  for (const char* ok : {"90m", "24h", "7d", "4w", "3600s"}) EXPECT_TRUE(ValidSpan(ok)) << ok;
  for (const char* bad : {"", "7", "7days", "0d", "1h30m", "-1d", "7d]) or vector(1", "1y"}) EXPECT_FALSE(ValidSpan(bad)) << bad;
}

TEST(UsageReport, RowsKeepNeverMeasuredApartFromIdle) {
  const std::vector<UsageRow> rows =
      UsageRows({Row("research", "ml", 120), Row("prod", "serving", 40), Row("prod", "batch", 8)},
                {Row("research", "ml", 30), Row("prod", "batch", 0), Row("ghost", "x", 5)});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].queue, "prod");
  EXPECT_EQ(rows[0].namespace_, "batch");
  EXPECT_EQ(rows[0].busy_gpu_hours, 0);
  EXPECT_EQ(rows[1].namespace_, "serving");
  EXPECT_LT(rows[1].busy_gpu_hours, 0);
  EXPECT_EQ(rows[2].busy_gpu_hours, 30);
  EXPECT_EQ(UsageCsv(rows),
            "queue,namespace,allocated_gpu_hours,busy_gpu_hours\n"
            "prod,batch,8.000,0.000\n"
            "prod,serving,40.000,\n"
            "research,ml,120.000,30.000\n");
  const std::string table = UsageTable(rows, "7d");
  EXPECT_NE(table.find("25%"), std::string::npos) << table;
  EXPECT_NE(table.find("TOTAL"), std::string::npos);
  EXPECT_NE(table.find("168.0"), std::string::npos) << table;  // 120 + 40 + 8 allocated.
}

TEST(UsageReport, CsvQuotesFieldsThatNeedIt) {
  EXPECT_EQ(UsageCsv({{"a,b", "n\"s", 1, -1}}),
            "queue,namespace,allocated_gpu_hours,busy_gpu_hours\n\"a,b\",\"n\"\"s\",1.000,\n");
}

}  // namespace
}  // namespace gangplank::op
