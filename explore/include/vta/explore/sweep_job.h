// One job of a sweep: a design point x a workload. Runs it (in a worker process) and turns the
// outcome into database rows: a summary row and one row per layer, every config key a column
// (configs/sweeps/README.md lists the columns). A design the ISA or the SRAMs cannot hold, or
// for which no schedule fits, gives status "invalid" with the reason; any other error "failed".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/explore/sweep_spec.h"

namespace vta::explore {

struct SweepJob {
  const DesignPoint* point = nullptr;
  size_t workload = 0;  // index into SweepSpec::workloads
};

// The job's identity in the database (ResultsDb::job_key of its key columns).
std::string job_key(const SweepSpec& spec, const SweepJob& job);
// Short hash of every setting that changes the job's result beyond its key columns: the
// reference check, the data seed (conv2d and matmul workloads), the tuning budget and the bytes
// of a network or model file. Resume reruns a job whose stored settings_id differs.
std::string settings_id(const SweepSpec& spec, const SweepJob& job);

// Runs the job in this process and returns its rows (status ok, invalid or failed).
std::vector<nlohmann::ordered_json> run_job(const SweepSpec& spec, const SweepJob& job);

// The single summary row of a job that did not report back (status "failed" or "timeout").
std::vector<nlohmann::ordered_json> lost_job_rows(const SweepSpec& spec, const SweepJob& job,
                                                  const std::string& status,
                                                  const std::string& error, double wall_seconds);

}  // namespace vta::explore
