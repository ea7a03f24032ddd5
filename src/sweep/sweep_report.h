#pragma once
// `graspsim sweep-report DIR`: an HTML page of a sweep's results (DIR/sweep.json and
// DIR/results.jsonl): each metric over each grid parameter (mean per value, the band from
// min to max over the other parameters and samples), over two (heat map of the mean),
// distributions for random sweeps, final poses against a real push when the sweep names one,
// and the failed jobs with their errors.

#include <filesystem>

#include <nlohmann/json.hpp>

namespace graspsim {

// Writes the page to `out` (DIR/report.html when empty) and returns its path. InputError
// when DIR holds no sweep.
std::filesystem::path write_sweep_report(const std::filesystem::path& dir, const std::filesystem::path& out = {});

// A real MCube push's final displacement in the frame of scenes/validation/push.yaml: x along
// the pushed side's inward normal, z up, origin at the object's start; yaw in degrees.
struct PushOutcome {
  double x = 0, y = 0, yaw_deg = 0;
};
PushOutcome mcube_push_outcome(const std::string& path);

}  // namespace graspsim
