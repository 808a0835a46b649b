// The results database of a sweep: one SQLite file (Debian's libsqlite3, C API) with one table,
// `results`, of one row per design point x workload x layer plus one summary row per design
// point x workload (configs/sweeps/README.md documents every column). A job's rows are written
// in one transaction, so an interrupted sweep keeps every finished job; columns are added as new
// counters or config keys appear, so databases of different backends still merge.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct sqlite3;

namespace vta::explore {

// The columns that identify a row (its primary key).
extern const char* const kRowKeyColumns[5];  // point_id, workload, backend, schedule, layer_index

// Throws vta::Error when `output` is the database `input` (the same file under any name) or one
// of its journal files: `command` never writes over its input.
void refuse_overwrite(const std::string& input, const std::string& output, const char* command);

class ResultsDb {
 public:
  enum class Mode { kCreate, kReadOnly };
  // Opens `path`: kCreate makes the file and the results table when missing; kReadOnly needs an
  // existing sweep database and never writes. Throws vta::Error naming the file when it cannot
  // be opened or is not a sweep database.
  explicit ResultsDb(const std::string& path, Mode mode = Mode::kCreate);
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb& operator=(const ResultsDb&) = delete;

  // Replaces the rows of one job (same point_id, workload, backend, schedule) by `rows`, in one
  // committed transaction. Every row holds at least the key columns.
  void write_job(const std::vector<nlohmann::ordered_json>& rows);
  // What resume needs of a finished job: its status and the settings it ran with.
  struct JobRecord {
    std::string status;
    std::string settings_id;  // empty in databases written before the column existed
  };
  // Every job's summary row, by job_key().
  std::map<std::string, JobRecord> job_status() const;
  static std::string job_key(const std::string& point_id, const std::string& workload,
                             const std::string& backend, const std::string& schedule);

  // Every row, in sweep order (point, workload, summary first, then the layers).
  std::vector<nlohmann::ordered_json> rows() const;
  void export_csv(const std::string& path) const;    // header + one line per row (RFC 4180)
  void export_jsonl(const std::string& path) const;  // one JSON object per row
  // Adds the rows of the database `path`. A row whose key is already present must be identical
  // in every column but wall_seconds and version; otherwise throws vta::Error naming both files,
  // the row and the column, and adds nothing of `path`. Returns the number of rows added.
  size_t merge_from(const std::string& path);

  const std::string& path() const { return m_path; }

 private:
  void exec(const std::string& sql) const;
  std::vector<std::string> columns(const std::string& schema) const;
  void refresh_columns();
  void ensure_column(const std::string& name, const std::string& type);
  void ensure_columns(const nlohmann::ordered_json& row);

  std::string m_path;
  sqlite3* m_db = nullptr;
  std::map<std::string, bool> m_columns;  // columns of main.results
};

}  // namespace vta::explore
