#include "vta/explore/results_db.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <sqlite3.h>

#include "vta/sim/error.h"

namespace vta::explore {

const char* const kRowKeyColumns[5] = {"point_id", "workload", "backend", "schedule",
                                       "layer_index"};

namespace {

// Columns every database has, in this order (config keys and backend counters follow as they
// appear).
const char* const kCreateTable =
    "CREATE TABLE IF NOT EXISTS results ("
    "point INTEGER NOT NULL, point_id TEXT NOT NULL, workload TEXT NOT NULL, "
    "workload_index INTEGER NOT NULL, backend TEXT NOT NULL, schedule TEXT NOT NULL, "
    "layer_index INTEGER NOT NULL, row_kind TEXT NOT NULL, layer TEXT, status TEXT NOT NULL, "
    "error TEXT, "
    "PRIMARY KEY (point_id, workload, backend, schedule, layer_index))";

std::string quote(const std::string& ident) {
  std::string q = "\"";
  for (char c : ident) {
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return q + "\"";
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql, const std::string& file) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK) {
      throw Error(fmt::format("{}: {} (in: {})", file, sqlite3_errmsg(db), sql));
    }
  }
  ~Stmt() { sqlite3_finalize(m_stmt); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  sqlite3_stmt* get() const { return m_stmt; }

 private:
  sqlite3_stmt* m_stmt = nullptr;
};

void bind(sqlite3_stmt* st, int i, const nlohmann::ordered_json& v) {
  if (v.is_null()) {
    sqlite3_bind_null(st, i);
  } else if (v.is_boolean()) {
    sqlite3_bind_int(st, i, v.get<bool>() ? 1 : 0);
  } else if (v.is_number_integer()) {
    sqlite3_bind_int64(st, i, v.get<int64_t>());
  } else if (v.is_number()) {
    sqlite3_bind_double(st, i, v.get<double>());
  } else {
    const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    sqlite3_bind_text(st, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
}

nlohmann::ordered_json column_value(sqlite3_stmt* st, int i) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
      return sqlite3_column_int64(st, i);
    case SQLITE_FLOAT:
      return sqlite3_column_double(st, i);
    case SQLITE_TEXT:
      return std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
    default:
      return nullptr;
  }
}

std::string sql_type(const nlohmann::ordered_json& v) {
  if (v.is_number_integer() || v.is_boolean()) {
    return "INTEGER";
  }
  return v.is_number() ? "REAL" : "TEXT";
}

std::string csv_field(const nlohmann::ordered_json& v) {
  if (v.is_null()) {
    return "";
  }
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    return s;
  }
  std::string q = "\"";
  for (char c : s) {
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return q + "\"";
}

}  // namespace

void refuse_overwrite(const std::string& input, const std::string& output, const char* command) {
  std::error_code ec;
  const std::filesystem::path out = std::filesystem::weakly_canonical(output, ec);
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    // By name (a journal that does not exist yet) and by file (a link or another spelling).
    const std::filesystem::path in = std::filesystem::weakly_canonical(input + suffix, ec);
    if ((!out.empty() && in == out) || std::filesystem::equivalent(input + suffix, output, ec)) {
      throw Error(
          fmt::format("{}: the output '{}' is the database '{}'{}: refusing to write over "
                      "an input",
                      command, output, input, *suffix ? " (its journal)" : ""));
    }
  }
}

ResultsDb::ResultsDb(const std::string& path, Mode mode) : m_path(path) {
  const bool create = mode == Mode::kCreate;
  if (!create && !std::filesystem::is_regular_file(path)) {
    throw Error(fmt::format("cannot open results database '{}': no such file", path));
  }
  const int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    const std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    throw Error(fmt::format("cannot open results database '{}': {}", path, msg));
  }
  sqlite3_busy_timeout(m_db, 10000);
  try {
    if (create) {
      exec(kCreateTable);
    }
    refresh_columns();
    if (!m_columns.count("row_kind") || !m_columns.count("point_id")) {
      throw Error("its results table is not a sweep's");
    }

  } catch (const Error& e) {
    sqlite3_close(m_db);
    throw Error(fmt::format("'{}' is not a sweep results database: {}", path, e.what()));
  }
}

ResultsDb::~ResultsDb() {
  sqlite3_close(m_db);
}

void ResultsDb::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errmsg(m_db);
    sqlite3_free(err);
    throw Error(fmt::format("{}: {}", m_path, msg));
  }
}

std::vector<std::string> ResultsDb::columns(const std::string& schema) const {
  Stmt st(m_db, fmt::format("PRAGMA {}.table_info(results)", quote(schema)), m_path);
  std::vector<std::string> out;
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1)));
  }
  return out;
}

void ResultsDb::refresh_columns() {
  m_columns.clear();
  for (const std::string& c : columns("main")) {
    m_columns[c] = true;
  }
}

// Called inside a write transaction: another process on the same database may have added the
// column since this one last looked, so the table is asked again before ALTER TABLE.
void ResultsDb::ensure_column(const std::string& name, const std::string& type) {
  if (m_columns.count(name)) {
    return;
  }
  refresh_columns();
  if (!m_columns.count(name)) {
    exec(fmt::format("ALTER TABLE main.results ADD COLUMN {} {}", quote(name), type));
    m_columns[name] = true;
  }
}

void ResultsDb::ensure_columns(const nlohmann::ordered_json& row) {
  for (auto it = row.begin(); it != row.end(); ++it) {
    ensure_column(it.key(), sql_type(it.value()));
  }
}

std::string ResultsDb::job_key(const std::string& point_id, const std::string& workload,
                               const std::string& backend, const std::string& schedule) {
  return point_id + "|" + workload + "|" + backend + "|" + schedule;
}

void ResultsDb::write_job(const std::vector<nlohmann::ordered_json>& rows) {
  if (rows.empty()) {
    return;
  }
  exec("BEGIN IMMEDIATE");
  try {
    const auto& first = rows.front();
    Stmt del(m_db,
             "DELETE FROM results WHERE point_id = ?1 AND workload = ?2 AND backend = ?3 AND "
             "schedule = ?4",
             m_path);
    for (int i = 0; i < 4; ++i) {
      bind(del.get(), i + 1, first.at(kRowKeyColumns[i]));
    }
    if (sqlite3_step(del.get()) != SQLITE_DONE) {
      throw Error(fmt::format("{}: {}", m_path, sqlite3_errmsg(m_db)));
    }
    for (const auto& row : rows) {
      ensure_columns(row);
      std::string names, params;
      for (auto it = row.begin(); it != row.end(); ++it) {
        names += (names.empty() ? "" : ", ") + quote(it.key());
        params += params.empty() ? "?" : ", ?";
      }
      Stmt ins(m_db, fmt::format("INSERT INTO results ({}) VALUES ({})", names, params), m_path);
      int i = 1;
      for (auto it = row.begin(); it != row.end(); ++it) {
        bind(ins.get(), i++, it.value());
      }
      if (sqlite3_step(ins.get()) != SQLITE_DONE) {
        throw Error(fmt::format("{}: {}", m_path, sqlite3_errmsg(m_db)));
      }
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::map<std::string, ResultsDb::JobRecord> ResultsDb::job_status() const {
  // settings_id is added with the first job that has one (older databases lack it).
  const std::vector<std::string> cols = columns("main");
  const bool has_settings = std::find(cols.begin(), cols.end(), "settings_id") != cols.end();
  Stmt st(m_db,
          fmt::format("SELECT point_id, workload, backend, schedule, status, {} FROM results "
                      "WHERE row_kind = 'summary'",
                      has_settings ? "settings_id" : "NULL"),
          m_path);
  std::map<std::string, JobRecord> out;
  const auto text = [&](int i) {
    const unsigned char* t = sqlite3_column_text(st.get(), i);
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  };
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    out[job_key(text(0), text(1), text(2), text(3))] = JobRecord{text(4), text(5)};
  }
  return out;
}

std::vector<nlohmann::ordered_json> ResultsDb::rows() const {
  Stmt st(m_db,
          "SELECT * FROM results ORDER BY point, workload_index, backend, schedule, layer_index",
          m_path);
  std::vector<nlohmann::ordered_json> out;
  const int n = sqlite3_column_count(st.get());
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    nlohmann::ordered_json row;
    for (int i = 0; i < n; ++i) {
      row[sqlite3_column_name(st.get(), i)] = column_value(st.get(), i);
    }
    out.push_back(std::move(row));
  }
  return out;
}

// An export's output: never the database itself (nor its journal), written to a temporary file
// beside it and renamed into place, so a failed export leaves an existing file as it was.
class ExportFile {
 public:
  ExportFile(const std::string& db, const std::string& out) : m_out(out) {
    refuse_overwrite(db, out, "export");
    m_tmp = out + ".partial";
    m_file.open(m_tmp, std::ios::binary | std::ios::trunc);
    if (!m_file) {
      throw Error(fmt::format("cannot write '{}'", out));
    }
  }
  ~ExportFile() {
    if (!m_done) {
      std::error_code ec;
      std::filesystem::remove(m_tmp, ec);
    }
  }
  ExportFile(const ExportFile&) = delete;
  ExportFile& operator=(const ExportFile&) = delete;
  std::ofstream& stream() { return m_file; }
  void commit() {
    m_file.close();
    if (!m_file) {
      throw Error(fmt::format("cannot write '{}'", m_out));
    }
    std::filesystem::rename(m_tmp, m_out);
    m_done = true;
  }

 private:
  std::string m_out, m_tmp;
  std::ofstream m_file;
  bool m_done = false;
};

void ResultsDb::export_csv(const std::string& path) const {
  ExportFile out(m_path, path);
  std::ofstream& f = out.stream();
  const std::vector<std::string> cols = columns("main");
  for (size_t i = 0; i < cols.size(); ++i) {
    f << (i ? "," : "") << csv_field(cols[i]);
  }
  f << "\n";
  for (const auto& row : rows()) {
    for (size_t i = 0; i < cols.size(); ++i) {
      f << (i ? "," : "") << csv_field(row.at(cols[i]));
    }
    f << "\n";
  }
  out.commit();
}

void ResultsDb::export_jsonl(const std::string& path) const {
  ExportFile out(m_path, path);
  for (const auto& row : rows()) {
    out.stream() << row.dump() << "\n";
  }
  out.commit();
}

size_t ResultsDb::merge_from(const std::string& path) {
  { const ResultsDb check(path, Mode::kReadOnly); }  // names `path` unless a sweep database
  Stmt attach(m_db, "ATTACH DATABASE ?1 AS src", m_path);
  sqlite3_bind_text(attach.get(), 1, path.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(attach.get()) != SQLITE_DONE) {
    throw Error(fmt::format("cannot attach '{}': {}", path, sqlite3_errmsg(m_db)));
  }
  size_t added = 0;
  exec("BEGIN IMMEDIATE");
  try {
    const std::vector<std::string> cols = columns("src");
    std::string names, differs, on;
    for (const std::string& c : cols) {
      if (!m_columns.count(c)) {
        Stmt t(m_db,
               fmt::format("SELECT typeof({0}) FROM src.results WHERE {0} IS NOT NULL LIMIT 1",
                           quote(c)),
               m_path);
        const bool has = sqlite3_step(t.get()) == SQLITE_ROW;
        const std::string type =
            has ? reinterpret_cast<const char*>(sqlite3_column_text(t.get(), 0)) : "text";
        ensure_column(c, type == "integer" ? "INTEGER" : type == "real" ? "REAL" : "TEXT");
      }
      names += (names.empty() ? "" : ", ") + quote(c);
      if (c != "wall_seconds" && c != "version") {
        differs +=
            fmt::format("{}(o.{} IS NOT s.{})", differs.empty() ? "" : " OR ", quote(c), quote(c));
      }
    }
    for (const char* k : kRowKeyColumns) {
      on += fmt::format("{}o.{} = s.{}", on.empty() ? "" : " AND ", k, k);
    }
    Stmt conflict(
        m_db,
        fmt::format("SELECT s.point, s.workload, s.layer, {} FROM src.results s JOIN "
                    "main.results o ON {} WHERE {} LIMIT 1",
                    names.empty() ? "1" : "s.point_id", on, differs.empty() ? "0" : differs),
        m_path);
    if (sqlite3_step(conflict.get()) == SQLITE_ROW) {
      const nlohmann::ordered_json point = column_value(conflict.get(), 0);
      const nlohmann::ordered_json workload = column_value(conflict.get(), 1);
      const nlohmann::ordered_json layer = column_value(conflict.get(), 2);
      throw Error(fmt::format(
          "'{}' and '{}' both hold point {} workload {} layer {} with different results", path,
          m_path, point.dump(), workload.dump(), layer.is_null() ? "(summary)" : layer.dump()));
    }
    exec(
        fmt::format("INSERT OR IGNORE INTO main.results ({0}) SELECT {0} FROM src.results", names));
    added = static_cast<size_t>(sqlite3_changes(m_db));
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_exec(m_db, "DETACH DATABASE src", nullptr, nullptr, nullptr);
    throw;
  }
  exec("DETACH DATABASE src");
  return added;
}

}  // namespace vta::explore
